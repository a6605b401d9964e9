// Gradients of the elementwise ops, TensorFlow's formulas (tensorflow/python/ops/math_grad.py,
// nn_grad.py) written with eagle's ops, so every backend has them.
#include <cmath>

#include "autodiff/grad_ops.hpp"
#include "autodiff/gradient_registry.hpp"
#include "eagle/ops.hpp"

namespace eagle::autodiff {
namespace {

using Grads = std::vector<Tensor>;

// Binary ops broadcast: each input's gradient is summed back to the input's shape.
void add_grad(const GradContext& c, Grads& g) {
  if (c.needs_input_grad(0)) g[0] = sum_to(c.grad(), c.input_shape(0));
  if (c.needs_input_grad(1)) g[1] = sum_to(c.grad(), c.input_shape(1));
}
void sub_grad(const GradContext& c, Grads& g) {
  if (c.needs_input_grad(0)) g[0] = sum_to(c.grad(), c.input_shape(0));
  if (c.needs_input_grad(1)) g[1] = sum_to(negative(c.grad()), c.input_shape(1));
}
void mul_grad(const GradContext& c, Grads& g) {
  if (c.needs_input_grad(0)) g[0] = sum_to(multiply(c.grad(), c.input(1)), c.input_shape(0));
  if (c.needs_input_grad(1)) g[1] = sum_to(multiply(c.input(0), c.grad()), c.input_shape(1));
}
void real_div_grad(const GradContext& c, Grads& g) {
  const Tensor& x = c.input(0);
  const Tensor& y = c.input(1);
  if (c.needs_input_grad(0)) g[0] = sum_to(divide(c.grad(), y), c.input_shape(0));
  if (c.needs_input_grad(1)) {
    g[1] = sum_to(multiply(c.grad(), divide(divide(negative(x), y), y)), c.input_shape(1));
  }
}
// Ties go to x: TensorFlow's _MaximumMinimumGrad with greater_equal / less_equal.
template <bool kMaximum>
void max_min_grad(const GradContext& c, Grads& g) {
  const Tensor& x = c.input(0);
  const Tensor& y = c.input(1);
  const Tensor x_wins = kMaximum ? greater_equal(x, y) : less_equal(x, y);
  const Tensor grad = c.grad();
  const Tensor zero = scalar_like(grad, 0);
  if (c.needs_input_grad(0)) g[0] = sum_to(where(x_wins, grad, zero), c.input_shape(0));
  if (c.needs_input_grad(1))
    g[1] = sum_to(where(logical_not(x_wins), grad, zero), c.input_shape(1));
}
void pow_grad(const GradContext& c, Grads& g) {
  const Tensor& x = c.input(0);
  const Tensor& y = c.input(1);
  const Tensor& z = c.output(0);
  const Tensor grad = c.grad();
  if (c.needs_input_grad(0)) {
    g[0] = sum_to(multiply(multiply(grad, y), pow(x, subtract(y, scalar_like(y, 1)))),
                  c.input_shape(0));
  }
  if (c.needs_input_grad(1)) {
    // log(x) where x > 0, else 0 (TensorFlow's choice: the real gradient is undefined there).
    const Tensor positive = greater(x, scalar_like(x, 0));
    const Tensor safe_x = where(positive, x, scalar_like(x, 1));
    const Tensor log_x = where(positive, log(safe_x), scalar_like(x, 0));
    g[1] = sum_to(multiply(multiply(grad, z), log_x), c.input_shape(1));
  }
}
void floor_mod_grad(const GradContext& c, Grads& g) {
  if (c.needs_input_grad(0)) g[0] = sum_to(c.grad(), c.input_shape(0));
  if (c.needs_input_grad(1)) {
    const Tensor q = floordiv(c.input(0), c.input(1));
    g[1] = sum_to(multiply(c.grad(), negative(q)), c.input_shape(1));
  }
}
void squared_difference_grad(const GradContext& c, Grads& g) {
  const Tensor grad = c.grad();
  const Tensor x_grad =
      multiply(multiply(scalar_like(grad, 2), grad), subtract(c.input(0), c.input(1)));
  if (c.needs_input_grad(0)) g[0] = sum_to(x_grad, c.input_shape(0));
  if (c.needs_input_grad(1)) g[1] = sum_to(negative(x_grad), c.input_shape(1));
}

// Unary ops.
void neg_grad(const GradContext& c, Grads& g) { g[0] = negative(c.grad()); }
void abs_grad(const GradContext& c, Grads& g) { g[0] = multiply(c.grad(), sign(c.input(0))); }
void exp_grad(const GradContext& c, Grads& g) { g[0] = multiply(c.grad(), c.output()); }
void log_grad(const GradContext& c, Grads& g) { g[0] = multiply(c.grad(), reciprocal(c.input(0))); }
void sqrt_op_grad(const GradContext& c, Grads& g) { g[0] = sqrt_grad(c.output(), c.grad()); }
void square_grad(const GradContext& c, Grads& g) {
  g[0] = multiply(c.grad(), multiply(c.input(0), scalar_like(c.grad(), 2)));
}
void relu_op_grad(const GradContext& c, Grads& g) { g[0] = relu_grad(c.grad(), c.output()); }
void sigmoid_op_grad(const GradContext& c, Grads& g) { g[0] = sigmoid_grad(c.output(), c.grad()); }
void tanh_op_grad(const GradContext& c, Grads& g) { g[0] = tanh_grad(c.output(), c.grad()); }
void sign_grad(const GradContext& c, Grads& g) { g[0] = zeros_like(c.grad()); }
void rsqrt_op_grad(const GradContext& c, Grads& g) { g[0] = rsqrt_grad(c.output(), c.grad()); }
void reciprocal_op_grad(const GradContext& c, Grads& g) {
  g[0] = reciprocal_grad(c.output(), c.grad());
}
void log1p_grad(const GradContext& c, Grads& g) {
  const Tensor& x = c.input(0);
  g[0] = multiply(c.grad(), reciprocal(add(scalar_like(x, 1), x)));
}
void erf_grad(const GradContext& c, Grads& g) {
  const Tensor& x = c.input(0);
  const Tensor two_over_root_pi = scalar_like(x, 2 / std::sqrt(M_PI));
  g[0] = multiply(multiply(c.grad(), two_over_root_pi), exp(negative(square(x))));
}
void sin_grad(const GradContext& c, Grads& g) { g[0] = multiply(c.grad(), cos(c.input(0))); }
void cos_grad(const GradContext& c, Grads& g) {
  g[0] = multiply(negative(c.grad()), sin(c.input(0)));
}

// Second derivatives through the fused gradient ops (math_grad.py's _SigmoidGradGrad, ...).
void relu_grad_grad(const GradContext& c, Grads& g) {
  if (c.needs_input_grad(0)) g[0] = relu_grad(c.grad(), c.input(1));
  if (c.needs_input_grad(1)) g[1] = zeros_like(c.input(1));
}
void sigmoid_grad_grad(const GradContext& c, Grads& g) {
  const Tensor& y = c.input(0);
  const Tensor& dy = c.input(1);
  const Tensor grad = c.grad();
  const Tensor gb = multiply(grad, dy);
  if (c.needs_input_grad(0)) g[0] = subtract(gb, multiply(multiply(scalar_like(y, 2), gb), y));
  if (c.needs_input_grad(1)) g[1] = sigmoid_grad(y, grad);
}
void tanh_grad_grad(const GradContext& c, Grads& g) {
  const Tensor& y = c.input(0);
  const Tensor& dy = c.input(1);
  const Tensor grad = c.grad();
  if (c.needs_input_grad(0)) g[0] = multiply(multiply(multiply(grad, scalar_like(y, -2)), dy), y);
  if (c.needs_input_grad(1)) g[1] = tanh_grad(y, grad);
}
void sqrt_grad_grad(const GradContext& c, Grads& g) {
  const Tensor& y = c.input(0);
  const Tensor ga = divide(c.grad(), y);
  if (c.needs_input_grad(0)) g[0] = multiply(negative(ga), c.output());
  if (c.needs_input_grad(1)) g[1] = multiply(scalar_like(y, 0.5), ga);
}
void rsqrt_grad_grad(const GradContext& c, Grads& g) {
  const Tensor& y = c.input(0);
  const Tensor& dy = c.input(1);
  const Tensor grad = c.grad();
  if (c.needs_input_grad(0)) {
    g[0] = multiply(multiply(multiply(scalar_like(y, -1.5), grad), dy), square(y));
  }
  if (c.needs_input_grad(1)) g[1] = rsqrt_grad(y, grad);
}
void reciprocal_grad_grad(const GradContext& c, Grads& g) {
  const Tensor& y = c.input(0);
  const Tensor& dy = c.input(1);
  const Tensor grad = c.grad();
  if (c.needs_input_grad(0)) g[0] = multiply(multiply(multiply(grad, scalar_like(y, -2)), dy), y);
  if (c.needs_input_grad(1)) g[1] = reciprocal_grad(y, grad);
}

void add_n_grad(const GradContext& c, Grads& g) {
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (c.needs_input_grad(i)) g[static_cast<std::size_t>(i)] = c.grad();
  }
}

void softmax_grad(const GradContext& c, Grads& g) {
  const Tensor& y = c.output();
  const Tensor grad = c.grad();
  const Tensor sum_channels = reduce_sum(multiply(grad, y), -1, /*keepdims=*/true);
  g[0] = multiply(subtract(grad, sum_channels), y);
}

}  // namespace

