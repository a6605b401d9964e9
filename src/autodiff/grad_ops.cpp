#include "autodiff/grad_ops.hpp"

#include <vector>

#include "eagle/ops.hpp"
#include "ops/op_support.hpp"

namespace eagle::autodiff {
namespace {

Tensor fused(opdefs::OpId op, const Tensor& a, const Tensor& b) {
  const Tensor inputs[2] = {a, b};
  ops::check_same_dtype(op, inputs, 2);
  if (a.shape() != b.shape()) {
    ops::throw_invalid(
        op, "Incompatible shapes: " + a.shape().to_string() + " vs. " + b.shape().to_string());
  }
  return runtime::execute1(op, a.dtype(), inputs, 2, a.shape(), a.dtype());
}

}  // namespace

Tensor relu_grad(const Tensor& gradients, const Tensor& features) {
  return fused(opdefs::OpId::kReluGrad, gradients, features);
}
Tensor sigmoid_grad(const Tensor& y, const Tensor& dy) {
  return fused(opdefs::OpId::kSigmoidGrad, y, dy);
}
Tensor tanh_grad(const Tensor& y, const Tensor& dy) {
  return fused(opdefs::OpId::kTanhGrad, y, dy);
}
Tensor sqrt_grad(const Tensor& y, const Tensor& dy) {
  return fused(opdefs::OpId::kSqrtGrad, y, dy);
}
Tensor rsqrt_grad(const Tensor& y, const Tensor& dy) {
  return fused(opdefs::OpId::kRsqrtGrad, y, dy);
}
Tensor reciprocal_grad(const Tensor& y, const Tensor& dy) {
  return fused(opdefs::OpId::kReciprocalGrad, y, dy);
}

Tensor bias_add_grad(const Tensor& out_backprop) {
  const Shape& s = out_backprop.shape();
  return runtime::execute1(opdefs::OpId::kBiasAddGrad, out_backprop.dtype(), &out_backprop, 1,
                           Shape{s[s.rank() - 1]}, out_backprop.dtype());
}

Tensor reshape_to(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  std::vector<std::int64_t> dims(static_cast<std::size_t>(shape.rank()));
  for (int i = 0; i < shape.rank(); ++i) dims[static_cast<std::size_t>(i)] = shape[i];
  return reshape(x, dims);
}

Tensor sum_to(const Tensor& g, const Shape& shape) {
  const Shape& from = g.shape();
  if (from == shape) return g;
  // Axes of `from` that `shape` lacks (leading) or has as 1 where `from` does not.
  std::vector<int> axes;
  const int lead = from.rank() - shape.rank();
  for (int i = 0; i < from.rank(); ++i) {
    if (i < lead || (shape[i - lead] == 1 && from[i] != 1)) axes.push_back(i);
  }
  Tensor summed = axes.empty() ? g : reduce_sum(g, axes, /*keepdims=*/true);
  return reshape_to(summed, shape);
}

Tensor scatter_along_axis(const Tensor& g, int axis, const std::vector<std::int64_t>& source,
                          std::int64_t size) {
  // One-hot matrix [g's extent, size]: row j has its 1 at source[j].
  const std::int64_t rows = static_cast<std::int64_t>(source.size());
  std::vector<double> one_hot(static_cast<std::size_t>(rows * size), 0.0);
  for (std::int64_t j = 0; j < rows; ++j) {
    one_hot[static_cast<std::size_t>(j * size + source[static_cast<std::size_t>(j)])] = 1.0;
  }
  const Tensor m = cast(constant(one_hot, Shape{rows, size}), g.dtype());
  // tensordot puts the new axis last; move it back to `axis`.
  const Tensor moved = tensordot(g, m, {axis}, {0});
  const int rank = g.rank();
  std::vector<int> perm;  // moved's axes are g's without `axis`, then the new one
  for (int i = 0; i < rank - 1; ++i) perm.push_back(i);
  perm.insert(perm.begin() + axis, rank - 1);
  bool identity = true;
  for (int i = 0; i < rank; ++i) identity = identity && perm[static_cast<std::size_t>(i)] == i;
  return identity ? moved : transpose(moved, perm);
}

}  // namespace eagle::autodiff
