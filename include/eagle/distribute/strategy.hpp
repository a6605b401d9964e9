// eagle::distribute::Strategy: the one interface every distribution strategy implements
// (TensorFlow's tf.distribute.Strategy, StrategyExtended and ReplicaContext), the default
// strategy that stands for "no distribution", and the context queries (get_strategy,
// has_strategy, in_cross_replica_context, get_replica_context). Note [One distribution
// interface] in src/distribute/strategy.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "eagle/data/dataset.hpp"
#include "eagle/distribute/per_replica.hpp"
#include "eagle/scope.hpp"
#include "eagle/tensor.hpp"
#include "eagle/variable.hpp"
#include "eagle/variable_creator.hpp"

namespace eagle::distribute {

class Strategy;
class StrategyExtended;
class ReplicaContext;

namespace detail {
template <class Fn, class... Args>
decltype(auto) call_replica_fn(Fn& fn, const ReplicaContext& ctx, const Args&... args);
// Installs `ctx` as the calling thread's replica context while it lives (a strategy's run() does
// this on each replica's thread, around the replica function).
class ReplicaContextGuard {
 public:
  explicit ReplicaContextGuard(const ReplicaContext& ctx);
  ~ReplicaContextGuard();
  ReplicaContextGuard(const ReplicaContextGuard&) = delete;
  ReplicaContextGuard& operator=(const ReplicaContextGuard&) = delete;

 private:
  const ReplicaContext* previous_;
};
}  // namespace detail

// What a replica function may ask about the replica it runs as (tf.distribute.ReplicaContext).
// Under a MultiWorkerMirroredStrategy the id and the count are over every worker's replicas.
// Outside every strategy the calling thread is in the default strategy's one replica context
// (id 0 of 1), as in TensorFlow.
class ReplicaContext {
 public:
  int replica_id_in_sync_group() const { return replica_id_; }
  int num_replicas_in_sync() const { return num_replicas_; }
  // The replica's device, a full name; the replica function runs under a scope of it. Empty for
  // the default strategy's context, whose functions run under the caller's own scopes.
  const std::string& device() const { return *device_; }
  const Strategy& strategy() const { return *strategy_; }

  // tf.distribute.ReplicaContext.all_reduce: the SUM (or MEAN) over the replicas of each value,
  // on this replica's device; every copy is bit-identical. A collective: every replica calls it
  // at the same point of its function with values of the same shapes and dtypes (one pack per
  // dtype, as apply_gradients; InvalidArgumentError naming the replicas otherwise). It is
  // differentiable: the gradient of a SUM is the SUM of the replicas' gradients, so every replica
  // must differentiate through it at the same point of its backward pass, inside the same run()
  // (FailedPreconditionError otherwise). Called on another thread than the replica's own:
  // FailedPreconditionError. Under the default strategy (one replica) it returns the values.
  std::vector<Tensor> all_reduce(ReduceOp op, const std::vector<Tensor>& values) const;
  Tensor all_reduce(ReduceOp op, const Tensor& value) const;
  // The same, `names` (one per value) naming the values when the replicas' differ ("'w:0' (2,)
  // float32" rather than "'value 0' ...").
  std::vector<Tensor> all_reduce(ReduceOp op, const std::vector<Tensor>& values,
                                 const std::vector<std::string>& names) const;

  // tf.distribute.ReplicaContext.merge_call without arguments: fn runs once, on one replica's
  // thread, when every replica has reached this point; no replica returns before it has run. A
  // collective, as all_reduce (an error in fn reaches every replica). The default strategy's
  // context calls fn.
  void merge_call(const std::function<void()>& fn) const;

  // The index of this replica among this process's replicas: what indexes devices(), the
  // components of a PerReplica value and of a mirrored variable.
  int local_replica_id() const { return local_replica_id_; }

