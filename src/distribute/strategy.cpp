// The Strategy interface's shared half: the thread's strategy and replica context, the default
// strategy, StrategyExtended's default implementations and the distributed dataset.
#include "eagle/distribute/strategy.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/format.hpp"
#include "eagle/ops.hpp"
#include "eagle/scope.hpp"
#include "variables/variable_state.hpp"

namespace eagle::distribute {

// Note [One distribution interface]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every strategy is a Strategy (TensorFlow's distribute_lib.py): run, reduce, scope,
// num_replicas_in_sync, the dataset split, and extended() for what the layers above need of it
// (update a variable, reduce a batch of values, colocate, ask whether a variable is the
// strategy's). Code above distribute/ (the optimizers, Keras's trainer and layers, a custom loop)
// asks get_strategy() and get_replica_context() and talks to those interfaces alone, never to a
// strategy's threads or rendezvous: so adding a strategy is a subclass in distribute/, and the
// layers above do not change.
//
// Two thread-locals say where a thread is:
//   - the innermost open scope()'s strategy (StrategyScope), nullptr when none: variables created
//     there belong to it;
//   - the replica context, set by a strategy's run() around each replica function
//     (detail::ReplicaContextGuard), nullptr elsewhere.
// As in TensorFlow, a thread outside every scope and replica function is in the default
// strategy's replica context (one replica, id 0); inside a scope and outside run() it is in the
// cross-replica context, where get_replica_context() is nullptr. The default strategy's run()
// calls fn on the calling thread, reduce() of its one value is that value, its all_reduce is the
// identity, and extended().update(var, fn) is fn(var): code written for a strategy runs unchanged
// without one, through the same path.

namespace {

thread_local const Strategy* t_scope_strategy = nullptr;

// The live strategies by id (find_strategy).
std::atomic<std::uint64_t> g_next_strategy_id{1};
std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::map<std::uint64_t, const Strategy*>& registry() {
  static std::map<std::uint64_t, const Strategy*> strategies;
  return strategies;
}
thread_local const ReplicaContext* t_replica_context = nullptr;

const char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";

// TensorFlow's _DefaultDistributionStrategy: one replica, on the calling thread, under the
// caller's own device scopes.
class DefaultStrategy final : public Strategy {
 public:
  DefaultStrategy() : devices_{kCpu0}, context_(make_replica_context(0, 1, &no_device_, 0)) {}

  int num_replicas_in_sync() const override { return 1; }
  const std::vector<std::string>& devices() const override { return devices_; }

  Tensor reduce(ReduceOp op, const PerReplica<Tensor>& value,
                std::optional<int> axis) const override {
    return reduce_single_replica(op, value, axis, "The default strategy");
  }

  PerReplica<Tensor> split_batch(const Tensor& global_batch) const override {
    return split_into_one(global_batch);
  }

  const ReplicaContext& context() const { return context_; }

 protected:
  void run_replicas(const std::function<void(const ReplicaContext&)>& body) const override {
    detail::ReplicaContextGuard guard(context_);
    body(context_);
  }
  std::vector<Tensor> replica_all_reduce(const ReplicaContext&, ReduceOp,
                                         const std::vector<Tensor>& values,
                                         const std::vector<std::string>&) const override {
    return values;  // the sum and the mean over one replica
  }
  void replica_merge_call(const ReplicaContext&, const std::function<void()>& fn) const override {
    fn();
  }

