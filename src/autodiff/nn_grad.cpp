// Gradients of the NN ops, TensorFlow's formulas (tensorflow/python/ops/nn_grad.py,
// math_grad.py) written with eagle's ops and the fused gradient ops (Note [NN activation
// gradients]), so every backend has them.
#include <cmath>

#include "autodiff/grad_ops.hpp"
#include "autodiff/gradient_registry.hpp"
#include "eagle/ops.hpp"
#include "eagle/ops/nn_activations.hpp"
#include "ops/op_support.hpp"

namespace eagle::autodiff {
namespace {

using Grads = std::vector<Tensor>;

// A fused gradient op of two same-shape operands.
Tensor fused(opdefs::OpId op, const Tensor& a, const Tensor& b,
             const opdefs::OpAttrs& attrs = runtime::no_attrs()) {
  const Tensor inputs[2] = {a, b};
  ops::check_same_dtype(op, inputs, 2);
  return runtime::execute1(op, a.dtype(), inputs, 2, a.shape(), a.dtype(), attrs);
}

// Relu6, LeakyRelu and their gradients: the gradient op again, and nothing for the features
// (TensorFlow's _Relu6GradGrad, _LeakyReluGradGrad).
void relu6_op_grad(const GradContext& c, Grads& g) {
  g[0] = fused(opdefs::OpId::kRelu6Grad, c.grad(), c.output());
}
void relu6_grad_grad(const GradContext& c, Grads& g) {
  if (c.needs_input_grad(0)) g[0] = fused(opdefs::OpId::kRelu6Grad, c.grad(), c.input(1));
  if (c.needs_input_grad(1)) g[1] = zeros_like(c.input(1));
}
void leaky_relu_op_grad(const GradContext& c, Grads& g) {
  g[0] = fused(opdefs::OpId::kLeakyReluGrad, c.grad(), c.input(0),
               opdefs::OpAttrs{c.attrs<opdefs::LeakyReluAttrs>()});
}
void leaky_relu_grad_grad(const GradContext& c, Grads& g) {
  if (c.needs_input_grad(0)) {
    g[0] = fused(opdefs::OpId::kLeakyReluGrad, c.grad(), c.input(1),
                 opdefs::OpAttrs{c.attrs<opdefs::LeakyReluAttrs>()});
  }
  if (c.needs_input_grad(1)) g[1] = zeros_like(c.input(1));
}
// Elu and Selu differentiate through their output; their gradients' own gradients
// (_EluGradGrad, _SeluGradGrad) take the output's negative side into account.
void elu_op_grad(const GradContext& c, Grads& g) {
  g[0] = fused(opdefs::OpId::kEluGrad, c.grad(), c.output());
}
void selu_op_grad(const GradContext& c, Grads& g) {
  g[0] = fused(opdefs::OpId::kSeluGrad, c.grad(), c.output());
}
template <opdefs::OpId kGradOp>
void elu_selu_grad_grad(const GradContext& c, Grads& g) {
  const Tensor& outputs = c.input(1);
  if (c.needs_input_grad(0)) g[0] = fused(kGradOp, c.grad(), outputs);
  if (c.needs_input_grad(1)) {
    g[1] = where(less(outputs, scalar_like(outputs, 0)), multiply(c.grad(), c.input(0)),
                 zeros_like(outputs));
  }
}
// TensorFlow 2.21 differentiates Softplus as grad * sigmoid(x).
void softplus_op_grad(const GradContext& c, Grads& g) {
  g[0] = multiply(c.grad(), sigmoid(c.input(0)));
}
void softsign_op_grad(const GradContext& c, Grads& g) {
  g[0] = fused(opdefs::OpId::kSoftsignGrad, c.grad(), c.input(0));
}
void erfc_grad(const GradContext& c, Grads& g) {
  const Tensor& x = c.input(0);
  const Tensor minus_two_over_root_pi = scalar_like(x, -2 / std::sqrt(M_PI));
  g[0] = multiply(multiply(c.grad(), minus_two_over_root_pi), exp(negative(square(x))));
}
void log_softmax_grad(const GradContext& c, Grads& g) {
  const Tensor grad = c.grad();
  g[0] = subtract(grad, multiply(exp(c.output()), reduce_sum(grad, -1, /*keepdims=*/true)));
}
void bias_add_op_grad(const GradContext& c, Grads& g) {
  const Tensor grad = c.grad();
  if (c.needs_input_grad(0)) g[0] = grad;
  if (c.needs_input_grad(1)) g[1] = bias_add_grad(grad);
}
// The bias gradient's gradient: the upstream [C] broadcast over the input's shape.
void bias_add_grad_grad(const GradContext& c, Grads& g) {
  g[0] = broadcast_to(c.grad(), c.input_shape(0));
}

// The cross entropies: expand_dims(grad_loss, -1) * backprop, plus, when the backprop output
// itself carries a gradient, TensorFlow's second-order term (grad_grad - sum(grad_grad *
// softmax)) * softmax.
Tensor cross_entropy_logits_grad(const GradContext& c) {
  Tensor grad = multiply(expand_dims(c.grad(0), -1), c.output(1));
  if (c.has_grad(1)) {
    const Tensor softmax_logits = softmax(c.input(0));
    const Tensor gg = c.grad(1);
    const Tensor inner = reduce_sum(multiply(gg, softmax_logits), -1, /*keepdims=*/true);
    grad = add(grad, multiply(subtract(gg, inner), softmax_logits));
  }
  return grad;
}
void softmax_cross_entropy_grad(const GradContext& c, Grads& g) {
  if (c.needs_input_grad(0)) g[0] = cross_entropy_logits_grad(c);
  if (c.needs_input_grad(1)) {
    g[1] = multiply(expand_dims(c.grad(0), -1), negative(nn::log_softmax(c.input(0))));
  }
}
void sparse_softmax_cross_entropy_grad(const GradContext& c, Grads& g) {
  if (c.needs_input_grad(0)) g[0] = cross_entropy_logits_grad(c);
}
void l2_loss_grad(const GradContext& c, Grads& g) { g[0] = multiply(c.input(0), c.grad()); }

// FusedBatchNormV3: FusedBatchNormGradV3 from y's gradient and the saved statistics; mean and
// variance get none (TensorFlow's _FusedBatchNormV3Grad returns None for them).
void fused_batch_norm_grad(const GradContext& c, Grads& g) {
  const Tensor& x = c.input(0);
  const Tensor dy = c.grad(0);
  const Tensor inputs[6] = {dy, x, c.input(1), c.output(3), c.output(4), c.output(5)};
  const Shape& ch = c.input_shape(1);
  const DType u = c.input_dtype(1);
  const runtime::TensorSpec specs[5] = {
      {x.shape(), x.dtype()}, {ch, u}, {ch, u}, {Shape{0}, u}, {Shape{0}, u}};
  Tensor r[5];
  runtime::execute(runtime::OpCall{opdefs::OpId::kFusedBatchNormGradV3, x.dtype(), inputs, 6, specs,
                                   5, opdefs::OpAttrs{c.attrs<opdefs::FusedBatchNormAttrs>()}},
                   r);
  g[0] = r[0];
  g[1] = r[1];
  g[2] = r[2];
}

}  // namespace

void register_nn_gradients(GradientRegistry& r) {
  r.add(opdefs::OpId::kRelu6, relu6_op_grad, kSaveNone, save(0));
  r.add(opdefs::OpId::kRelu6Grad, relu6_grad_grad, save(1));
  r.add(opdefs::OpId::kLeakyRelu, leaky_relu_op_grad, save(0));
  r.add(opdefs::OpId::kLeakyReluGrad, leaky_relu_grad_grad, save(1));
  r.add(opdefs::OpId::kElu, elu_op_grad, kSaveNone, save(0));
  r.add(opdefs::OpId::kEluGrad, elu_selu_grad_grad<opdefs::OpId::kEluGrad>, save(0, 1));
  r.add(opdefs::OpId::kSelu, selu_op_grad, kSaveNone, save(0));
  r.add(opdefs::OpId::kSeluGrad, elu_selu_grad_grad<opdefs::OpId::kSeluGrad>, save(0, 1));
  r.add(opdefs::OpId::kSoftplus, softplus_op_grad, save(0));
  r.add(opdefs::OpId::kSoftsign, softsign_op_grad, save(0));
  r.add(opdefs::OpId::kErfc, erfc_grad, save(0));
  r.add(opdefs::OpId::kLogSoftmax, log_softmax_grad, kSaveNone, save(0));
  r.add(opdefs::OpId::kBiasAdd, bias_add_op_grad);
  r.add(opdefs::OpId::kBiasAddGrad, bias_add_grad_grad);
  r.add(opdefs::OpId::kSoftmaxCrossEntropyWithLogits, softmax_cross_entropy_grad, save(0), save(1));
  r.add(opdefs::OpId::kSparseSoftmaxCrossEntropyWithLogits, sparse_softmax_cross_entropy_grad,
        save(0), save(1));
  r.add(opdefs::OpId::kL2Loss, l2_loss_grad, save(0));
  r.add(opdefs::OpId::kFusedBatchNormV3, fused_batch_norm_grad, save(0, 1), save(3, 4) | save(5));
}

}  // namespace eagle::autodiff
