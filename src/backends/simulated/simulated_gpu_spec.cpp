#include "simulated/simulated_gpu_spec.hpp"

#include <charconv>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "eagle/errors.hpp"

namespace eagle::simulated {
namespace {

[[noreturn]] void throw_invalid(std::string_view text, std::string_view why) {
  throw InvalidArgumentError(fmt::format(
      "Invalid EAGLE_SIMULATED_GPUS='{}': {}. Expected N or N:SIZE with 0 <= N <= {} and SIZE "
      "like 512MiB, 16GiB or 8GB (e.g. EAGLE_SIMULATED_GPUS=2:16GiB)",
      text, why, kMaxSimulatedGpus));
}

// Parses all of `digits` as a non-negative integer; false on anything else or overflow.
bool parse_whole(std::string_view digits, std::uint64_t& value) {
  if (digits.empty()) return false;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return ec == std::errc() && end == digits.data() + digits.size();
}

std::size_t parse_size(std::string_view full, std::string_view size) {
  std::size_t digits_end = 0;
  while (digits_end < size.size() && size[digits_end] >= '0' && size[digits_end] <= '9')
    ++digits_end;
  std::uint64_t number = 0;
  if (!parse_whole(size.substr(0, digits_end), number)) {
    throw_invalid(full, "SIZE must start with a whole number");
  }
  const std::string_view unit = size.substr(digits_end);
  struct Unit {
    std::string_view name;
    std::uint64_t bytes;
  };
  static constexpr Unit kUnits[] = {{"", 1},
                                    {"B", 1},
                                    {"KiB", 1ull << 10},
                                    {"MiB", 1ull << 20},
                                    {"GiB", 1ull << 30},
                                    {"TiB", 1ull << 40},
                                    {"KB", 1000ull},
                                    {"MB", 1000000ull},
                                    {"GB", 1000000000ull},
                                    {"TB", 1000000000000ull}};
  for (const Unit& u : kUnits) {
    if (u.name != unit) continue;
    if (number > std::numeric_limits<std::size_t>::max() / u.bytes) {
      throw_invalid(full, "SIZE is too large");
    }
    const std::size_t bytes = static_cast<std::size_t>(number * u.bytes);
    if (bytes < (std::size_t{1} << 20)) throw_invalid(full, "SIZE must be at least 1MiB");
    return bytes;
  }
  throw_invalid(full, fmt::format("unknown unit '{}'", unit));
}

}  // namespace

SimulatedGpuSpec parse_simulated_gpu_spec(std::string_view text) {
  SimulatedGpuSpec spec;
  const auto colon = text.find(':');
  const std::string_view count = text.substr(0, colon);
  std::uint64_t n = 0;
  if (!parse_whole(count, n)) throw_invalid(text, "N must be a whole number");
  if (n > static_cast<std::uint64_t>(kMaxSimulatedGpus)) throw_invalid(text, "N is too large");
  spec.count = static_cast<int>(n);
  if (colon != std::string_view::npos) spec.memory_bytes = parse_size(text, text.substr(colon + 1));
  return spec;
}

}  // namespace eagle::simulated