 private:
  const std::string no_device_;
  const std::vector<std::string> devices_;
  const ReplicaContext context_;
};

const DefaultStrategy& default_strategy() {
  static const DefaultStrategy strategy;
  return strategy;
}

}  // namespace

namespace detail {

ReplicaContextGuard::ReplicaContextGuard(const ReplicaContext& ctx) : previous_(t_replica_context) {
  t_replica_context = &ctx;
}

ReplicaContextGuard::~ReplicaContextGuard() { t_replica_context = previous_; }

}  // namespace detail

const Strategy& get_strategy() {
  if (t_replica_context != nullptr) return t_replica_context->strategy();
  if (t_scope_strategy != nullptr) return *t_scope_strategy;
  return default_strategy();
}

bool has_strategy() { return &get_strategy() != &default_strategy(); }

bool in_cross_replica_context() {
  return t_replica_context == nullptr && t_scope_strategy != nullptr;
}

const ReplicaContext* get_replica_context() {
  if (t_replica_context != nullptr) return t_replica_context;
  if (t_scope_strategy != nullptr) return nullptr;  // the cross-replica context
  return &default_strategy().context();
}

StrategyScope::StrategyScope(const Strategy& strategy) : previous_(t_scope_strategy) {
  // The default strategy's scope opens nothing (TensorFlow's default scope is a no-op).
  if (&strategy == &default_strategy()) return;
  creator_.emplace([&strategy](const NextVariableCreator& next, const Tensor& initial_value,
                               const VariableOptions& options) {
    return strategy.create_variable(next, initial_value, options);
  });
  t_scope_strategy = &strategy;
}

StrategyScope::~StrategyScope() { t_scope_strategy = previous_; }

std::vector<Tensor> ReplicaContext::all_reduce(ReduceOp op,
                                               const std::vector<Tensor>& values) const {
  std::vector<std::string> names;
  names.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) names.push_back(fmt::format("value {}", i));
  return strategy_->replica_all_reduce(*this, op, values, names);
}

std::vector<Tensor> ReplicaContext::all_reduce(ReduceOp op, const std::vector<Tensor>& values,
                                               const std::vector<std::string>& names) const {
  if (names.size() != values.size()) {
    throw InvalidArgumentError(fmt::format("ReplicaContext::all_reduce: {} names for {} values",
                                           names.size(), values.size()));
  }
  return strategy_->replica_all_reduce(*this, op, values, names);
}

void ReplicaContext::merge_call(const std::function<void()>& fn) const {
  strategy_->replica_merge_call(*this, fn);
}

Tensor ReplicaContext::all_reduce(ReduceOp op, const Tensor& value) const {
  return all_reduce(op, std::vector<Tensor>{value})[0];
}

Strategy::Strategy(std::unique_ptr<StrategyExtended> extended)
    : extended_(extended ? std::move(extended) : std::make_unique<StrategyExtended>(*this)),
      id_(g_next_strategy_id.fetch_add(1)) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[id_] = this;
}

Strategy::~Strategy() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().erase(id_);
}

const Strategy* find_strategy(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  const auto it = registry().find(id);
  return it == registry().end() ? nullptr : it->second;
}

std::uint64_t strategy_id_of(const Variable& var) {
  if (!var.defined()) throw InvalidArgumentError("Use of an undefined eagle::Variable");
  const auto& handle = eagle::detail::VariableAccess::handle(var);
  return handle->distributed ? handle->distributed->owner() : 0;
}

Tensor Strategy::gather(const PerReplica<Tensor>& value, int axis) const {
  if (value.size() == 0) throw InvalidArgumentError("gather: the value has no replicas");
  for (std::size_t i = 0; i < value.size(); ++i) {
    const Tensor& v = value[i];
    if (!v.defined()) {
      throw InvalidArgumentError(fmt::format("gather: the value of replica {} is undefined", i));
    }
    const int rank = v.shape().rank();
    if (rank == 0 || axis < -rank || axis >= rank) {
      throw InvalidArgumentError(fmt::format(
          "gather: axis {} is out of range for the value of replica {}, of shape {} (a scalar "
          "cannot be gathered)",
          axis, i, v.shape().to_tuple_string()));
    }
  }
  const std::string scope_spec = current_device_spec();
  auto scope = device(scope_spec.empty() ? std::string(kCpu0) : scope_spec);
  std::vector<Tensor> parts;
  parts.reserve(value.size());
  for (const Tensor& v : value) parts.push_back(identity(v));
  return parts.size() == 1 ? parts.front() : concat(parts, axis);
}

Tensor Strategy::reduce_single_replica(ReduceOp op, const PerReplica<Tensor>& value,
                                       std::optional<int> axis, const char* strategy_name) {
  if (value.size() != 1 || !value[0].defined()) {
    throw InvalidArgumentError(
        fmt::format("{}'s reduce takes one defined per-replica value; got {}", strategy_name,
                    value.size() == 1 ? "an undefined one" : fmt::format("{}", value.size())));
  }
  if (!axis) return value[0];
  return op == ReduceOp::kSum ? reduce_sum(value[0], Axes(*axis))
                              : reduce_mean(value[0], Axes(*axis));
}