 private:
  friend class Strategy;
  ReplicaContext(const Strategy* strategy, int replica_id, int num_replicas,
                 const std::string* device, int local_replica_id)
      : strategy_(strategy),
        replica_id_(replica_id),
        num_replicas_(num_replicas),
        device_(device),
        local_replica_id_(local_replica_id) {}
  const Strategy* strategy_;
  int replica_id_;
  int num_replicas_;
  const std::string* device_;
  int local_replica_id_;
};

// The strategy of the calling thread (tf.distribute.get_strategy): the replica's strategy in a
// replica function, else the innermost open scope()'s, else the default strategy.
const Strategy& get_strategy();
// Whether get_strategy() is another strategy than the default one (tf.distribute.has_strategy).
bool has_strategy();
// True inside a (non-default) strategy's scope() and outside its replica functions: the
// cross-replica context, where a value is the whole per-replica set
// (tf.distribute.in_cross_replica_context).
bool in_cross_replica_context();
// The replica context of the calling thread: the replica's in a replica function, the default
// strategy's outside every strategy, nullptr in the cross-replica context (TensorFlow's
// tf.distribute.get_replica_context).
const ReplicaContext* get_replica_context();

// The live strategy of this id (Strategy::id), nullptr once it is destroyed or for an id no
// strategy had.
const Strategy* find_strategy(std::uint64_t id);
// The id of the strategy that distributes `var` (a mirrored variable's), 0 for a plain variable.
std::uint64_t strategy_id_of(const Variable& var);

// Opens a strategy's scope(): while it lives, variables created on this thread are placed and
// replicated as the strategy says (mirrored by a MirroredStrategy). It must end before its
// strategy is destroyed. Scopes nest; the innermost strategy wins.
class [[nodiscard]] StrategyScope {
 public:
  ~StrategyScope();
  StrategyScope(const StrategyScope&) = delete;
  StrategyScope& operator=(const StrategyScope&) = delete;
  StrategyScope(StrategyScope&&) = delete;
  StrategyScope& operator=(StrategyScope&&) = delete;

 private:
  friend class Strategy;
  explicit StrategyScope(const Strategy& strategy);
  const Strategy* previous_;
  // The strategy's variable creator, installed while the scope lives (not for the default one).
  std::optional<VariableCreatorScope> creator_;
};

// The elements of a dataset split over the replicas: each global batch becomes a PerReplica of
// per-replica elements by the strategy's split_batch. Iterate it with a range-for, as the
// dataset itself.
class DistributedDataset {
 public:
  class Iterator;
  Iterator begin() const;
  data::Dataset::Sentinel end() const { return {}; }

 private:
  friend class Strategy;
  DistributedDataset(const Strategy& strategy, data::Dataset dataset)
      : strategy_(&strategy), dataset_(std::move(dataset)) {}
  const Strategy* strategy_;
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
  Iterator(const Strategy& strategy, data::Dataset::Iterator inner);
  void split_current();
  const Strategy* strategy_;
  data::Dataset::Iterator inner_;
  PerReplica<data::Element> current_;
};

// What a strategy does with variables and collectives, beyond run and reduce
// (tf.distribute.StrategyExtended). Every strategy's extended() has these; the default
// implementations are the default strategy's and hold for any strategy whose variables are
// plain or mirrored.
class StrategyExtended {
 public:
  explicit StrategyExtended(const Strategy& strategy) : strategy_(&strategy) {}
  virtual ~StrategyExtended() = default;
  StrategyExtended(const StrategyExtended&) = delete;
  StrategyExtended& operator=(const StrategyExtended&) = delete;

  // Runs fn on the variable (TensorFlow's extended.update): a plain variable once (its updates
  // run on its device whatever the scope: resource pinning); a mirrored variable, each call under
  // a scope of the component's device, once per component in the cross-replica context, and on the
  // calling replica's own component in a replica function (every replica updates its own after the
  // same all-reduce: the components stay bit-identical). A mirrored variable of another strategy in
  // a replica function: InvalidArgumentError.
  virtual void update(const Variable& var, const std::function<void(const Variable&)>& fn) const;