void register_math_gradients(GradientRegistry& r) {
  r.add(opdefs::OpId::kAddV2, add_grad);
  r.add(opdefs::OpId::kSub, sub_grad);
  r.add(opdefs::OpId::kMul, mul_grad, save(0, 1));
  r.add(opdefs::OpId::kRealDiv, real_div_grad, save(0, 1));
  r.add(opdefs::OpId::kMaximum, max_min_grad<true>, save(0, 1));
  r.add(opdefs::OpId::kMinimum, max_min_grad<false>, save(0, 1));
  r.add(opdefs::OpId::kPow, pow_grad, save(0, 1), save(0));
  r.add(opdefs::OpId::kFloorMod, floor_mod_grad, save(0, 1));
  r.add(opdefs::OpId::kSquaredDifference, squared_difference_grad, save(0, 1));
  r.add(opdefs::OpId::kNeg, neg_grad);
  r.add(opdefs::OpId::kAbs, abs_grad, save(0));
  r.add(opdefs::OpId::kExp, exp_grad, kSaveNone, save(0));
  r.add(opdefs::OpId::kLog, log_grad, save(0));
  r.add(opdefs::OpId::kSqrt, sqrt_op_grad, kSaveNone, save(0));
  r.add(opdefs::OpId::kSquare, square_grad, save(0));
  r.add(opdefs::OpId::kRelu, relu_op_grad, kSaveNone, save(0));
  r.add(opdefs::OpId::kSigmoid, sigmoid_op_grad, kSaveNone, save(0));
  r.add(opdefs::OpId::kTanh, tanh_op_grad, kSaveNone, save(0));
  r.add(opdefs::OpId::kSign, sign_grad);
  r.add(opdefs::OpId::kRsqrt, rsqrt_op_grad, kSaveNone, save(0));
  r.add(opdefs::OpId::kReciprocal, reciprocal_op_grad, kSaveNone, save(0));
  r.add(opdefs::OpId::kLog1p, log1p_grad, save(0));
  r.add(opdefs::OpId::kErf, erf_grad, save(0));
  r.add(opdefs::OpId::kSin, sin_grad, save(0));
  r.add(opdefs::OpId::kCos, cos_grad, save(0));
  r.add(opdefs::OpId::kReluGrad, relu_grad_grad, save(1));
  r.add(opdefs::OpId::kSigmoidGrad, sigmoid_grad_grad, save(0, 1));
  r.add(opdefs::OpId::kTanhGrad, tanh_grad_grad, save(0, 1));
  r.add(opdefs::OpId::kSqrtGrad, sqrt_grad_grad, save(0), save(0));
  r.add(opdefs::OpId::kRsqrtGrad, rsqrt_grad_grad, save(0, 1));
  r.add(opdefs::OpId::kReciprocalGrad, reciprocal_grad_grad, save(0, 1));
  r.add(opdefs::OpId::kAddN, add_n_grad);
  r.add(opdefs::OpId::kSoftmax, softmax_grad, kSaveNone, save(0));
}

}  // namespace eagle::autodiff
