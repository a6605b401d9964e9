// Gradients of the reductions (TensorFlow's math_grad.py: _SumGrad, _MeanGrad, _MinOrMaxGrad,
// _ProdGrad): the upstream gradient spread back over the reduced axes.
#include "autodiff/grad_ops.hpp"
#include "autodiff/gradient_registry.hpp"
#include "eagle/ops.hpp"

namespace eagle::autodiff {
namespace {

using Grads = std::vector<Tensor>;

// The input's shape with the reduced axes kept as 1: what the upstream gradient (and the
// output) become so that they broadcast against the input.
Shape kept_shape(const GradContext& c) {
  Shape kept = c.input_shape(0);
  for (int axis : c.attrs<opdefs::ReduceAttrs>().axes) kept[axis] = 1;
  return kept;
}

void sum_grad(const GradContext& c, Grads& g) {
  g[0] = broadcast_to(reshape_to(c.grad(), kept_shape(c)), c.input_shape(0));
}

void mean_grad(const GradContext& c, Grads& g) {
  const std::int64_t in = c.input_shape(0).num_elements();
  const std::int64_t out = c.output_shape().num_elements();
  const double count = out == 0 ? 1.0 : static_cast<double>(in) / static_cast<double>(out);
  const Tensor spread = broadcast_to(reshape_to(c.grad(), kept_shape(c)), c.input_shape(0));
  g[0] = divide(spread, scalar_like(spread, count));
}

// Equal maxima (minima) share the gradient equally: TensorFlow's rule for reduce_max/reduce_min.
void min_max_grad(const GradContext& c, Grads& g) {
  const Shape kept = kept_shape(c);
  const Tensor& x = c.input(0);
  const Tensor y = reshape_to(c.output(), kept);
  const Tensor indicators = cast(equal(y, x), x.dtype());
  const Tensor num_selected = reduce_sum(indicators, c.attrs<opdefs::ReduceAttrs>().axes, true);
  g[0] = multiply(divide(indicators, num_selected), reshape_to(c.grad(), kept));
}

// d prod / d x_i is the product of the others. Without a zero in the group that is y / x_i; with
// exactly one zero, only the zero's position gets the product of the others; with two or more,
// every position gets 0. Computed with the zeros replaced by 1, so no division by zero.
void prod_grad(const GradContext& c, Grads& g) {
  const Shape kept = kept_shape(c);
  const std::vector<int>& axes = c.attrs<opdefs::ReduceAttrs>().axes;
  const Tensor& x = c.input(0);
  const Tensor is_zero = equal(x, scalar_like(x, 0));
  const Tensor safe_x = where(is_zero, scalar_like(x, 1), x);
  const Tensor others = reduce_prod(safe_x, axes, true);  // product of the non-zeros
  const Tensor zeros = reduce_sum(cast(is_zero, x.dtype()), axes, true);
  const Tensor none_zero = cast(equal(zeros, scalar_like(x, 0)), x.dtype());
  const Tensor one_zero = cast(equal(zeros, scalar_like(x, 1)), x.dtype());
  const Tensor when_none = multiply(none_zero, divide(others, safe_x));
  const Tensor when_one = multiply(multiply(one_zero, cast(is_zero, x.dtype())), others);
  g[0] = multiply(add(when_none, when_one), reshape_to(c.grad(), kept));
}

}  // namespace

void register_reduction_gradients(GradientRegistry& r) {
  r.add(opdefs::OpId::kSum, sum_grad);
  r.add(opdefs::OpId::kMean, mean_grad);
  r.add(opdefs::OpId::kMax, min_max_grad, save(0), save(0));
  r.add(opdefs::OpId::kMin, min_max_grad, save(0), save(0));
  r.add(opdefs::OpId::kProd, prod_grad, save(0));
}

}  // namespace eagle::autodiff
