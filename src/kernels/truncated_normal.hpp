// The value of element `index` of TruncatedNormal with `seed`, for the CPU and CUDA kernels
// alike: standard normals (Box-Muller on Philox4x32-10 uniforms, in double) redrawn until one
// lies within two standard deviations, as TensorFlow's TruncatedNormal. Each element draws from
// its own counters, (attempt << 40) | index, so the values do not depend on the device, the
// thread count or the other elements; products are rounded one by one (no fused multiply-add)
// so both backends compute the same double.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/host_device.hpp"
#include "kernels/philox.hpp"

namespace eagle::kernels {

EAGLE_HOST_DEVICE inline double multiply_rounded(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

EAGLE_HOST_DEVICE inline double truncated_standard_normal(std::uint64_t seed, std::uint64_t index) {
  constexpr double kTwoPi = 6.283185307179586;
  for (std::uint64_t attempt = 1;; ++attempt) {
    const random::Block r = random::philox4x32_10((attempt << 40) | index, seed);
    const double u1 = random::uniform_double(r[0], r[1]);
    const double u2 = random::uniform_double(r[2], r[3]);
    const double radius = ::sqrt(multiply_rounded(-2.0, ::log(1.0 - u1)));  // 1 - u1 in (0, 1]
    const double angle = multiply_rounded(kTwoPi, u2);
    const double z0 = multiply_rounded(radius, ::cos(angle));
    if (::fabs(z0) < 2.0) return z0;
    const double z1 = multiply_rounded(radius, ::sin(angle));
    if (::fabs(z1) < 2.0) return z1;
  }
}

}  // namespace eagle::kernels
