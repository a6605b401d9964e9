// 16-bit floating-point storage types. Arithmetic on the CPU converts to float32 and back
// (see Note [Half precision on the CPU] in src/kernels/numeric.hpp).
#pragma once

#include <cstdint>
#include <cstring>

namespace eagle {

namespace detail {
inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
}  // namespace detail

// IEEE 754 binary16. Conversion from float rounds to nearest, ties to even.
struct float16 {
  std::uint16_t bits = 0;

  float16() = default;
  explicit float16(float f) : bits(from_float(f)) {}
  explicit operator float() const { return to_float(bits); }

  static float16 from_bits(std::uint16_t b) {
    float16 h;
    h.bits = b;
    return h;
  }

  static std::uint16_t from_float(float f) {
    const std::uint32_t x = detail::float_bits(f);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    const std::uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // inf or nan
      return static_cast<std::uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    }
    if (abs >= 0x47800000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65536
    if (abs < 0x38800000u) {  // subnormal or zero in half: let the FPU round via a magic add
      const float magic = detail::bits_float(0x3f000000u);  // 0.5: aligns the half subnormal ulp
      const float v = detail::bits_float(abs) + magic;
      return static_cast<std::uint16_t>(sign | (detail::float_bits(v) - 0x3f000000u));
    }
    const std::uint32_t mant_odd = (abs >> 13) & 1u;
    std::uint32_t v = abs + 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
    return static_cast<std::uint16_t>(sign | (v >> 13));
  }

  static float to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1fu;
    const std::uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) return detail::bits_float(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
      // Subnormal: value = mant * 2^-24, exact in float.
      const float v = static_cast<float>(mant) * detail::bits_float(0x33800000u);
      return detail::bits_float(sign | detail::float_bits(v));
    }
    return detail::bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
  }
};

// bfloat16: the upper half of a float32. Conversion rounds to nearest, ties to even.
struct bfloat16 {
  std::uint16_t bits = 0;

  bfloat16() = default;
  explicit bfloat16(float f) : bits(from_float(f)) {}
  explicit operator float() const { return to_float(bits); }

  static bfloat16 from_bits(std::uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
  static std::uint16_t from_float(float f) {
    const std::uint32_t x = detail::float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
    const std::uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    return static_cast<std::uint16_t>((x + rounding) >> 16);
  }
  static float to_float(std::uint16_t b) {
    return detail::bits_float(static_cast<std::uint32_t>(b) << 16);
  }
};

inline bool operator==(float16 a, float16 b) { return float(a) == float(b); }
inline bool operator!=(float16 a, float16 b) { return !(a == b); }
inline bool operator==(bfloat16 a, bfloat16 b) { return float(a) == float(b); }
inline bool operator!=(bfloat16 a, bfloat16 b) { return !(a == b); }

}  // namespace eagle