PerReplica<Tensor> Strategy::split_into_one(const Tensor& global_batch) {
  if (!global_batch.defined()) throw InvalidArgumentError("split_batch: the batch is undefined");
  if (global_batch.shape().rank() == 0) {
    throw InvalidArgumentError(
        "split_batch: a batch needs a first (batch) dimension; got a scalar");
  }
  return PerReplica<Tensor>({global_batch});
}

Variable Strategy::create_variable(const NextVariableCreator& next, const Tensor& initial_value,
                                   const VariableOptions& options) const {
  return next(initial_value, options);
}

void Strategy::set_extended(std::unique_ptr<StrategyExtended> extended) {
  extended_ = std::move(extended);
}

PerReplica<data::Element> Strategy::split_batch(const data::Element& global_batch) const {
  std::vector<data::Element> parts(devices().size());
  for (const Tensor& component : global_batch) {
    const PerReplica<Tensor> split = split_batch(component);
    for (std::size_t r = 0; r < parts.size(); ++r) parts[r].push_back(split[r]);
  }
  return PerReplica<data::Element>(std::move(parts));
}

void StrategyExtended::update(const Variable& var,
                              const std::function<void(const Variable&)>& fn) const {
  if (!var.defined()) throw InvalidArgumentError("Use of an undefined eagle::Variable");
  if (!var.is_mirrored()) {
    fn(var);
    return;
  }
  const std::vector<Variable> components = var.components();
  const ReplicaContext* ctx = t_replica_context;
  if (ctx == nullptr) {
    // The cross-replica context: the same update on every component.
    for (const Variable& c : components) {
      auto scope = device(c.device());
      fn(c);
    }
    return;
  }
  if (!variable_created_in_scope(var)) {
    throw InvalidArgumentError(fmt::format(
        "extended().update in replica {} on {}: variable '{}' was not created under this "
        "strategy's scope(), so its replicas cannot update it in sync",
        ctx->replica_id_in_sync_group(), ctx->device(), var.name()));
  }
  const Variable& own = components.at(static_cast<std::size_t>(ctx->local_replica_id()));
  auto scope = device(own.device());
  fn(own);
}

std::vector<Tensor> StrategyExtended::batch_reduce_to(ReduceOp op,
                                                      const std::vector<PerReplica<Tensor>>& values,
                                                      const std::string& destination) const {
  std::vector<Tensor> out;
  out.reserve(values.size());
  for (const PerReplica<Tensor>& value : values) {
    if (destination.empty()) {
      out.push_back(strategy_->reduce(op, value));
    } else {
      auto scope = device(destination);
      out.push_back(strategy_->reduce(op, value));
    }
  }
  return out;
}

DeviceScope StrategyExtended::colocate_vars_with(const Variable& var) const {
  if (!var.defined()) throw InvalidArgumentError("Use of an undefined eagle::Variable");
  // A mirrored variable's first component: the strategy mirrors what is created from there.
  return DeviceScope(var.is_mirrored() ? var.components().front().device() : var.device());
}

bool StrategyExtended::variable_created_in_scope(const Variable& var) const {
  // The default strategy's: a variable no strategy distributes.
  return var.defined() && !var.is_mirrored();
}

const std::vector<std::string>& StrategyExtended::worker_devices() const {
  return strategy_->devices();
}

DistributedDataset::Iterator DistributedDataset::begin() const {
  return Iterator(*strategy_, dataset_.begin());
}

DistributedDataset::Iterator::Iterator(const Strategy& strategy, data::Dataset::Iterator inner)
    : strategy_(&strategy), inner_(std::move(inner)) {
  split_current();
}

DistributedDataset::Iterator& DistributedDataset::Iterator::operator++() {
  ++inner_;
  split_current();
  return *this;
}

void DistributedDataset::Iterator::split_current() {
  if (inner_ != data::Dataset::Sentinel{}) current_ = strategy_->split_batch(*inner_);
}

std::string to_string(const PerReplica<Tensor>& value) {
  std::string out = "PerReplica:{\n";
  for (std::size_t i = 0; i < value.size(); ++i) {
    out += fmt::format("  {}: {}{}\n", i, value[i].defined() ? eagle::to_string(value[i]) : "None",
                       i + 1 < value.size() ? "," : "");
  }
  return out + "}";
}

std::ostream& operator<<(std::ostream& os, const PerReplica<Tensor>& value) {
  return os << to_string(value);
}

}  // namespace eagle::distribute
