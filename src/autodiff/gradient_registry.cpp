#include "autodiff/gradient_registry.hpp"

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace eagle::autodiff {

const Tensor& GradContext::input(int i) const {
  const Tensor& t = inputs_[static_cast<std::size_t>(i)].value;
  if (!t.defined()) {
    throw InternalError(
        fmt::format("The gradient of {} read input #{}, which its GradientDef "
                    "does not save (Note [Saved tensors])",
                    opdefs::op_name(op_), i));
  }
  return t;
}

const Tensor& GradContext::output(int i) const {
  const Tensor& t = outputs_[static_cast<std::size_t>(i)].value;
  if (!t.defined()) {
    throw InternalError(
        fmt::format("The gradient of {} read output #{}, which its GradientDef "
                    "does not save (Note [Saved tensors])",
                    opdefs::op_name(op_), i));
  }
  return t;
}

Tensor GradContext::grad(int i) const {
  const Tensor& g = output_grads_[static_cast<std::size_t>(i)];
  if (g.defined()) return g;
  const TensorSpec& spec = outputs_[static_cast<std::size_t>(i)].spec;
  return zeros(spec.shape, spec.dtype);
}

void GradientRegistry::add(opdefs::OpId op, GradFn fn, std::uint32_t saved_inputs,
                           std::uint32_t saved_outputs) {
  GradientDef& def = defs_[static_cast<int>(op)];
  if (def.fn != nullptr) {
    throw InternalError(fmt::format("A second gradient for {}", opdefs::op_name(op)));
  }
  if (opdefs::op_def(op).gradient != opdefs::Gradient::kDifferentiable) {
    throw InternalError(
        fmt::format("A gradient for {}, which the op table marks kNoGrad", opdefs::op_name(op)));
  }
  def = GradientDef{fn, saved_inputs, saved_outputs};
}

const GradientRegistry& gradient_registry() {
  static const GradientRegistry registry = [] {
    GradientRegistry r;
    register_math_gradients(r);
    register_reduction_gradients(r);
    register_linalg_gradients(r);
    register_array_gradients(r);
    register_index_gradients(r);
    register_nn_gradients(r);
    register_conv_gradients(r);
    return r;
  }();
  return registry;
}

}  // namespace eagle::autodiff
