// Element-type helpers shared by the CPU kernels and the host side of the CUDA kernels: the
// compute type of each storage type and conversions with eagle's rules.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "eagle/half.hpp"

namespace eagle::kernels {

// Note [Half precision on the CPU]: float16 and bfloat16 are storage types here. Kernels load
// them as float32, compute in float32 and round once when storing (as TensorFlow's CPU kernels
// do through Eigen::half), so results differ from a float32 run only by that final rounding.
template <class T>
struct compute_type {
  using type = T;
};
template <>
struct compute_type<float16> {
  using type = float;
};
template <>
struct compute_type<bfloat16> {
  using type = float;
};
template <class T>
using compute_t = typename compute_type<T>::type;

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// Where's test of an element: a 16-bit float is compared as float32.
template <class T>
inline bool nonzero(T v) {
  if constexpr (is_half_v<T>) {
    return static_cast<float>(v) != 0.0f;
  } else {
    return v != T{};
  }
}

template <class To, class From>
inline To convert(From v) {
  if constexpr (is_half_v<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (is_half_v<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{};
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // Note [Float to integer casts]: truncation toward zero; NaN, infinities and values outside
    // To give To's lowest value, which is what TensorFlow's CPU kernels give on x86-64 (the
    // cvttss2si "integer indefinite"). A plain static_cast would be undefined there. The CUDA
    // kernels follow the same rule, so a cast means one thing on every device.
    constexpr From kLimit = From(std::uint64_t{1} << (std::numeric_limits<To>::digits));
    if (!(v >= -kLimit && v < kLimit)) return std::numeric_limits<To>::lowest();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace eagle::kernels
