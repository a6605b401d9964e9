// eagle::distribute::MirroredStrategy: synchronous data parallelism on the devices of one process
// (SEMANTICS §12, TensorFlow's tf.distribute.MirroredStrategy), one host thread per replica.
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
#include "eagle/tensor.hpp"

namespace eagle::distribute {

class MirroredStrategy;
class ReplicaContext;

namespace detail {
class StrategyRuntime;
class WorkerGroup;
// The process group of a MultiWorkerMirroredStrategy, nullptr for any other strategy.
WorkerGroup* worker_group_of(const MirroredStrategy& strategy);
template <class Fn, class... Args>
decltype(auto) call_replica_fn(Fn& fn, const ReplicaContext& ctx, const Args&... args);
}  // namespace detail

// What a replica function may ask about the replica it runs as (tf.distribute.ReplicaContext).
// Under a MultiWorkerMirroredStrategy the id and the count are over every worker's replicas.
class ReplicaContext {
 public:
  int replica_id_in_sync_group() const { return replica_id_; }
  int num_replicas_in_sync() const { return num_replicas_; }
  // The replica's device, a full name; the replica function runs under a scope of it.
  const std::string& device() const { return *device_; }
  const MirroredStrategy& strategy() const { return *strategy_; }

  // tf.distribute.ReplicaContext.all_reduce: the SUM (or MEAN) over the replicas of each value,
  // on this replica's device; every copy is bit-identical. A collective: every replica calls it
  // at the same point of its function with values of the same shapes and dtypes (one pack per
  // dtype, as apply_gradients; InvalidArgumentError naming the replicas otherwise). It is
  // differentiable: the gradient of a SUM is the SUM of the replicas' gradients, so every replica
  // must differentiate through it at the same point of its backward pass, inside the same run()
  // (FailedPreconditionError otherwise). Called on another thread than the replica's own:
  // FailedPreconditionError.
  std::vector<Tensor> all_reduce(ReduceOp op, const std::vector<Tensor>& values) const;
  Tensor all_reduce(ReduceOp op, const Tensor& value) const;

 private:
  friend class detail::StrategyRuntime;
  friend class MirroredStrategy;
  template <class Fn, class... Args>
  friend decltype(auto) detail::call_replica_fn(Fn& fn, const ReplicaContext& ctx,
                                                const Args&... args);
  ReplicaContext(const MirroredStrategy* strategy, int replica_id, int num_replicas,
                 const std::string* device, int local_replica_id)
      : strategy_(strategy),
        replica_id_(replica_id),
        num_replicas_(num_replicas),
        device_(device),
        local_replica_id_(local_replica_id) {}
  const MirroredStrategy* strategy_;
  int replica_id_;
  int num_replicas_;
  const std::string* device_;
  int local_replica_id_;  // the index into this process's devices() and PerReplica values
};

// The replica context of the calling thread: set inside MirroredStrategy::run's replica
// functions, nullptr elsewhere (TensorFlow's get_replica_context() returns a default context
// there; eagle says "none").
const ReplicaContext* get_replica_context();

// Opens MirroredStrategy::scope(): while it lives, variables created on this thread are mirrored.
// It must end before its strategy is destroyed.
class [[nodiscard]] StrategyScope {
 public:
  ~StrategyScope();
  StrategyScope(const StrategyScope&) = delete;
  StrategyScope& operator=(const StrategyScope&) = delete;
  StrategyScope(StrategyScope&&) = delete;
  StrategyScope& operator=(StrategyScope&&) = delete;

 private:
  friend class MirroredStrategy;
  explicit StrategyScope(const MirroredStrategy& strategy);
  const detail::StrategyRuntime* previous_;
};

// The elements of a dataset split over the replicas: each global batch becomes a PerReplica of
// per-replica elements by TensorFlow's rule (MirroredStrategy::split_batch). Iterate it with a
// range-for, as the dataset itself.
class DistributedDataset {
 public:
  class Iterator;
  Iterator begin() const;
  data::Dataset::Sentinel end() const { return {}; }

 private:
  friend class MirroredStrategy;
  DistributedDataset(const MirroredStrategy& strategy, data::Dataset dataset)
      : strategy_(&strategy), dataset_(std::move(dataset)) {}
  const MirroredStrategy* strategy_;
  data::Dataset dataset_;
};

class DistributedDataset::Iterator {
 public:
  const PerReplica<data::Element>& operator*() const { return current_; }
  const PerReplica<data::Element>* operator->() const { return &current_; }
  Iterator& operator++();
  bool operator!=(data::Dataset::Sentinel s) const { return inner_ != s; }
  bool operator==(data::Dataset::Sentinel s) const { return inner_ == s; }

 private:
  friend class DistributedDataset;
  Iterator(const MirroredStrategy& strategy, data::Dataset::Iterator inner);
  void split_current();
  const MirroredStrategy* strategy_;
  data::Dataset::Iterator inner_;
  PerReplica<data::Element> current_;
};

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
class MirroredStrategy {
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
  virtual ~MirroredStrategy();  // MultiWorkerMirroredStrategy is one
  MirroredStrategy(const MirroredStrategy&) = delete;
  MirroredStrategy& operator=(const MirroredStrategy&) = delete;

