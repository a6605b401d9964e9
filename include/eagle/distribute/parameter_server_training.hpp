// eagle::distribute::ParameterServerTraining: asynchronous data parallelism in one process
// (TensorFlow's ParameterServerStrategy without a cluster; the asynchronous mode of seed 000 §9.2,
// samples/README.md; docs/guide.md, "Towers and asynchronous training"). The variables live on
// one device; each worker, on its own device and thread, reads their latest values, computes its
// gradient with its own tape and applies it through the shared optimizer, with no barrier. How
// stale each update was is counted.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "eagle/distribute/strategy.hpp"
#include "eagle/optimizers.hpp"
#include "eagle/tensor.hpp"
#include "eagle/variable.hpp"

namespace eagle::distribute {

struct ParameterServerTrainingOptions {
  // Where the variables and the optimizer's slots live, and where every update runs.
  std::string parameter_device = "/CPU:0";
  // One worker per entry (a device may repeat: two workers on one device are two threads).
  // Empty: one worker per logical GPU, or one on /CPU:0 when there is no GPU.
  std::vector<std::string> worker_devices;
  // Workers take turns in a fixed round-robin order instead of running concurrently (Note
  // [Deterministic schedule]): every run applies the same updates with the same staleness.
  bool deterministic = false;
  // Each update's gradient divided by its staleness where that is above 1: an update computed
  // from weights s updates old is applied at the learning rate over s (Note [Staleness-aware
  // updates]). Off: every gradient applied as computed, as TensorFlow does.
  bool staleness_aware = false;
};

// What a worker's loss function is given at each of its steps.
class WorkerContext {
 public:
  int worker() const { return worker_; }                 // index in worker_devices()
  const std::string& device() const { return device_; }  // full name of the worker's device
  std::int64_t step() const { return step_; }            // this worker's step, from 0
  // Updates applied (by every worker) before this step read the variables.
  std::int64_t read_version() const { return read_version_; }
  // The value `variable` had when this step read it, copied to the worker's device and watched
  // by the step's tape: what the loss must be computed from. InvalidArgumentError for a variable
  // that is not one of this training's.
  const Tensor& value(const Variable& variable) const;

 private:
  friend class ParameterServerTraining;
  int worker_ = 0;
  std::string device_;
  std::int64_t step_ = 0;
  std::int64_t read_version_ = 0;
  const std::unordered_map<std::uint64_t, std::size_t>* index_ = nullptr;
  std::vector<Tensor> values_;
};

// Computes one step's scalar floating loss from context.value(v) and the worker's data. It is
// called from every worker's thread at once (one at a time when deterministic), so what it
// shares between workers must be safe to use from several threads (eagle's tensors, variables
// and ops are).
using WorkerLossFn = std::function<Tensor(const WorkerContext& context)>;

// One applied update.
struct UpdateRecord {
  int worker = 0;
  std::int64_t step = 0;          // the worker's step
  std::int64_t read_version = 0;  // updates applied before the worker read the variables
  std::int64_t version = 0;       // updates applied before this one: its place in the order
  std::int64_t staleness = 0;     // version - read_version: updates by others in between
  double gradient_scale = 1;      // what the gradient was multiplied by (staleness_aware: 1/s)
  double loss = 0;                // the step's loss, computed from the values read
  double seconds = 0;             // since run() started, when the update was applied
};

struct AsyncTrainingResult {
  std::vector<UpdateRecord> updates;  // in the order they were applied
  double seconds = 0;                 // run()'s wall-clock time

