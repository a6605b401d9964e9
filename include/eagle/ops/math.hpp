// Elementwise math (NumPy broadcasting) and the arithmetic and comparison operators.
#pragma once

#include <type_traits>

#include "eagle/dtype.hpp"
#include "eagle/tensor.hpp"

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

// ---- Elementwise unary -------------------------------------------------------------------------
Tensor negative(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
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
inline Tensor operator==(const Tensor& x, const Tensor& y) { return equal(x, y); }
inline Tensor operator!=(const Tensor& x, const Tensor& y) { return not_equal(x, y); }
inline Tensor operator<(const Tensor& x, const Tensor& y) { return less(x, y); }
inline Tensor operator<=(const Tensor& x, const Tensor& y) { return less_equal(x, y); }
inline Tensor operator>(const Tensor& x, const Tensor& y) { return greater(x, y); }
inline Tensor operator>=(const Tensor& x, const Tensor& y) { return greater_equal(x, y); }

// A C++ number next to a tensor takes the tensor's dtype (as a Python scalar does in TF).
Tensor scalar_like(const Tensor& like, double value);
#define EAGLE_SCALAR_OPERATOR(op)                                       \
  template <class S, class = std::enable_if_t<std::is_arithmetic_v<S>>> \
  Tensor operator op(const Tensor& x, S s) {                            \
    return x op scalar_like(x, static_cast<double>(s));                 \
  }                                                                     \
  template <class S, class = std::enable_if_t<std::is_arithmetic_v<S>>> \
  Tensor operator op(S s, const Tensor& x) {                            \
    return scalar_like(x, static_cast<double>(s)) op x;                 \
  }
EAGLE_SCALAR_OPERATOR(+)
EAGLE_SCALAR_OPERATOR(-)
EAGLE_SCALAR_OPERATOR(*)
EAGLE_SCALAR_OPERATOR(/)
EAGLE_SCALAR_OPERATOR(==)
EAGLE_SCALAR_OPERATOR(!=)
EAGLE_SCALAR_OPERATOR(<)
EAGLE_SCALAR_OPERATOR(<=)
EAGLE_SCALAR_OPERATOR(>)
EAGLE_SCALAR_OPERATOR(>=)
#undef EAGLE_SCALAR_OPERATOR

}  // namespace eagle
