// eagle::distribute::MirroredStrategy: synchronous data parallelism on the devices of one process
// (TensorFlow's tf.distribute.MirroredStrategy), one host thread per replica (docs/guide.md,
// "Distributed training: MirroredStrategy").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "eagle/config.hpp"
#include "eagle/data/dataset.hpp"
#include "eagle/distribute/cross_device_ops.hpp"
#include "eagle/distribute/per_replica.hpp"
#include "eagle/distribute/strategy.hpp"
#include "eagle/tensor.hpp"

namespace eagle::distribute {

class MirroredStrategy;

namespace detail {
class StrategyRuntime;
class WorkerGroup;
// The process group of a MultiWorkerMirroredStrategy, nullptr for any other strategy.
WorkerGroup* worker_group_of(const MirroredStrategy& strategy);
}  // namespace detail

// Synchronous training on several devices of this process:
//
//   eagle::distribute::MirroredStrategy strategy({"GPU:0", "GPU:1"});
//   eagle::Variable w;
//   {
//     auto scope = strategy.scope();
//     w = eagle::Variable(eagle::zeros({784, 10}), {"w"});  // mirrored: a component per device
//   }
//   eagle::optimizers::SGD sgd;
//   auto losses = strategy.run([&](const Tensor& x, const Tensor& y) {
//     eagle::GradientTape tape;
//     Tensor loss = eagle::nn::compute_average_loss(per_example_loss(x, y, w), kGlobalBatch);
//     auto grads = tape.gradient(loss, {w});
//     sgd.apply_gradients({{grads[0], w}});  // all-reduces the gradients (sum), then updates
//     return loss;
//   }, strategy.split_batch(x_global), strategy.split_batch(y_global));
//   Tensor loss = strategy.reduce(ReduceOp::kSum, losses);
//
// Construction logs TensorFlow's lines (Note [MirroredStrategy construction log] in
// src/distribute/mirrored_strategy.cpp). run() calls the replica function on a persistent pool of
// one thread per replica, concurrently (TensorFlow steps its eager replicas one after another).
// Everything else is the Strategy interface (strategy.hpp).
class MirroredStrategy : public Strategy {
 public:
  // Every logical GPU, else CPU:0.
  MirroredStrategy();
  // Devices as strings ("GPU:0", "/gpu:1", "/device:CPU:0", full names) or logical devices,
  // resolved to full names. Duplicates: InvalidArgumentError with TensorFlow's text; a device this
  // process does not have: InvalidArgumentError naming it. `cross_device_ops` empty: chosen as
  // TensorFlow chooses (select_cross_device_ops), with its warning: NcclAllReduce for replicas on
  // distinct CUDA GPUs when NCCL loads, else ReductionToOneDevice. Given (TensorFlow's
  // MirroredStrategy(devices, cross_device_ops)), it is checked against the devices here: an
  // NcclAllReduce on devices it cannot run on is an InvalidArgumentError saying why.
  explicit MirroredStrategy(const std::vector<std::string>& devices,
                            std::shared_ptr<CrossDeviceOps> cross_device_ops = nullptr);
  // Logical devices (config::list_logical_devices): a template, so that a braced list of
  // strings ({"GPU:0", "GPU:1"}) is never read as one LogicalDevice.
  template <class LogicalDevices, class = std::enable_if_t<std::is_same_v<
                                      typename LogicalDevices::value_type, config::LogicalDevice>>>
  explicit MirroredStrategy(const LogicalDevices& devices,
                            std::shared_ptr<CrossDeviceOps> cross_device_ops = nullptr)
      : MirroredStrategy(names_of(devices), std::move(cross_device_ops)) {}
  ~MirroredStrategy() override;  // MultiWorkerMirroredStrategy is one

  // The replicas of every worker (MultiWorkerMirroredStrategy); this process's otherwise.
  int num_replicas_in_sync() const override;
  const std::vector<std::string>& devices() const override;
  CrossDeviceOps& cross_device_ops() const;

  // Strategy::scope(): variables (and optimizer slots of them) created on this thread while the
  // scope lives are mirrored over devices().
  //
  // Strategy::run(fn, args...) calls fn on a persistent pool of one thread per replica,
  // concurrently: what fn captures must be safe to share. An error in a replica reaches the
  // caller as the same error class, its message prefixed with "in replica <i> on <device>: ",
  // after every replica has finished or been released from the all-reduce it waited in; when
  // several fail, the lowest replica's own error wins.

  Tensor reduce(ReduceOp op, const PerReplica<Tensor>& value,
                std::optional<int> axis = std::nullopt) const override;

  // TensorFlow's split of a global batch: replica i takes elements [i*c, (i+1)*c) of the first
  // axis, c = ceil(batch / replicas), clipped to the batch (so the last replicas may get fewer,
  // or none), each copied to its replica's device. A tensor of rank 0: InvalidArgumentError.
  // Under a MultiWorkerMirroredStrategy every worker passes the same global batch and gets the
  // slices of its own replicas (global replica ids task * devices().size() + i).
  PerReplica<Tensor> split_batch(const Tensor& global_batch) const override;
  using Strategy::split_batch;

  // Strategy::gather, across every worker under a MultiWorkerMirroredStrategy.
  Tensor gather(const PerReplica<Tensor>& value, int axis) const override;

 protected:
  // MultiWorkerMirroredStrategy: this process's replicas on `devices` (empty: every logical GPU,
  // else CPU:0) as one worker of `workers`.
  MirroredStrategy(const std::vector<std::string>& devices,
                   std::shared_ptr<detail::WorkerGroup> workers);

  void run_replicas(const std::function<void(const ReplicaContext&)>& body) const override;
  std::vector<Tensor> replica_all_reduce(const ReplicaContext& ctx, ReduceOp op,
                                         const std::vector<Tensor>& values,
                                         const std::vector<std::string>& names) const override;
  void replica_merge_call(const ReplicaContext& ctx,
                          const std::function<void()>& fn) const override;
  Variable create_variable(const NextVariableCreator& next, const Tensor& initial_value,
                           const VariableOptions& options) const override;

 private:
  friend class detail::StrategyRuntime;
  friend detail::WorkerGroup* detail::worker_group_of(const MirroredStrategy& strategy);
  template <class LogicalDevices>
  static std::vector<std::string> names_of(const LogicalDevices& devices) {
    std::vector<std::string> names;
    for (const config::LogicalDevice& d : devices) names.push_back(d.name);
    return names;
  }
  void init(std::vector<std::string> devices, std::shared_ptr<CrossDeviceOps> cross_device_ops,
            std::shared_ptr<detail::WorkerGroup> workers = nullptr);

  std::unique_ptr<detail::StrategyRuntime> runtime_;
};

}  // namespace eagle::distribute
