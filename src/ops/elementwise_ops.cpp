// Elementwise binary and unary ops: validation and shape inference; kernels in cpu/.
#include <algorithm>
#include <cmath>

#include "eagle/ops.hpp"
#include "ops/op_support.hpp"

namespace eagle {
namespace {

Tensor binary(opdefs::OpId op, const Tensor& x, const Tensor& y, bool boolean_output = false) {
  const Tensor inputs[2] = {x, y};
  ops::check_same_dtype(op, inputs, 2);
  const Shape out_shape = ops::broadcast_shapes(op, x.shape(), y.shape());
  return runtime::execute1(op, x.dtype(), inputs, 2, out_shape,
                           boolean_output ? DType::kBool : x.dtype());
}

Tensor unary(opdefs::OpId op, const Tensor& x, bool boolean_output = false) {
  ops::check_defined(x, op);
  return ops::run_unary(op, x, x.shape(), boolean_output ? DType::kBool : x.dtype());
}

}  // namespace

Tensor add(const Tensor& x, const Tensor& y) { return binary(opdefs::OpId::kAddV2, x, y); }
Tensor subtract(const Tensor& x, const Tensor& y) { return binary(opdefs::OpId::kSub, x, y); }
Tensor multiply(const Tensor& x, const Tensor& y) { return binary(opdefs::OpId::kMul, x, y); }
Tensor maximum(const Tensor& x, const Tensor& y) { return binary(opdefs::OpId::kMaximum, x, y); }
Tensor minimum(const Tensor& x, const Tensor& y) { return binary(opdefs::OpId::kMinimum, x, y); }
Tensor pow(const Tensor& x, const Tensor& y) { return binary(opdefs::OpId::kPow, x, y); }
Tensor equal(const Tensor& x, const Tensor& y) { return binary(opdefs::OpId::kEqual, x, y, true); }
Tensor not_equal(const Tensor& x, const Tensor& y) {
  return binary(opdefs::OpId::kNotEqual, x, y, true);
}
Tensor less(const Tensor& x, const Tensor& y) { return binary(opdefs::OpId::kLess, x, y, true); }
Tensor less_equal(const Tensor& x, const Tensor& y) {
  return binary(opdefs::OpId::kLessEqual, x, y, true);
}
Tensor greater(const Tensor& x, const Tensor& y) {
  return binary(opdefs::OpId::kGreater, x, y, true);
}
Tensor greater_equal(const Tensor& x, const Tensor& y) {
  return binary(opdefs::OpId::kGreaterEqual, x, y, true);
}

namespace {

bool broadcastable(const Shape& a, const Shape& b) {
  for (int i = 1; i <= std::min(a.rank(), b.rank()); ++i) {
    const std::int64_t da = a[a.rank() - i], db = b[b.rank() - i];
    if (da != db && da != 1 && db != 1) return false;
  }
  return true;
}

}  // namespace

Tensor operator==(const Tensor& x, const Tensor& y) {
  if (x.defined() && y.defined() && !broadcastable(x.shape(), y.shape())) return constant(false);
  return equal(x, y);
}
Tensor operator!=(const Tensor& x, const Tensor& y) {
  if (x.defined() && y.defined() && !broadcastable(x.shape(), y.shape())) return constant(true);
  return not_equal(x, y);
}

Tensor divide(const Tensor& x, const Tensor& y) {
  const Tensor inputs[2] = {x, y};
  ops::check_same_dtype(opdefs::OpId::kRealDiv, inputs, 2);
  // tf.math.truediv: integers are divided as float64 (two Cast ops, then RealDiv).
  if (is_integer(x.dtype())) {
    return binary(opdefs::OpId::kRealDiv, cast(x, DType::kFloat64), cast(y, DType::kFloat64));
  }
  return binary(opdefs::OpId::kRealDiv, x, y);
}

Tensor negative(const Tensor& x) { return unary(opdefs::OpId::kNeg, x); }
Tensor abs(const Tensor& x) { return unary(opdefs::OpId::kAbs, x); }
Tensor exp(const Tensor& x) { return unary(opdefs::OpId::kExp, x); }
Tensor log(const Tensor& x) { return unary(opdefs::OpId::kLog, x); }
Tensor sqrt(const Tensor& x) { return unary(opdefs::OpId::kSqrt, x); }
Tensor square(const Tensor& x) { return unary(opdefs::OpId::kSquare, x); }
Tensor relu(const Tensor& x) { return unary(opdefs::OpId::kRelu, x); }
Tensor sigmoid(const Tensor& x) { return unary(opdefs::OpId::kSigmoid, x); }
Tensor tanh(const Tensor& x) { return unary(opdefs::OpId::kTanh, x); }
Tensor rsqrt(const Tensor& x) { return unary(opdefs::OpId::kRsqrt, x); }
Tensor reciprocal(const Tensor& x) { return unary(opdefs::OpId::kReciprocal, x); }
Tensor log1p(const Tensor& x) { return unary(opdefs::OpId::kLog1p, x); }
Tensor erf(const Tensor& x) { return unary(opdefs::OpId::kErf, x); }
Tensor sin(const Tensor& x) { return unary(opdefs::OpId::kSin, x); }
Tensor cos(const Tensor& x) { return unary(opdefs::OpId::kCos, x); }
Tensor floor(const Tensor& x) { return unary(opdefs::OpId::kFloor, x); }
Tensor ceil(const Tensor& x) { return unary(opdefs::OpId::kCeil, x); }
Tensor round(const Tensor& x) { return unary(opdefs::OpId::kRound, x); }
Tensor sign(const Tensor& x) { return unary(opdefs::OpId::kSign, x); }
Tensor is_nan(const Tensor& x) { return unary(opdefs::OpId::kIsNan, x, true); }
Tensor is_inf(const Tensor& x) { return unary(opdefs::OpId::kIsInf, x, true); }
Tensor is_finite(const Tensor& x) { return unary(opdefs::OpId::kIsFinite, x, true); }
Tensor logical_not(const Tensor& x) { return unary(opdefs::OpId::kLogicalNot, x, true); }

Tensor floordiv(const Tensor& x, const Tensor& y) { return binary(opdefs::OpId::kFloorDiv, x, y); }
Tensor floormod(const Tensor& x, const Tensor& y) { return binary(opdefs::OpId::kFloorMod, x, y); }
Tensor truncatediv(const Tensor& x, const Tensor& y) {
  return binary(opdefs::OpId::kTruncateDiv, x, y);
}
Tensor truncatemod(const Tensor& x, const Tensor& y) {
  return binary(opdefs::OpId::kTruncateMod, x, y);
}
Tensor squared_difference(const Tensor& x, const Tensor& y) {
  return binary(opdefs::OpId::kSquaredDifference, x, y);
}
Tensor logical_and(const Tensor& x, const Tensor& y) {
  return binary(opdefs::OpId::kLogicalAnd, x, y, true);
}
Tensor logical_or(const Tensor& x, const Tensor& y) {
  return binary(opdefs::OpId::kLogicalOr, x, y, true);
}

Tensor clip_by_value(const Tensor& x, const Tensor& clip_value_min, const Tensor& clip_value_max) {
  return maximum(minimum(x, clip_value_max), clip_value_min);
}

Tensor zeros_like(const Tensor& x) {
  ops::check_defined(x, opdefs::OpId::kFill);
  return fill(x.shape(), 0, x.dtype());
}
Tensor ones_like(const Tensor& x) {
  ops::check_defined(x, opdefs::OpId::kFill);
  return fill(x.shape(), 1, x.dtype());
}

}  // namespace eagle
