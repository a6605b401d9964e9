// Elementwise math (NumPy broadcasting), the arithmetic and comparison operators, and compound
// assignment.
#pragma once

#include <cstdint>
#include <type_traits>

#include "eagle/dtype.hpp"
#include "eagle/tensor.hpp"
#include "eagle/tensor_data.hpp"

namespace eagle {

// ---- Elementwise binary (NumPy broadcasting) --------------------------------------------------
Tensor add(const Tensor& x, const Tensor& y);
Tensor subtract(const Tensor& x, const Tensor& y);
Tensor multiply(const Tensor& x, const Tensor& y);
// True division: integer inputs give float64, as tf.math.truediv does for int32/int64.
Tensor divide(const Tensor& x, const Tensor& y);
Tensor maximum(const Tensor& x, const Tensor& y);
Tensor minimum(const Tensor& x, const Tensor& y);
Tensor pow(const Tensor& x, const Tensor& y);
Tensor equal(const Tensor& x, const Tensor& y);
Tensor not_equal(const Tensor& x, const Tensor& y);
Tensor less(const Tensor& x, const Tensor& y);
Tensor less_equal(const Tensor& x, const Tensor& y);
Tensor greater(const Tensor& x, const Tensor& y);
Tensor greater_equal(const Tensor& x, const Tensor& y);
// Floor division and its remainder, as Python's // and % (TensorFlow's FloorDiv, FloorMod):
// -7 // 2 is -4 and -7 % 2 is 1; the remainder takes the divisor's sign. Integer division by
// zero is an InvalidArgumentError; the lowest integer divided by -1 wraps.
Tensor floordiv(const Tensor& x, const Tensor& y);
Tensor floormod(const Tensor& x, const Tensor& y);
// C's division and remainder (toward zero; the remainder takes the dividend's sign).
Tensor truncatediv(const Tensor& x, const Tensor& y);
Tensor truncatemod(const Tensor& x, const Tensor& y);
// (x - y)^2
Tensor squared_difference(const Tensor& x, const Tensor& y);
// bool tensors only.
Tensor logical_and(const Tensor& x, const Tensor& y);
Tensor logical_or(const Tensor& x, const Tensor& y);
Tensor logical_not(const Tensor& x);
// maximum(minimum(x, clip_value_max), clip_value_min), as tf.clip_by_value.
Tensor clip_by_value(const Tensor& x, const Tensor& clip_value_min, const Tensor& clip_value_max);

// ---- Elementwise unary -------------------------------------------------------------------------
Tensor negative(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);       // 1 / sqrt(x)
Tensor reciprocal(const Tensor& x);  // 1 / x, floating types
Tensor log1p(const Tensor& x);       // log(1 + x), accurate near 0
Tensor erf(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);  // half to even (banker's rounding), as tf.round
Tensor sign(const Tensor& x);   // -1, 0 or 1; NaN stays NaN

// ---- Scans -------------------------------------------------------------------------------------
// tf.math.cumsum / tf.math.cumprod (ops Cumsum, Cumprod) along `axis`: exclusive leaves each
// element out of its own sum (the first is 0, or 1 for the product), reverse scans from the end.
// Sequential in x's dtype as TensorFlow's CPU kernel: 16-bit floats round at every step, integers
// wrap.
Tensor cumsum(const Tensor& x, int axis = 0, bool exclusive = false, bool reverse = false);
Tensor cumprod(const Tensor& x, int axis = 0, bool exclusive = false, bool reverse = false);
// bool tensors of the elementwise tests, floating inputs.
Tensor is_nan(const Tensor& x);
Tensor is_inf(const Tensor& x);
Tensor is_finite(const Tensor& x);
// Tensors of x's shape and dtype (on the current device, as a fill).
Tensor zeros_like(const Tensor& x);
Tensor ones_like(const Tensor& x);
Tensor square(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);

// ---- Operators ---------------------------------------------------------------------------------
inline Tensor operator+(const Tensor& x, const Tensor& y) { return add(x, y); }
inline Tensor operator-(const Tensor& x, const Tensor& y) { return subtract(x, y); }
inline Tensor operator*(const Tensor& x, const Tensor& y) { return multiply(x, y); }
inline Tensor operator/(const Tensor& x, const Tensor& y) { return divide(x, y); }
inline Tensor operator-(const Tensor& x) { return negative(x); }
// As Python's == and != on TensorFlow tensors: shapes that do not broadcast give a scalar false
// (true for !=) instead of the InvalidArgumentError that equal() and not_equal() raise.
Tensor operator==(const Tensor& x, const Tensor& y);
Tensor operator!=(const Tensor& x, const Tensor& y);
inline Tensor operator<(const Tensor& x, const Tensor& y) { return less(x, y); }
inline Tensor operator<=(const Tensor& x, const Tensor& y) { return less_equal(x, y); }
inline Tensor operator>(const Tensor& x, const Tensor& y) { return greater(x, y); }
inline Tensor operator>=(const Tensor& x, const Tensor& y) { return greater_equal(x, y); }
// As Python's % on tensors: floormod. On bool tensors, & | ! are logical_and, logical_or and
// logical_not (TensorFlow's & | ~).
inline Tensor operator%(const Tensor& x, const Tensor& y) { return floormod(x, y); }
inline Tensor operator&(const Tensor& x, const Tensor& y) { return logical_and(x, y); }
inline Tensor operator|(const Tensor& x, const Tensor& y) { return logical_or(x, y); }
inline Tensor operator!(const Tensor& x) { return logical_not(x); }

// A C++ number next to a tensor takes the tensor's dtype (as a Python scalar does in TF).
// float16 and bfloat16 values count as numbers too: x * eagle::float16(2.f).
Tensor scalar_like(const Tensor& like, double value);
namespace detail {
template <class S>
double scalar_value(S s) {
  if constexpr (std::is_same_v<S, float16> || std::is_same_v<S, bfloat16>) {
    return static_cast<double>(static_cast<float>(s));
  } else {
    return static_cast<double>(s);
  }
}
}  // namespace detail
#define EAGLE_SCALAR_OPERATOR(op)                                    \
  template <class S, class = std::enable_if_t<is_element_type_v<S>>> \
  Tensor operator op(const Tensor& x, S s) {                         \
    return x op scalar_like(x, detail::scalar_value(s));             \
  }                                                                  \
  template <class S, class = std::enable_if_t<is_element_type_v<S>>> \
  Tensor operator op(S s, const Tensor& x) {                         \
    return scalar_like(x, detail::scalar_value(s)) op x;             \
  }
EAGLE_SCALAR_OPERATOR(+)
EAGLE_SCALAR_OPERATOR(-)
EAGLE_SCALAR_OPERATOR(*)
EAGLE_SCALAR_OPERATOR(/)
EAGLE_SCALAR_OPERATOR(%)
EAGLE_SCALAR_OPERATOR(==)
EAGLE_SCALAR_OPERATOR(!=)
EAGLE_SCALAR_OPERATOR(<)
EAGLE_SCALAR_OPERATOR(<=)
EAGLE_SCALAR_OPERATOR(>)
EAGLE_SCALAR_OPERATOR(>=)
#undef EAGLE_SCALAR_OPERATOR

// Compound assignment rebinds the handle to a new tensor, as Python's `a += b` does to an
// EagerTensor: tensors are immutable, so other handles to the old value keep seeing it.
#define EAGLE_COMPOUND_ASSIGNMENT(op)                                \
  inline Tensor& operator op##=(Tensor& x, const Tensor& y) {        \
    x = x op y;                                                      \
    return x;                                                        \
  }                                                                  \
  template <class S, class = std::enable_if_t<is_element_type_v<S>>> \
  Tensor& operator op##=(Tensor& x, S s) {                           \
    x = x op s;                                                      \
    return x;                                                        \
  }
EAGLE_COMPOUND_ASSIGNMENT(+)
EAGLE_COMPOUND_ASSIGNMENT(-)
EAGLE_COMPOUND_ASSIGNMENT(*)
EAGLE_COMPOUND_ASSIGNMENT(/)
#undef EAGLE_COMPOUND_ASSIGNMENT

// tf.math.unsorted_segment_sum (UnsortedSegmentSum): output[i, ...] is the sum of the rows
// data[j..., ...] whose segment_ids[j...] == i; segment_ids (int32 or int64) has a prefix of
// data's shape, the output is [num_segments] + the rest of data's. A negative id drops its row;
// an id >= num_segments is an InvalidArgumentError on the CPU and dropped on a GPU (TensorFlow's
// kernels). Rows of one segment are added in index order on the CPU, in any order on a GPU.
Tensor unsorted_segment_sum(const Tensor& data, const Tensor& segment_ids,
                            std::int64_t num_segments);
namespace math {
using eagle::unsorted_segment_sum;  // the tf.math spelling
}  // namespace math

}  // namespace eagle
