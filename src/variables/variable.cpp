// eagle::Variable (SEMANTICS §8): the front-end of VarHandleOp, ReadVariableOp and the
// assignments; the kernels are kernels/variable_kernels.hpp and the backends' update kernels.
#include "eagle/variable.hpp"

#include <mutex>

#include <fmt/format.h>

#include "autodiff/tape.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
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

}  // namespace

Variable::Variable(const Tensor& initial_value, VariableOptions options) {
  ops::check_defined(initial_value, OpId::kVarHandleOp);
  auto state = std::make_shared<detail::VariableState>();
  state->name = std::move(options.name);
  state->trainable = options.trainable;
  const TensorSpec spec{initial_value.shape(), initial_value.dtype()};
  state->buffer =
      runtime::execute1(OpCall{OpId::kVarHandleOp, initial_value.dtype(), nullptr, 0, &spec, 1});
  run_on_buffer(OpId::kAssignVariableOp, *state, &initial_value);
  state_ = std::move(state);
}

Variable::Variable(const TensorData& initial_value, VariableOptions options)
    : Variable(constant(initial_value), std::move(options)) {}

const detail::VariableState& Variable::state() const {
  if (!state_) throw InvalidArgumentError("Use of an undefined eagle::Variable");
  return *state_;
}

Tensor Variable::read_value() const {
  const detail::VariableState& s = state();
  autodiff::variable_accessed(state_);
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
  const detail::VariableState& s = state();
  check_update(OpId::kAssignVariableOp, s, value);
  std::unique_lock<std::shared_mutex> lock(s.mutex);
  run_on_buffer(OpId::kAssignVariableOp, s, &value);
  return *this;
}

const Variable& Variable::assign_add(const Tensor& delta) const {
  const detail::VariableState& s = state();
  check_update(OpId::kAssignAddVariableOp, s, delta);
  std::unique_lock<std::shared_mutex> lock(s.mutex);
  run_on_buffer(OpId::kAssignAddVariableOp, s, &delta);
  return *this;
}

const Variable& Variable::assign_sub(const Tensor& delta) const {
  const detail::VariableState& s = state();
  check_update(OpId::kAssignSubVariableOp, s, delta);
  std::unique_lock<std::shared_mutex> lock(s.mutex);
  run_on_buffer(OpId::kAssignSubVariableOp, s, &delta);
  return *this;
}

std::string Variable::name() const { return state().name + ":0"; }
bool Variable::trainable() const { return state().trainable; }
DType Variable::dtype() const { return state().buffer.dtype(); }
const Shape& Variable::shape() const { return state().buffer.shape(); }
const std::string& Variable::device() const { return state().buffer.device(); }
std::uint64_t Variable::id() const { return state().buffer.id(); }

std::string to_string(const Variable& v) {
  if (!v.defined()) return "<eagle.Variable (undefined)>";
  const Tensor value = v.read_value();
  const std::string numpy =
      detail::format_array_repr(value.dtype(), value.shape(), detail::host_bytes(value).data());
  return fmt::format("<eagle.Variable '{}' shape={} dtype={}, numpy={}{}>", v.name(),
                     v.shape().to_tuple_string(), dtype_name(v.dtype()),
                     numpy.find('\n') != std::string::npos ? "\n" : "", numpy);
}

std::ostream& operator<<(std::ostream& os, const Variable& v) { return os << to_string(v); }

}  // namespace eagle
