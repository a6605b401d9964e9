// MirroredVariable (Note [Distributed variables] in src/variables/variable_state.hpp) and the
// MirroredStrategy's variable creator.
#include "distribute/mirrored_variable.hpp"

#include <fmt/format.h>

#include "distribute/collective_all_reduce.hpp"
#include "distribute/strategy_runtime.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
#include "eagle/scope.hpp"

namespace eagle::distribute::detail {
namespace {

using eagle::detail::VariableAccess;
using eagle::detail::VariableState;

// Component i of a variable over `devices`, each made by `make` under a scope of its device, with
// TensorFlow's names: the first keeps the name, the others add /replica_<i>.
std::vector<std::shared_ptr<VariableState>> make_components(const std::vector<std::string>& devices,
                                                            const Tensor& initial_value,
                                                            const VariableOptions& options,
                                                            const NextVariableCreator& make) {
  std::vector<std::shared_ptr<VariableState>> components;
  components.reserve(devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    VariableOptions component = options;
    if (i > 0) component.name = fmt::format("{}/replica_{}", options.name, i);
    auto scope = device(devices[i]);
    const Variable v = make(initial_value, component);
    const std::shared_ptr<VariableState>& state = VariableAccess::handle(v);
    if (state->distributed) {
      throw InvalidArgumentError(
          fmt::format("Variable '{}': an outer variable creator made a component distributed; a "
                      "MirroredStrategy's components must be plain variables",
                      options.name));
    }
    components.push_back(state);
  }
  return components;
}

Variable wrap(std::uint64_t strategy_id, const std::vector<std::string>& devices,
              const Tensor& initial_value, const VariableOptions& options,
              const NextVariableCreator& make) {
  auto policy = std::make_shared<MirroredVariable>(
      strategy_id, devices, make_components(devices, initial_value, options, make));
  return eagle::detail::make_distributed_variable(options, std::move(policy));
}

}  // namespace

const std::shared_ptr<VariableState>& MirroredVariable::resolve(const VariableState& proxy) const {
  const ReplicaThread* replica = current_replica_thread();
  if (replica == nullptr) return components_.front();
  if (replica->runtime->id() != strategy_id_) {
    throw InvalidArgumentError(fmt::format(
        "Variable '{}:0' is mirrored by another MirroredStrategy than the one running this "
        "replica function (replica {} on {})",
        proxy.name, replica->replica_id, replica->context.device()));
  }
  return components_[static_cast<std::size_t>(replica->replica_id)];
}

std::vector<std::pair<const VariableState*, Tensor>> MirroredVariable::assignment(
    const VariableState& proxy, const Tensor& value, const char* op) const {
  std::vector<std::pair<const VariableState*, Tensor>> out;
  const ReplicaThread* replica = current_replica_thread();
  if (replica == nullptr) {
    // The cross-replica context: the same value to every component.
    out.reserve(components_.size());
    for (const auto& c : components_) out.emplace_back(c.get(), value);
    return out;
  }
  const VariableState* own = resolve(proxy).get();
  const ReplicaContext& ctx = replica->context;
  const std::vector<std::string> name = {proxy.name + ":0"};
  switch (proxy.aggregation) {
    case VariableAggregation::kNone:
      throw InvalidArgumentError(fmt::format(
          "You must specify an aggregation method to update a MirroredVariable in Replica "
          "Context: variable '{}:0' is mirrored, and {} in replica {} alone would make its "
          "components differ. Create it with an aggregation (VariableOptions::aggregation), "
          "update it outside strategy.run, or with an optimizer's apply_gradients",
          proxy.name, op, replica->replica_id));
    case VariableAggregation::kSum:
      out.emplace_back(own, ctx.all_reduce(ReduceOp::kSum, {value}, name)[0]);
      break;
    case VariableAggregation::kMean:
      out.emplace_back(own, ctx.all_reduce(ReduceOp::kMean, {value}, name)[0]);
      break;
    case VariableAggregation::kOnlyFirstReplica: {
      // Replica 0's value on every replica: a sum to which the others add zeros.
      const Tensor contribution = ctx.replica_id_in_sync_group() == 0 ? value : zeros_like(value);
      out.emplace_back(own, ctx.all_reduce(ReduceOp::kSum, {contribution}, name)[0]);
      break;
    }
  }
  return out;
}

Variable MirroredVariable::create_like(const Tensor& initial_value,
                                       const VariableOptions& options) const {
  return wrap(strategy_id_, devices_, initial_value, options,
              [](const Tensor& init, const VariableOptions& o) {
                return eagle::detail::make_plain_variable(init, o);
              });
}

Variable create_mirrored_variable(const StrategyRuntime& runtime, const NextVariableCreator& next,
                                  const Tensor& initial_value, const VariableOptions& options) {
  const auto create = [&runtime, &next](const Tensor& initial, const VariableOptions& o) {
    // A MultiWorkerMirroredStrategy's variables start as worker 0's (Note
    // [MultiWorkerMirroredStrategy over MPI]).
    const Tensor start = runtime.workers() == nullptr
                             ? initial
                             : broadcast_from_chief(*runtime.workers(), initial,
                                                    fmt::format("variable '{}'", o.name));
    return wrap(runtime.id(), runtime.devices(), start, o, next);
  };
  ReplicaThread* replica = current_replica_thread();
  if (replica == nullptr) return create(initial_value, options);
  if (replica->runtime != &runtime) {
    throw InvalidArgumentError(fmt::format(
        "Variable '{}' created in a replica function of another MirroredStrategy than the one "
        "whose scope is open",
        options.name));
  }
  return replica->runtime->create_in_replicas(*replica, initial_value, options, create);
}

}  // namespace eagle::distribute::detail
