// eagle::Variable (docs/guide.md, "Training: variables and gradient tapes"): the front-end of
// VarHandleOp, ReadVariableOp and the assignments; the kernels are kernels/variable_kernels.hpp
// and the backends' update kernels.
#include "eagle/variable.hpp"

#include <mutex>

#include <fmt/format.h>

#include "autodiff/tape.hpp"
#include "core/format_array.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
#include "eagle/scope.hpp"
#include "ops/op_support.hpp"
#include "runtime/dispatcher.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"
#include "variables/variable_creator_stack.hpp"
#include "variables/variable_state.hpp"

namespace eagle {
namespace {

using runtime::OpCall;
using runtime::TensorSpec;

// Runs a variable op whose input #0 is the variable's buffer (a resource: pinned to the
// variable's device, allowed to write it in place).
void run_on_buffer(opdefs::OpId op, const detail::VariableState& state, const Tensor* value) {
  const Tensor inputs[2] = {state.buffer, value ? *value : Tensor()};
  const DType dtype = state.buffer.dtype();
  runtime::execute(OpCall{op, dtype, inputs, value ? 2 : 1, nullptr, 0, runtime::no_attrs(),
                          /*is_constant=*/false, /*resource_inputs=*/1u},
                   nullptr);
}

void check_update(opdefs::OpId op, const detail::VariableState& state, const Tensor& value) {
  ops::check_defined(value, op, 1);
  const runtime::TensorImpl& buffer = *runtime::impl_of(state.buffer);
  if (value.dtype() != buffer.dtype()) {
    ops::throw_invalid(
        op, fmt::format("Tensor conversion requested dtype {} for Tensor with "
                        "dtype {} (updating variable '{}:0')",
                        dtype_name(buffer.dtype()), dtype_name(value.dtype()), state.name));
  }
  if (value.shape() == buffer.shape()) return;
  if (op == opdefs::OpId::kAssignVariableOp) {
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

std::shared_ptr<detail::VariableState> make_state(const Tensor& initial_value,
                                                  const VariableOptions& options) {
  auto state = std::make_shared<detail::VariableState>();
  state->name = options.name;
  state->trainable = options.trainable;
  state->synchronization = options.synchronization;
  state->aggregation = options.aggregation;
  const TensorSpec spec{initial_value.shape(), initial_value.dtype()};
  state->buffer = runtime::execute1(
      OpCall{opdefs::OpId::kVarHandleOp, initial_value.dtype(), nullptr, 0, &spec, 1});
  run_on_buffer(opdefs::OpId::kAssignVariableOp, *state, &initial_value);
  return state;
}

const std::shared_ptr<detail::VariableState>& checked_handle(
    const std::shared_ptr<detail::VariableState>& handle) {
  if (!handle) throw InvalidArgumentError("Use of an undefined eagle::Variable");
  return handle;
}

// An assignment through the handle: checked against the calling thread's component first, then
// written where the policy says (every component, or this replica's with the replicas' values
// combined), each target checked before any is written: a failed update changes nothing.
void assign_through(const std::shared_ptr<detail::VariableState>& handle, opdefs::OpId op,
                    const Tensor& value) {
  checked_handle(handle);
  if (!handle->distributed) {
    check_update(op, *handle, value);
    std::unique_lock<std::shared_mutex> lock(handle->mutex);
    run_on_buffer(op, *handle, &value);
    return;
  }
  check_update(op, *handle->distributed->resolve(*handle), value);
  const auto targets = handle->distributed->assignment(*handle, value, opdefs::op_name(op).data());
  for (const auto& [state, target_value] : targets) check_update(op, *state, target_value);
  for (const auto& [state, target_value] : targets) {
    std::unique_lock<std::shared_mutex> lock(state->mutex);
    run_on_buffer(op, *state, &target_value);
  }
}

}  // namespace

namespace detail {

Variable make_plain_variable(const Tensor& initial_value, const VariableOptions& options) {
  ops::check_defined(initial_value, opdefs::OpId::kVarHandleOp);
  return VariableAccess::wrap(make_state(initial_value, options));
}

Variable make_distributed_variable(const VariableOptions& options,
                                   std::shared_ptr<const DistributedVariablePolicy> policy) {
  auto proxy = std::make_shared<VariableState>();
  proxy->name = options.name;
  proxy->trainable = options.trainable;
  proxy->synchronization = options.synchronization;
  proxy->aggregation = options.aggregation;
  proxy->distributed = std::move(policy);
  return VariableAccess::wrap(std::move(proxy));
}

Variable make_variable_like(const Variable& reference, const Tensor& initial_value,
                            const VariableOptions& options) {
  const auto& handle = checked_handle(VariableAccess::handle(reference));
  if (handle->distributed) return handle->distributed->create_like(initial_value, options);
  auto scope = device(reference.device());
  return make_plain_variable(initial_value, options);
}

std::uint64_t primary_id(const Variable& v) {
  const auto& handle = checked_handle(VariableAccess::handle(v));
  if (handle->distributed) return handle->distributed->components().front()->buffer.id();
  return handle->buffer.id();
}

}  // namespace detail

Variable::Variable(const Tensor& initial_value, VariableOptions options) {
  ops::check_defined(initial_value, opdefs::OpId::kVarHandleOp);
  if (detail::has_variable_creators()) {
    state_ = detail::VariableAccess::handle(detail::create_through_creators(
        initial_value, options, [](const Tensor& init, const VariableOptions& o) {
          return detail::make_plain_variable(init, o);
        }));
    return;
  }
  state_ = make_state(initial_value, options);
}

Variable::Variable(const TensorData& initial_value, VariableOptions options)
    : Variable(constant(initial_value), std::move(options)) {}

const std::shared_ptr<detail::VariableState>& Variable::resolved() const {
  if (!state_) throw InvalidArgumentError("Use of an undefined eagle::Variable");
  if (!state_->distributed) return state_;
  return state_->distributed->resolve(*state_);
}

bool Variable::is_mirrored() const { return state_ && state_->distributed; }

VariableAggregation Variable::aggregation() const { return checked_handle(state_)->aggregation; }

VariableSynchronization Variable::synchronization() const {
  return checked_handle(state_)->synchronization;
}

std::vector<Variable> Variable::components() const {
  resolved();  // an undefined variable's error
  if (!state_->distributed) return {*this};
  std::vector<Variable> out;
  for (const auto& c : state_->distributed->components()) out.push_back(Variable(c));
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
  runtime::execute(OpCall{opdefs::OpId::kReadVariableOp, buffer.dtype(), &s.buffer, 1, &spec, 1,
                          runtime::no_attrs(), false, /*resource_inputs=*/1u},
                   &value);
  return value;
}

const Variable& Variable::assign(const Tensor& value) const {
  assign_through(state_, opdefs::OpId::kAssignVariableOp, value);
  return *this;
}

const Variable& Variable::assign_add(const Tensor& delta) const {
  assign_through(state_, opdefs::OpId::kAssignAddVariableOp, delta);
  return *this;
}

const Variable& Variable::assign_sub(const Tensor& delta) const {
  assign_through(state_, opdefs::OpId::kAssignSubVariableOp, delta);
  return *this;
}

// A distributed variable's name is its first component's, as TensorFlow's MirroredVariable.name.
std::string Variable::name() const { return checked_handle(state_)->name + ":0"; }
bool Variable::trainable() const { return checked_handle(state_)->trainable; }
DType Variable::dtype() const { return state().buffer.dtype(); }
const Shape& Variable::shape() const { return state().buffer.shape(); }
const std::string& Variable::device() const { return state().buffer.device(); }
std::uint64_t Variable::id() const { return state().buffer.id(); }

std::string to_string(const Variable& v) {
  if (!v.defined()) return "<eagle.Variable (undefined)>";
  if (v.is_mirrored()) {
    // TensorFlow's DistributedValues repr.
    const std::vector<Variable> components = v.components();
    std::string out = std::string(detail::VariableAccess::handle(v)->distributed->kind()) + ":{\n";
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
