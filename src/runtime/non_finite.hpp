// What CheckNumerics and enable_check_numerics report about a floating tensor: which kinds of
// non-finite values it holds, and TensorFlow's texts for them. Shared by the backends'
// CheckNumerics kernels and by the dispatcher's numerics check (check_numerics.cpp), so it lives in
// the runtime.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "eagle/errors.hpp"

namespace eagle::runtime {

// The non-finite values a tensor holds: counts (enable_check_numerics prints them) or, from a
// kernel that only needs to know, 0 or 1 each.
struct NonFiniteCounts {
  std::int64_t negative_inf = 0;
  std::int64_t positive_inf = 0;
  std::int64_t nan = 0;
  bool any() const { return negative_inf + positive_inf + nan > 0; }
};

// CheckNumerics: "<message> : Tensor had NaN values" (Inf, "Inf and NaN").
inline std::string check_numerics_status(const NonFiniteCounts& c) {
  const bool inf = c.negative_inf + c.positive_inf > 0;
  return inf && c.nan > 0 ? "Inf and NaN" : inf ? "Inf" : "NaN";
}

// CheckNumericsV2 (enable_check_numerics) tells the signs apart: "-Inf, +Inf, and NaN",
// "-Inf and NaN", "+Inf", ...
inline std::string check_numerics_v2_status(const NonFiniteCounts& c) {
  std::string kinds[3];
  int n = 0;
  if (c.negative_inf > 0) kinds[n++] = "-Inf";
  if (c.positive_inf > 0) kinds[n++] = "+Inf";
  if (c.nan > 0) kinds[n++] = "NaN";
  if (n == 3) return kinds[0] + ", " + kinds[1] + ", and " + kinds[2];
  if (n == 2) return kinds[0] + " and " + kinds[1];
  return n == 1 ? kinds[0] : std::string();
}

// CheckNumerics' error, from every backend: "<message> : Tensor had NaN values
// [Op:CheckNumerics]".
[[noreturn]] inline void throw_check_numerics(const std::string& message,
                                              const NonFiniteCounts& found) {
  throw InvalidArgumentError(fmt::format("{} : Tensor had {} values [Op:CheckNumerics]", message,
                                         check_numerics_status(found)));
}

}  // namespace eagle::runtime
