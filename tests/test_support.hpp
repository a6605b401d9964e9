// Helpers shared by the op and kernel tests: dtype traits and value conversions that treat
// float16/bfloat16 like the other floating types.
#pragma once

#include <type_traits>

#include "eagle/half.hpp"

namespace eagle_test {

template <class T>
inline constexpr bool kIsHalf =
    std::is_same_v<T, eagle::float16> || std::is_same_v<T, eagle::bfloat16>;
template <class T>
inline constexpr bool kIsFloat = std::is_floating_point_v<T> || kIsHalf<T>;

template <class T>
double to_d(T v) {
  if constexpr (kIsHalf<T>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

template <class T>
T from_d(double v) {
  if constexpr (kIsHalf<T>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace eagle_test