  // The reduction of each per-replica value to `destination` (a device; empty: the current
  // scope's device, else CPU:0), as strategy.reduce of each, in one call
  // (extended.batch_reduce_to).
  virtual std::vector<Tensor> batch_reduce_to(ReduceOp op,
                                              const std::vector<PerReplica<Tensor>>& values,
                                              const std::string& destination = {}) const;

  // A scope under which a variable created is placed with `var` (extended.colocate_vars_with):
  // on its device, or over the same devices when the strategy mirrors.
  DeviceScope colocate_vars_with(const Variable& var) const;

  // Whether `var` was created under this strategy's scope (extended.variable_created_in_scope):
  // a variable of another strategy, or a plain one under a mirroring strategy, was not.
  virtual bool variable_created_in_scope(const Variable& var) const;

  // This process's replica devices, full names (extended.worker_devices).
  const std::vector<std::string>& worker_devices() const;

  const Strategy& strategy() const { return *strategy_; }

 private:
  const Strategy* strategy_;
};

// The interface of every distribution strategy (tf.distribute.Strategy). The default strategy
// (get_strategy() outside every scope) is one replica on the calling thread; MirroredStrategy,
// MultiWorkerMirroredStrategy derive from it, and code written against Strategy (Keras's fit,
// the optimizers, a custom training loop) runs under any of them.
class Strategy {
 public:
  virtual ~Strategy();
  Strategy(const Strategy&) = delete;
  Strategy& operator=(const Strategy&) = delete;

  // Every worker's replicas (num_replicas_in_sync of the replica contexts).
  virtual int num_replicas_in_sync() const = 0;
  // This process's replicas' devices, full names, in replica order: a PerReplica value (run's
  // arguments and results, split_batch) has one component per device here.
  virtual const std::vector<std::string>& devices() const = 0;

  // While the scope lives, variables created on this thread belong to this strategy (mirrored,
  // for a MirroredStrategy). Scopes nest; the innermost strategy wins.
  StrategyScope scope() const { return StrategyScope(*this); }

  // Calls fn once per replica (each on its own thread under that replica's device scope and
  // replica context, for a MirroredStrategy; on the calling thread for the default strategy) and
  // waits for all of them. fn is called as fn(args_i...) or, when it takes one,
  // fn(const ReplicaContext&, args_i...), where args_i is component i of a PerReplica argument and
  // any other argument itself. Returns one result per replica (nothing when fn returns void). An
  // error in a replica reaches the caller as the same error class (its message naming the
  // replica when there are several).
  template <class Fn, class... Args>
  auto run(Fn&& fn, const Args&... args) const;

  // Reduces a per-replica value across replicas (strategy.reduce): the sum or the mean; with an
  // axis, also over that axis of each value, MEAN then being sum(numerators) /
  // sum(denominators) (so uneven per-replica batches average correctly). The result is on the
  // current scope's device, else CPU:0.
  virtual Tensor reduce(ReduceOp op, const PerReplica<Tensor>& value,
                        std::optional<int> axis = std::nullopt) const = 0;

  // The split of a global batch over this process's replicas (the default strategy: the batch
  // itself). A tensor of rank 0: InvalidArgumentError.
  virtual PerReplica<Tensor> split_batch(const Tensor& global_batch) const = 0;
  // Every component of an element split the same way.
  PerReplica<data::Element> split_batch(const data::Element& global_batch) const;
  // experimental_distribute_dataset: iterates `dataset` (batched by the global batch size) and
  // yields each batch split over the replicas.
  DistributedDataset experimental_distribute_dataset(const data::Dataset& dataset) const {
    return DistributedDataset(*this, dataset);
  }

