// eagle::Variable (SEMANTICS §8): the front-end of VarHandleOp, ReadVariableOp and the
// assignments; the kernels are kernels/variable_kernels.hpp and the backends' update kernels.
#include "eagle/variable.hpp"

#include <mutex>

#include <fmt/format.h>

#include "autodiff/tape.hpp"
#include "distribute/collective_all_reduce.hpp"
#include "distribute/strategy_runtime.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
#include "eagle/scope.hpp"
#include "format_array.hpp"
#include "ops/op_support.hpp"
#include "runtime/dispatcher.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"
#include "variables/variable_state.hpp"

namespace eagle {
namespace {

using runtime::OpCall;
using runtime::OpId;
using runtime::TensorSpec;

// Runs a variable op whose input #0 is the variable's buffer (a resource: pinned to the
// variable's device, allowed to write it in place).
void run_on_buffer(OpId op, const detail::VariableState& state, const Tensor* value) {
  const Tensor inputs[2] = {state.buffer, value ? *value : Tensor()};
  const DType dtype = state.buffer.dtype();
  runtime::execute(OpCall{op, dtype, inputs, value ? 2 : 1, nullptr, 0, runtime::no_attrs(),
                          /*is_constant=*/false, /*resource_inputs=*/1u},
                   nullptr);
}

void check_update(OpId op, const detail::VariableState& state, const Tensor& value) {
  ops::check_defined(value, op, 1);
  const runtime::TensorImpl& buffer = *runtime::impl_of(state.buffer);
  if (value.dtype() != buffer.dtype()) {
    ops::throw_invalid(
        op, fmt::format("Tensor conversion requested dtype {} for Tensor with "
                        "dtype {} (updating variable '{}:0')",
                        dtype_name(buffer.dtype()), dtype_name(value.dtype()), state.name));
  }
  if (value.shape() == buffer.shape()) return;
  if (op == OpId::kAssignVariableOp) {
    // TensorFlow's text, its missing space and stray quote space included: users search for it.
    throw InvalidArgumentError(fmt::format(
        "Cannot assign value to variable ' {}:0': Shape mismatch.The variable shape {}, and the "
        "assigned value shape {} are incompatible.",
        state.name, buffer.shape().to_tuple_string(), value.shape().to_tuple_string()));
  }
  ops::throw_invalid(op, fmt::format("Cannot update variable with shape {} using a Tensor with "
                                     "shape {}, shapes must be equal.",
                                     buffer.shape().to_string(), value.shape().to_string()));
}

std::shared_ptr<detail::VariableState> make_state(const Tensor& initial_value, std::string name,
                                                  bool trainable) {
  auto state = std::make_shared<detail::VariableState>();
  state->name = std::move(name);
  state->trainable = trainable;
  const TensorSpec spec{initial_value.shape(), initial_value.dtype()};
  state->buffer =
      runtime::execute1(OpCall{OpId::kVarHandleOp, initial_value.dtype(), nullptr, 0, &spec, 1});
  run_on_buffer(OpId::kAssignVariableOp, *state, &initial_value);
  return state;
}

// Component i of a mirrored variable in replica i's function; component 0 elsewhere.
const std::shared_ptr<detail::VariableState>& resolve_component(
    const detail::VariableState& proxy) {
  const detail::MirroredComponents& m = *proxy.mirrored;
  const distribute::detail::ReplicaThread* replica = distribute::detail::current_replica_thread();
  if (replica == nullptr) return m.components.front();
  if (replica->runtime->id() != m.strategy_id) {
    throw InvalidArgumentError(fmt::format(
        "Variable '{}:0' is mirrored by another MirroredStrategy than the one running this "
        "replica function (replica {} on {})",
        proxy.name, replica->replica_id, replica->context.device()));
  }
  return m.components[static_cast<std::size_t>(replica->replica_id)];
}

// What an assignment writes: the variable, or every component of a mirrored one outside a
// replica function. Inside one, a mirrored variable's assignment would make its components
// differ: TensorFlow's error (it would need an aggregation, which eagle's optimizers do).
std::vector<const detail::VariableState*> update_targets(
    const Variable& v, const std::shared_ptr<detail::VariableState>& handle) {
  if (!handle) throw InvalidArgumentError("Use of an undefined eagle::Variable");
  if (!handle->mirrored) return {handle.get()};
  if (const auto* replica = distribute::detail::current_replica_thread()) {
    throw InvalidArgumentError(fmt::format(
        "You must specify an aggregation method to update a MirroredVariable in Replica Context: "
        "variable '{}' is mirrored, and assigning it in replica {} alone would make its "
        "components differ. Update it outside strategy.run, or with an optimizer's "
        "apply_gradients",
        v.name(), replica->replica_id));
  }
  std::vector<const detail::VariableState*> out;
  for (const auto& c : handle->mirrored->components) out.push_back(c.get());
  return out;
}

}  // namespace

namespace detail {

Variable make_mirrored_variable(const Tensor& initial_value, VariableOptions options,
                                std::uint64_t strategy_id,
                                const std::vector<std::string>& devices) {
  auto mirrored = std::make_shared<MirroredComponents>();
  mirrored->strategy_id = strategy_id;
  mirrored->devices = devices;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    // TensorFlow's names: the first component keeps the name, the others add /replica_<i>.
    std::string name = i == 0 ? options.name : fmt::format("{}/replica_{}", options.name, i);
    auto scope = device(devices[i]);
    mirrored->components.push_back(make_state(initial_value, std::move(name), options.trainable));
  }
  auto proxy = std::make_shared<VariableState>();
  proxy->name = std::move(options.name);
  proxy->trainable = options.trainable;
  proxy->mirrored = std::move(mirrored);
  return VariableAccess::wrap(std::move(proxy));
}

}  // namespace detail

