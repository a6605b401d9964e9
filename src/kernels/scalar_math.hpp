// Scalar arithmetic shared by the CPU and CUDA kernels: wrapping integer arithmetic, NaN tests,
// and the math functions, callable from host code and (under nvcc) device code alike.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/host_device.hpp"

namespace eagle::kernels {

// Two's complement wrapping for integers (no undefined behaviour, and what TensorFlow's kernels
// give on real hardware), plain arithmetic otherwise.
template <class C>
EAGLE_HOST_DEVICE C wrap_add(C a, C b) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class C>
EAGLE_HOST_DEVICE C wrap_sub(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <class C>
EAGLE_HOST_DEVICE C wrap_mul(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}
// -x: IEEE negation for floats (-(+0.0) is -0.0, as TensorFlow gives), wrapping for integers.
template <class C>
EAGLE_HOST_DEVICE C wrap_neg(C a) {
  if constexpr (std::is_integral_v<C>) {
    return wrap_sub(C{0}, a);
  } else {
    return -a;
  }
}

template <class C>
EAGLE_HOST_DEVICE bool is_nan(C v) {
  if constexpr (std::is_floating_point_v<C>) {
    return v != v;
  } else {
    return false;
  }
}

// Note [Maximum of equal values]: maximum and minimum propagate NaN (np.maximum, tf.maximum) and
// return the second operand when the two compare equal, as TensorFlow's kernels (SSE maxps/minps
// through Eigen) do: maximum(+0.0, -0.0) is -0.0 and maximum(-0.0, +0.0) is +0.0.
template <class C>
EAGLE_HOST_DEVICE C nan_max(C a, C b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return a > b ? a : b;
}
template <class C>
EAGLE_HOST_DEVICE C nan_min(C a, C b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return a < b ? a : b;
}

// The libm functions, by overload on float and double: std:: on the host, CUDA's on the device.
#if defined(__CUDA_ARCH__)
#define EAGLE_MATH_FN(name)                \
  template <class C>                       \
  __device__ __forceinline__ C name(C x) { \
    return ::name(x);                      \
  }
#else
#define EAGLE_MATH_FN(name) \
  template <class C>        \
  inline C name(C x) {      \
    return std::name(x);    \
  }
#endif
namespace math {
EAGLE_MATH_FN(exp)
EAGLE_MATH_FN(log)
EAGLE_MATH_FN(log1p)
EAGLE_MATH_FN(sqrt)
EAGLE_MATH_FN(tanh)
EAGLE_MATH_FN(fabs)
EAGLE_MATH_FN(floor)
EAGLE_MATH_FN(ceil)
EAGLE_MATH_FN(rint)
EAGLE_MATH_FN(trunc)
EAGLE_MATH_FN(erf)
EAGLE_MATH_FN(erfc)
EAGLE_MATH_FN(expm1)
EAGLE_MATH_FN(sin)
EAGLE_MATH_FN(cos)
}  // namespace math
#undef EAGLE_MATH_FN

namespace math {
template <class C>
EAGLE_HOST_DEVICE C pow(C base, C exponent) {
#if defined(__CUDA_ARCH__)
  return ::pow(base, exponent);
#else
  return std::pow(base, exponent);
#endif
}
template <class C>
EAGLE_HOST_DEVICE C fmod(C x, C y) {
#if defined(__CUDA_ARCH__)
  return ::fmod(x, y);
#else
  return std::fmod(x, y);
#endif
}
template <class C>
EAGLE_HOST_DEVICE bool isinf(C x) {
#if defined(__CUDA_ARCH__)
  return ::isinf(x);
#else
  return std::isinf(x);
#endif
}
}  // namespace math

}  // namespace eagle::kernels