  // [s] = the number of updates with staleness s, up to the largest (empty without updates).
  std::vector<std::int64_t> staleness_histogram() const;
  double mean_staleness() const;       // 0 without updates
  std::int64_t max_staleness() const;  // 0 without updates
  // "staleness of 40 updates: mean 0.98, max 1\n  0: 1\n  1: 39\n".
  std::string staleness_report() const;
};

// Asynchronous training in one process:
//
//   eagle::distribute::ParameterServerTraining ps({"/CPU:0", {"/GPU:0", "/GPU:1"}});
//   eagle::Variable w = ps.create_variable(eagle::zeros({3, 1}), {"w"});
//   eagle::optimizers::SGD sgd({0.1});
//   auto result = ps.run(sgd, 100, [&](const eagle::distribute::WorkerContext& ctx) {
//     const Batch& b = batches[ctx.worker()][ctx.step()];
//     return eagle::reduce_mean(eagle::square(eagle::matmul(b.x, ctx.value(w)) - b.y));
//   });
//   fmt::print("{}", result.staleness_report());
//
// Each worker step, on the worker's thread under its device scope: read every variable at once
// (ReadVariableOp on the parameter device, no update in between: Note [Consistent reads]), copy
// the values to the worker's device, compute the loss and its gradient with the worker's own
// tape, copy the gradient to the parameter device and apply it with the shared optimizer. The
// staleness of the update is the number of updates applied between its read and its write.
// An exception in a worker stops the others after their current step and reaches the caller of
// run() as the same error class, its message naming the worker, device and step, the original
// nested (std::rethrow_if_nested); a non-eagle exception arrives as UnknownError.
//
// It is a Strategy (Note [One distribution interface]): variables created under scope() live on
// the parameter device and are trained by run(), as create_variable's; num_replicas_in_sync() is
// 1 (each worker's update is its own, TensorFlow's ParameterServerStrategy), reduce and
// split_batch are one replica's, and Strategy::run (reach it through a `const Strategy&`: the
// name run here is the asynchronous training) calls its function once on the calling thread.
class ParameterServerTraining : public Strategy {
 public:
  // InvalidArgumentError for a malformed device, or one that names no device of this process.
  explicit ParameterServerTraining(ParameterServerTrainingOptions options = {});
  ~ParameterServerTraining() override;

  const std::string& parameter_device() const { return parameter_device_; }  // full name
  const std::vector<std::string>& worker_devices() const { return worker_devices_; }
  int num_workers() const { return static_cast<int>(worker_devices_.size()); }

  // A variable on the parameter device, trained by run() when trainable: the same as creating it
  // under scope(). While run() is in progress: FailedPreconditionError.
  Variable create_variable(const Tensor& initial_value, VariableOptions options = {});

  // The Strategy interface: one replica, whose device is the parameter device.
  int num_replicas_in_sync() const override { return 1; }
  const std::vector<std::string>& devices() const override { return parameter_devices_; }
  Tensor reduce(ReduceOp op, const PerReplica<Tensor>& value,
                std::optional<int> axis = std::nullopt) const override;
  PerReplica<Tensor> split_batch(const Tensor& global_batch) const override;
  using Strategy::split_batch;
  const std::vector<Variable>& variables() const { return variables_; }
  // Updates applied through run() so far, over all runs.
  std::int64_t version() const;

  // Runs steps_per_worker steps on every worker, then returns every update's record.
  // InvalidArgumentError for a negative step count, no variables or an empty loss function;
  // FailedPreconditionError while another run() of this object is in progress.
  AsyncTrainingResult run(optimizers::Optimizer& optimizer, std::int64_t steps_per_worker,
                          const WorkerLossFn& loss_fn);

 protected:
  void run_replicas(const std::function<void(const ReplicaContext&)>& body) const override;
  std::vector<Tensor> replica_all_reduce(const ReplicaContext& ctx, ReduceOp op,
                                         const std::vector<Tensor>& values,
                                         const std::vector<std::string>& names) const override;
  void replica_merge_call(const ReplicaContext& ctx,
                          const std::function<void()>& fn) const override;
  // Variables created in scope(): on the parameter device, recorded as this training's.
  Variable create_variable(const NextVariableCreator& next, const Tensor& initial_value,
                           const VariableOptions& options) const override;

 private:
  struct Shared;
  struct Run;
  void worker_loop(Run& run, int worker);

  std::string parameter_device_;
  std::vector<std::string> parameter_devices_;  // {parameter_device_}: devices()
  std::vector<std::string> worker_devices_;
  bool deterministic_ = false;
  bool staleness_aware_ = false;
  // Made in scope() too, through the const creator hook: mutable, never changed while run() is in
  // progress.
  mutable std::vector<Variable> variables_;
  mutable std::unordered_map<std::uint64_t, std::size_t> index_;  // id -> place in variables_
  std::unique_ptr<Shared> shared_;  // the version counter, its lock, the running flag
};

}  // namespace eagle::distribute