  // Gathers a per-replica value across every replica (every worker's, under a
  // MultiWorkerMirroredStrategy: a collective there) along `axis`, in replica order, onto the
  // current scope's device, else CPU:0 (strategy.gather). The values must agree in rank and in
  // every other dimension; a scalar or an axis out of range: InvalidArgumentError.
  virtual Tensor gather(const PerReplica<Tensor>& value, int axis) const;

  const StrategyExtended& extended() const { return *extended_; }

  // A number unique in the process, never reused: what a model or a variable keeps of the strategy
  // it belongs to (find_strategy finds it again while it lives).
  std::uint64_t id() const { return id_; }

 protected:
  // `extended`: the strategy's StrategyExtended, or nullptr for the base one.
  explicit Strategy(std::unique_ptr<StrategyExtended> extended = nullptr);
  // Subclasses install an extended() that needs the strategy constructed first.
  void set_extended(std::unique_ptr<StrategyExtended> extended);

  // Runs body once per local replica, with that replica's context installed
  // (detail::ReplicaContextGuard), and rethrows the first failure.
  virtual void run_replicas(const std::function<void(const ReplicaContext&)>& body) const = 0;
  // ReplicaContext::all_reduce and merge_call, in the replica function of `ctx`. `names` has one
  // entry per value.
  virtual std::vector<Tensor> replica_all_reduce(const ReplicaContext& ctx, ReduceOp op,
                                                 const std::vector<Tensor>& values,
                                                 const std::vector<std::string>& names) const = 0;
  virtual void replica_merge_call(const ReplicaContext& ctx,
                                  const std::function<void()>& fn) const = 0;

  // The variable creator of this strategy's scope() (eagle::variable_creator_scope): how the
  // strategy makes the variables created there (a MirroredStrategy: mirrored over its devices).
  // The default: as `next` makes them.
  virtual Variable create_variable(const NextVariableCreator& next, const Tensor& initial_value,
                                   const VariableOptions& options) const;

  // What a strategy of one replica per run() (the default strategy, ParameterServerTraining) does
  // for reduce and split_batch: the value itself (reduced over `axis` when given), the batch
  // itself.
  static Tensor reduce_single_replica(ReduceOp op, const PerReplica<Tensor>& value,
                                      std::optional<int> axis, const char* strategy_name);
  static PerReplica<Tensor> split_into_one(const Tensor& global_batch);

  // The contexts a subclass hands its replicas: `device` must outlive the context.
  ReplicaContext make_replica_context(int replica_id, int num_replicas, const std::string* device,
                                      int local_replica_id) const {
    return ReplicaContext(this, replica_id, num_replicas, device, local_replica_id);
  }

 private:
  friend class ReplicaContext;
  friend class StrategyScope;
  std::unique_ptr<StrategyExtended> extended_;
  std::uint64_t id_;
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
  const int r = ctx.local_replica_id();
  if constexpr (std::is_invocable_v<Fn&, const ReplicaContext&,
                                    decltype(replica_arg(args, r))...>) {
    return fn(ctx, replica_arg(args, r)...);
  } else {
    return fn(replica_arg(args, r)...);
  }
}

}  // namespace detail

template <class Fn, class... Args>
auto Strategy::run(Fn&& fn, const Args&... args) const {
  using Result = std::decay_t<decltype(detail::call_replica_fn(
      fn, std::declval<const ReplicaContext&>(), args...))>;
  if constexpr (std::is_void_v<Result>) {
    run_replicas([&](const ReplicaContext& ctx) { detail::call_replica_fn(fn, ctx, args...); });
  } else {
    std::vector<std::optional<Result>> results(devices().size());
    run_replicas([&](const ReplicaContext& ctx) {
      results[static_cast<std::size_t>(ctx.local_replica_id())].emplace(
          detail::call_replica_fn(fn, ctx, args...));
    });
    std::vector<Result> values;
    values.reserve(results.size());
    for (auto& r : results) values.push_back(std::move(*r));
    return PerReplica<Result>(std::move(values));
  }
}

}  // namespace eagle::distribute
