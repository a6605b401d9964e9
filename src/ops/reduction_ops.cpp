// Reductions (Sum, Mean, Max, Min, Prod, Any, All) over any axes, their composites (variance,
// std, logsumexp), ArgMax and ArgMin, and the scans Cumsum and Cumprod.
#include <algorithm>

#include <fmt/format.h>

#include "eagle/ops.hpp"
#include "opdefs/attrs.hpp"
#include "ops/op_support.hpp"

namespace eagle {
namespace {

Tensor reduce(opdefs::OpId op, const Tensor& x, const Axes& axes, bool keepdims) {
  ops::check_defined(x, op);
  opdefs::ReduceAttrs attrs{ops::normalized_axes(op, x.shape(), axes)};
  const Shape out = ops::reduced_shape(x.shape(), attrs.axes, keepdims);
  return ops::run_unary(op, x, out, x.dtype(), opdefs::OpAttrs{std::move(attrs)});
}

}  // namespace

Tensor reduce_sum(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(opdefs::OpId::kSum, x, axes, keepdims);
}
Tensor reduce_mean(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(opdefs::OpId::kMean, x, axes, keepdims);
}
Tensor reduce_prod(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(opdefs::OpId::kProd, x, axes, keepdims);
}
Tensor reduce_any(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(opdefs::OpId::kAny, x, axes, keepdims);
}
Tensor reduce_all(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(opdefs::OpId::kAll, x, axes, keepdims);
}

// As TensorFlow's tf.math.reduce_variance: the mean of squared deviations from the mean (the
// population variance), built from ops so every backend has it and a tape can differentiate it.
Tensor reduce_variance(const Tensor& x, const Axes& axes, bool keepdims) {
  ops::check_defined(x, opdefs::OpId::kMean);
  if (!is_floating(x.dtype())) {  // TensorFlow's Python check, without an [Op:] suffix
    throw InvalidArgumentError(
        fmt::format("Input must be either real or complex. Received integer "
                    "type <dtype: '{}'>.",
                    dtype_name(x.dtype())));
  }
  const Tensor mean = reduce_mean(x, axes, true);
  return reduce_mean(squared_difference(x, mean), axes, keepdims);
}
Tensor reduce_std(const Tensor& x, const Axes& axes, bool keepdims) {
  return sqrt(reduce_variance(x, axes, keepdims));
}
// log(sum(exp(x))) without overflow, as tf.math.reduce_logsumexp: the maximum is taken out first.
// An infinite maximum is clipped to the largest finite value (TensorFlow uses 0 there), which
// gives the same results: +inf for a +inf element, -inf for a slice of -inf.
Tensor reduce_logsumexp(const Tensor& x, const Axes& axes, bool keepdims) {
  ops::check_defined(x, opdefs::OpId::kMax);
  const std::vector<int> reduced = ops::normalized_axes(opdefs::OpId::kMax, x.shape(), axes);
  const double largest = x.dtype() == DType::kFloat64    ? 1.7976931348623157e308
                         : x.dtype() == DType::kFloat16  ? 65504.0
                         : x.dtype() == DType::kBFloat16 ? 3.3895313892515355e38
                                                         : 3.4028234663852886e38;
  const Tensor max =
      clip_by_value(reduce_max(x, axes, true), scalar_like(x, -largest), scalar_like(x, largest));
  const Tensor result = log(reduce_sum(exp(x - max), axes, true)) + max;
  if (keepdims) return result;
  return reshape(result, ops::reduced_shape(x.shape(), reduced, false).to_vector());
}
Tensor reduce_max(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(opdefs::OpId::kMax, x, axes, keepdims);
}
Tensor reduce_min(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(opdefs::OpId::kMin, x, axes, keepdims);
}

namespace {

Tensor arg_reduce(opdefs::OpId op, const Tensor& x, int axis) {
  ops::check_defined(x, op);
  const Shape& in = x.shape();
  const opdefs::AxisAttrs attrs{ops::normalize_axis(op, axis, in.rank())};
  if (in[attrs.axis] == 0) {
    ops::throw_invalid(
        op, fmt::format("Reduction axis {} is empty in shape {}", attrs.axis, in.to_string()));
  }
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (i != attrs.axis) out.push_back(in[i]);
  }
  return ops::run_unary(op, x, out, DType::kInt64, opdefs::OpAttrs{attrs});
}

}  // namespace

Tensor argmax(const Tensor& x, int axis) { return arg_reduce(opdefs::OpId::kArgMax, x, axis); }
Tensor argmin(const Tensor& x, int axis) { return arg_reduce(opdefs::OpId::kArgMin, x, axis); }

namespace {

Tensor scan(opdefs::OpId op, const Tensor& x, int axis, bool exclusive, bool reverse) {
  ops::check_defined(x, op);
  const int rank = x.rank();
  // TensorFlow's ScanOp prints the axis after adding the rank to a negative one.
  if (axis < -rank || axis >= rank) {
    ops::throw_invalid(
        op, fmt::format("ScanOp: Expected scan axis in the range [{}, {}), but got {}", -rank, rank,
                        axis < 0 ? axis + rank : axis));
  }
  const int a = axis < 0 ? axis + rank : axis;
  return ops::run_unary(op, x, x.shape(), x.dtype(),
                        opdefs::OpAttrs{opdefs::ScanAttrs{a, exclusive, reverse}});
}

}  // namespace

Tensor cumsum(const Tensor& x, int axis, bool exclusive, bool reverse) {
  return scan(opdefs::OpId::kCumsum, x, axis, exclusive, reverse);
}

Tensor cumprod(const Tensor& x, int axis, bool exclusive, bool reverse) {
  return scan(opdefs::OpId::kCumprod, x, axis, exclusive, reverse);
}

}  // namespace eagle