  // The replicas of every worker (MultiWorkerMirroredStrategy); this process's otherwise.
  int num_replicas_in_sync() const;
  // This process's replicas' devices, full names, in replica order: a PerReplica value (run's
  // arguments and results, split_batch) has one component per device here.
  const std::vector<std::string>& devices() const;
  CrossDeviceOps& cross_device_ops() const;

  // Variables (and optimizer slots of them) created on this thread while the scope lives are
  // mirrored over devices(). Scopes nest; the innermost strategy wins.
  StrategyScope scope() const { return StrategyScope(*this); }

  // Calls fn once per replica, each on its own thread under that replica's device scope and
  // replica context, and waits for all of them. fn is called as fn(args_i...) or, when it takes
  // one, fn(const ReplicaContext&, args_i...), where args_i is component i of a PerReplica
  // argument and any other argument itself. Returns one result per replica (nothing when fn
  // returns void). fn runs on several threads at once: what it captures must be safe to share.
  // An error in a replica reaches the caller as the same error class, its message prefixed with
  // "in replica <i> on <device>: ", after every replica has finished or been released from the
  // all-reduce it waited in; when several fail, the lowest replica's own error wins.
  template <class Fn, class... Args>
  auto run(Fn&& fn, const Args&... args) const;

  // Reduces a per-replica value across replicas (TensorFlow's strategy.reduce): the sum or the
  // mean; with an axis, also over that axis of each value, MEAN then being sum(numerators) /
  // sum(denominators) (so uneven per-replica batches average correctly). The result is on the
  // current scope's device, else CPU:0.
  Tensor reduce(ReduceOp op, const PerReplica<Tensor>& value,
                std::optional<int> axis = std::nullopt) const;

  // TensorFlow's split of a global batch: replica i takes elements [i*c, (i+1)*c) of the first
  // axis, c = ceil(batch / replicas), clipped to the batch (so the last replicas may get fewer,
  // or none), each copied to its replica's device. A tensor of rank 0: InvalidArgumentError.
  // Under a MultiWorkerMirroredStrategy every worker passes the same global batch and gets the
  // slices of its own replicas (global replica ids task * devices().size() + i).
  PerReplica<Tensor> split_batch(const Tensor& global_batch) const;
  // Every component of an element split the same way.
  PerReplica<data::Element> split_batch(const data::Element& global_batch) const;
  // experimental_distribute_dataset: iterates `dataset` (batched by the global batch size) and
  // yields each batch split over the replicas.
  DistributedDataset experimental_distribute_dataset(const data::Dataset& dataset) const {
    return DistributedDataset(*this, dataset);
  }

  // The strategy's identity for its mirrored variables (unique in the process).
  std::uint64_t id() const;

 protected:
  // MultiWorkerMirroredStrategy: this process's replicas on `devices` (empty: every logical GPU,
  // else CPU:0) as one worker of `workers`.
  MirroredStrategy(const std::vector<std::string>& devices,
                   std::shared_ptr<detail::WorkerGroup> workers);

 private:
  friend class StrategyScope;
  friend detail::WorkerGroup* detail::worker_group_of(const MirroredStrategy& strategy);
  template <class LogicalDevices>
  static std::vector<std::string> names_of(const LogicalDevices& devices) {
    std::vector<std::string> names;
    for (const config::LogicalDevice& d : devices) names.push_back(d.name);
    return names;
  }
  void init(std::vector<std::string> devices, std::shared_ptr<CrossDeviceOps> cross_device_ops,
            std::shared_ptr<detail::WorkerGroup> workers = nullptr);
  const detail::StrategyRuntime* runtime_for_scope() const;
  void run_replicas(const std::function<void(const ReplicaContext&)>& body) const;

  std::unique_ptr<detail::StrategyRuntime> runtime_;
};

namespace detail {

template <class T>
const T& replica_arg(const T& arg, int) {
  return arg;
}
template <class T>
const T& replica_arg(const PerReplica<T>& arg, int replica) {
  return arg[static_cast<std::size_t>(replica)];
}

template <class Fn, class... Args>
decltype(auto) call_replica_fn(Fn& fn, const ReplicaContext& ctx, const Args&... args) {
  const int r = ctx.local_replica_id_;
  if constexpr (std::is_invocable_v<Fn&, const ReplicaContext&,
                                    decltype(replica_arg(args, r))...>) {
    return fn(ctx, replica_arg(args, r)...);
  } else {
    return fn(replica_arg(args, r)...);
  }
}

}  // namespace detail

template <class Fn, class... Args>
auto MirroredStrategy::run(Fn&& fn, const Args&... args) const {
  using Result = std::decay_t<decltype(detail::call_replica_fn(
      fn, std::declval<const ReplicaContext&>(), args...))>;
  if constexpr (std::is_void_v<Result>) {
    run_replicas([&](const ReplicaContext& ctx) { detail::call_replica_fn(fn, ctx, args...); });
  } else {
    std::vector<std::optional<Result>> results(devices().size());
    run_replicas([&](const ReplicaContext& ctx) {
      results[static_cast<std::size_t>(ctx.local_replica_id_)].emplace(
          detail::call_replica_fn(fn, ctx, args...));
    });
    std::vector<Result> values;
    values.reserve(results.size());
    for (auto& r : results) values.push_back(std::move(*r));
    return PerReplica<Result>(std::move(values));
  }
}

}  // namespace eagle::distribute
