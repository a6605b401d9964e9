// 16 float lanes as GCC's generic vectors (one AVX-512 register, two AVX2 ones, four SSE2 ones),
// and their partial loads and stores: the vector type of eagle's own direct kernels (Note [Narrow
// convolutions], Note [Direct max pooling]). Included by variant sources only: each CPU variant
// compiles these helpers with its own instruction set, in its own namespace.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu/isa.hpp"

// Lanes values pass between the kernels' own inlined functions only: no ABI is crossed.
#pragma GCC diagnostic ignored "-Wpsabi"

#define EAGLE_ALWAYS_INLINE inline __attribute__((always_inline))

namespace eagle::cpu {
EAGLE_CPU_ISA_BEGIN
namespace simd {

constexpr int kLanes = 16;
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));
// What comparing two Lanes gives: all bits set where true.
typedef std::int32_t Mask __attribute__((vector_size(kLanes * sizeof(std::int32_t))));

// `lanes` floats from p, the rest zero: one unaligned load when `lanes` is a whole vector.
EAGLE_ALWAYS_INLINE Lanes load(const float* p, std::int64_t lanes) {
  Lanes v = {};
  if (lanes == kLanes) {
    std::memcpy(&v, p, sizeof v);
  } else {
    for (std::int64_t j = 0; j < lanes; ++j) v[j] = p[j];
  }
  return v;
}

EAGLE_ALWAYS_INLINE void store(float* p, const Lanes& v, std::int64_t lanes) {
  if (lanes == kLanes) {
    std::memcpy(p, &v, sizeof v);
  } else {
    for (std::int64_t j = 0; j < lanes; ++j) p[j] = v[j];
  }
}

// The lanes of the vector of channels at `c`: kWhole kernels run only where the channels are
// whole vectors (a multiple of kLanes), and know it at compile time.
template <bool kWhole>
EAGLE_ALWAYS_INLINE std::int64_t lanes_at(std::int64_t c, std::int64_t channels) {
  return kWhole ? kLanes : std::min<std::int64_t>(kLanes, channels - c);
}

}  // namespace simd
EAGLE_CPU_ISA_END
}  // namespace eagle::cpu
