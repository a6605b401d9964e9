// Element types and scalar arithmetic inside CUDA kernels: the device twins of
// src/backends/cpu/numeric.hpp, with the same semantics, so that a GPU result equals the CPU
// reference (Note [Half precision on the CPU] holds on the GPU too: 16-bit floats are loaded as
// float32, computed in float32 and rounded once, to nearest even, when stored).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "eagle/half.hpp"
#include "kernels/scalar_math.hpp"

namespace eagle::cuda {

// eagle's host storage types for 16-bit floats have the same bits as CUDA's.
template <class T>
struct device_storage {
  using type = T;
};
template <>
struct device_storage<float16> {
  using type = __half;
};
template <>
struct device_storage<bfloat16> {
  using type = __nv_bfloat16;
};
template <class T>
using storage_t = typename device_storage<T>::type;
static_assert(sizeof(__half) == sizeof(float16) && sizeof(__nv_bfloat16) == sizeof(bfloat16));

template <class S>
inline constexpr bool is_half_storage_v =
    std::is_same_v<S, __half> || std::is_same_v<S, __nv_bfloat16>;

// The type arithmetic happens in.
template <class S>
using compute_of_t = std::conditional_t<is_half_storage_v<S>, float, S>;

template <class S>
__device__ __forceinline__ compute_of_t<S> load_value(S v) {
  if constexpr (std::is_same_v<S, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<S, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return v;
  }
}

// Conversion with the CPU's rules: round to nearest even into 16-bit floats, TensorFlow's x86-64
// results from floating point to integers, != 0 into bool.
template <class To, class From>
__device__ __forceinline__ To convert_value(From v) {
  if constexpr (is_half_storage_v<From>) {
    return convert_value<To>(load_value(v));
  } else if constexpr (std::is_same_v<To, __half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{};
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // Note [Float to integer casts] in src/kernels/numeric.hpp (CUDA's own conversion saturates).
    constexpr From kLimit = From(std::uint64_t{1} << (std::numeric_limits<To>::digits));
    if (!(v >= -kLimit && v < kLimit)) return std::numeric_limits<To>::lowest();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Shared with the CPU kernels (Note [Maximum of equal values]).
using kernels::is_nan;
using kernels::nan_max;
using kernels::nan_min;
using kernels::wrap_add;
using kernels::wrap_mul;
using kernels::wrap_sub;

}  // namespace eagle::cuda
