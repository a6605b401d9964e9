// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), the
// counter-based generator TensorFlow and JAX use. Element i of a random tensor depends only on
// (seed, i), so results do not depend on the device, the thread count or the chunking.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/host_device.hpp"

namespace eagle::random {

using Block = std::array<std::uint32_t, 4>;

EAGLE_HOST_DEVICE inline Block philox4x32_10(std::uint64_t counter, std::uint64_t seed) {
  constexpr std::uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  Block c = {static_cast<std::uint32_t>(counter), static_cast<std::uint32_t>(counter >> 32), 0u,
             0u};
  std::uint32_t k0 = static_cast<std::uint32_t>(seed);
  std::uint32_t k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t{kMul0} * c[0];
    const std::uint64_t p1 = std::uint64_t{kMul1} * c[2];
    c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<std::uint32_t>(p1),
         static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<std::uint32_t>(p0)};
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return c;
}

// Uniform in [0, 1) with 24 random bits (exactly representable in float32).
EAGLE_HOST_DEVICE inline float uniform_float(std::uint32_t bits) {
  return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}
// Uniform in [0, 1) with 53 random bits.
EAGLE_HOST_DEVICE inline double uniform_double(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t bits = (std::uint64_t{hi} << 21) ^ (lo >> 11);
  return static_cast<double>(bits & ((std::uint64_t{1} << 53) - 1)) * (1.0 / 9007199254740992.0);
}

}  // namespace eagle::random