Variable::Variable(const Tensor& initial_value, VariableOptions options) {
  ops::check_defined(initial_value, OpId::kVarHandleOp);
  // Under a strategy's scope, and not in a replica function (whose threads have no scope open).
  if (const distribute::detail::StrategyRuntime* strategy =
          distribute::detail::current_scope_strategy()) {
    // A MultiWorkerMirroredStrategy's variables start as worker 0's (Note
    // [MultiWorkerMirroredStrategy over MPI]).
    const Tensor initial =
        strategy->workers() == nullptr
            ? initial_value
            : distribute::detail::broadcast_from_chief(*strategy->workers(), initial_value,
                                                       fmt::format("variable '{}'", options.name));
    state_ = detail::VariableAccess::handle(detail::make_mirrored_variable(
        initial, std::move(options), strategy->id(), strategy->devices()));
    return;
  }
  state_ = make_state(initial_value, std::move(options.name), options.trainable);
}

Variable::Variable(const TensorData& initial_value, VariableOptions options)
    : Variable(constant(initial_value), std::move(options)) {}

const std::shared_ptr<detail::VariableState>& Variable::resolved() const {
  if (!state_) throw InvalidArgumentError("Use of an undefined eagle::Variable");
  if (!state_->mirrored) return state_;
  return resolve_component(*state_);
}

bool Variable::is_mirrored() const { return state_ && state_->mirrored; }

std::vector<Variable> Variable::components() const {
  resolved();  // an undefined variable's error
  if (!state_->mirrored) return {*this};
  std::vector<Variable> out;
  for (const auto& c : state_->mirrored->components) out.push_back(Variable(c));
  return out;
}

Tensor Variable::read_value() const {
  const std::shared_ptr<detail::VariableState>& resolved_state = resolved();
  const detail::VariableState& s = *resolved_state;
  autodiff::variable_accessed(resolved_state);
  const runtime::TensorImpl& buffer = *runtime::impl_of(s.buffer);
  const TensorSpec spec{buffer.shape(), buffer.dtype()};
  Tensor value;
  std::shared_lock<std::shared_mutex> lock(s.mutex);
  runtime::execute(OpCall{OpId::kReadVariableOp, buffer.dtype(), &s.buffer, 1, &spec, 1,
                          runtime::no_attrs(), false, /*resource_inputs=*/1u},
                   &value);
  return value;
}

const Variable& Variable::assign(const Tensor& value) const {
  for (const detail::VariableState* s : update_targets(*this, state_)) {
    check_update(OpId::kAssignVariableOp, *s, value);
  }
  for (const detail::VariableState* s : update_targets(*this, state_)) {
    std::unique_lock<std::shared_mutex> lock(s->mutex);
    run_on_buffer(OpId::kAssignVariableOp, *s, &value);
  }
  return *this;
}

const Variable& Variable::assign_add(const Tensor& delta) const {
  for (const detail::VariableState* s : update_targets(*this, state_)) {
    check_update(OpId::kAssignAddVariableOp, *s, delta);
  }
  for (const detail::VariableState* s : update_targets(*this, state_)) {
    std::unique_lock<std::shared_mutex> lock(s->mutex);
    run_on_buffer(OpId::kAssignAddVariableOp, *s, &delta);
  }
  return *this;
}

const Variable& Variable::assign_sub(const Tensor& delta) const {
  for (const detail::VariableState* s : update_targets(*this, state_)) {
    check_update(OpId::kAssignSubVariableOp, *s, delta);
  }
  for (const detail::VariableState* s : update_targets(*this, state_)) {
    std::unique_lock<std::shared_mutex> lock(s->mutex);
    run_on_buffer(OpId::kAssignSubVariableOp, *s, &delta);
  }
  return *this;
}

// A mirrored variable's name is its first component's, as TensorFlow's MirroredVariable.name.
std::string Variable::name() const {
  if (!state_) throw InvalidArgumentError("Use of an undefined eagle::Variable");
  return state_->name + ":0";
}
bool Variable::trainable() const {
  if (!state_) throw InvalidArgumentError("Use of an undefined eagle::Variable");
  return state_->trainable;
}
DType Variable::dtype() const { return state().buffer.dtype(); }
const Shape& Variable::shape() const { return state().buffer.shape(); }
const std::string& Variable::device() const { return state().buffer.device(); }
std::uint64_t Variable::id() const { return state().buffer.id(); }

std::string to_string(const Variable& v) {
  if (!v.defined()) return "<eagle.Variable (undefined)>";
  if (v.is_mirrored()) {
    // TensorFlow's DistributedValues repr.
    const std::vector<Variable> components = v.components();
    std::string out = "MirroredVariable:{\n";
    for (std::size_t i = 0; i < components.size(); ++i) {
      out += fmt::format("  {}: {}{}\n", i, to_string(components[i]),
                         i + 1 < components.size() ? "," : "");
    }
    return out + "}";
  }
  const Tensor value = v.read_value();
  const std::string numpy =
      detail::format_array_repr(value.dtype(), value.shape(), detail::host_bytes(value).data());
  return fmt::format("<eagle.Variable '{}' shape={} dtype={}, numpy={}{}>", v.name(),
                     v.shape().to_tuple_string(), dtype_name(v.dtype()),
                     numpy.find('\n') != std::string::npos ? "\n" : "", numpy);
}

std::ostream& operator<<(std::ostream& os, const Variable& v) { return os << to_string(v); }

}  // namespace eagle
