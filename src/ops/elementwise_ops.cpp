// Elementwise binary and unary ops: validation and shape inference; kernels in cpu/.
#include <cmath>

#include "eagle/ops.hpp"
#include "ops/op_support.hpp"

namespace eagle {
namespace {

using ops::OpId;

Tensor binary(OpId op, const Tensor& x, const Tensor& y, bool boolean_output = false) {
  const Tensor inputs[2] = {x, y};
  ops::check_same_dtype(op, inputs, 2);
  const Shape out_shape = ops::broadcast_shapes(op, x.shape(), y.shape());
  return runtime::execute1(op, x.dtype(), inputs, 2, out_shape,
                           boolean_output ? DType::kBool : x.dtype());
}

Tensor unary(OpId op, const Tensor& x) {
  ops::check_defined(x, op);
  return ops::run_unary(op, x, x.shape(), x.dtype());
}

}  // namespace

Tensor add(const Tensor& x, const Tensor& y) { return binary(OpId::kAddV2, x, y); }
Tensor subtract(const Tensor& x, const Tensor& y) { return binary(OpId::kSub, x, y); }
Tensor multiply(const Tensor& x, const Tensor& y) { return binary(OpId::kMul, x, y); }
Tensor maximum(const Tensor& x, const Tensor& y) { return binary(OpId::kMaximum, x, y); }
Tensor minimum(const Tensor& x, const Tensor& y) { return binary(OpId::kMinimum, x, y); }
Tensor pow(const Tensor& x, const Tensor& y) { return binary(OpId::kPow, x, y); }
Tensor equal(const Tensor& x, const Tensor& y) { return binary(OpId::kEqual, x, y, true); }
Tensor not_equal(const Tensor& x, const Tensor& y) { return binary(OpId::kNotEqual, x, y, true); }
Tensor less(const Tensor& x, const Tensor& y) { return binary(OpId::kLess, x, y, true); }
Tensor less_equal(const Tensor& x, const Tensor& y) { return binary(OpId::kLessEqual, x, y, true); }
Tensor greater(const Tensor& x, const Tensor& y) { return binary(OpId::kGreater, x, y, true); }
Tensor greater_equal(const Tensor& x, const Tensor& y) {
  return binary(OpId::kGreaterEqual, x, y, true);
}

Tensor divide(const Tensor& x, const Tensor& y) {
  const Tensor inputs[2] = {x, y};
  ops::check_same_dtype(OpId::kRealDiv, inputs, 2);
  // tf.math.truediv: integers are divided as float64 (two Cast ops, then RealDiv).
  if (is_integer(x.dtype())) {
    return binary(OpId::kRealDiv, cast(x, DType::kFloat64), cast(y, DType::kFloat64));
  }
  return binary(OpId::kRealDiv, x, y);
}

Tensor negative(const Tensor& x) { return unary(OpId::kNeg, x); }
Tensor abs(const Tensor& x) { return unary(OpId::kAbs, x); }
Tensor exp(const Tensor& x) { return unary(OpId::kExp, x); }
Tensor log(const Tensor& x) { return unary(OpId::kLog, x); }
Tensor sqrt(const Tensor& x) { return unary(OpId::kSqrt, x); }
Tensor square(const Tensor& x) { return unary(OpId::kSquare, x); }
Tensor relu(const Tensor& x) { return unary(OpId::kRelu, x); }
Tensor sigmoid(const Tensor& x) { return unary(OpId::kSigmoid, x); }
Tensor tanh(const Tensor& x) { return unary(OpId::kTanh, x); }

}  // namespace eagle
