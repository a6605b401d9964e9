// libFuzzer target for DeviceName (docs/guide.md, "Device names"): arbitrary bytes must never
// crash the parser, and every text it accepts must satisfy the printing, merging and matching
// invariants.
// Build and run: see docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "eagle/device_name.hpp"
#include "eagle/errors.hpp"

namespace {

// __builtin_trap rather than assert: the check must stay on in any build mode.
void require(bool condition) {
  if (!condition) __builtin_trap();
}

void check_invariants(const eagle::DeviceName& x) {
  // Printing round trips, and the canonical text is itself valid.
  const std::optional<eagle::DeviceName> reparsed = eagle::DeviceName::try_parse(x.to_string());
  require(reparsed.has_value());
  require(*reparsed == x);
  require(reparsed->to_string() == x.to_string());
  // Merging is idempotent and the empty spec is its identity on both sides.
  require(x.merged_with(x) == x);
  require(eagle::DeviceName{}.merged_with(x) == x);
  require(x.merged_with(eagle::DeviceName{}) == x);
  // Every name answers to itself and to the empty spec.
  require(x.matches(x));
  require(x.matches(eagle::DeviceName{}));
  require(x.empty() == x.to_string().empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const std::optional<eagle::DeviceName> tried = eagle::DeviceName::try_parse(text);
  if (tried) check_invariants(*tried);

  // parse must agree with try_parse and fail only with InvalidArgumentError; anything else
  // escapes and libFuzzer reports it as a crash.
  try {
    const eagle::DeviceName parsed = eagle::DeviceName::parse(text);
    require(tried.has_value() && parsed == *tried);
  } catch (const eagle::InvalidArgumentError&) {
    require(!tried.has_value());
  }
  return 0;
}
