// The elementwise loop's store paths give identical values (Note [Streaming stores]).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "cpu/broadcast_loop.hpp"
#include "cpu/streaming_stores.hpp"
#include "eagle/eagle.hpp"

namespace {

struct Add {
  template <class C>
  C operator()(C a, C b) const {
    return a + b;
  }
};
struct Less {
  template <class C>
  bool operator()(C a, C b) const {
    return a < b;
  }
};

// Streams into out + offset for every length up to 200, so the unaligned head, the whole
// cache lines and the tail are all exercised; compares with the plain loop.
template <class In, class Out, class F>
void check_streaming_matches_plain(F f) {
  std::vector<In> x(256), y(256);
  for (int i = 0; i < 256; ++i) {
    x[i] = static_cast<In>(i * 3 % 17);
    y[i] = static_cast<In>(i * 5 % 13);
  }
  for (int offset = 0; offset < 4; ++offset) {
    for (std::int64_t n = 0; n <= 200; ++n) {
      Out plain[256] = {}, streamed[256] = {};  // not std::vector: vector<bool> has no data()
      eagle::cpu::detail::inner_loop(x.data(), 1, y.data(), 1, plain + offset, n, f);
      eagle::cpu::detail::contiguous_streaming(x.data(), y.data(), streamed + offset, n, f);
      REQUIRE(std::equal(plain, plain + 256, streamed));
    }
  }
}

}  // namespace

#if defined(__SSE2__)
TEST_CASE("streaming stores write the same values as plain stores") {
  check_streaming_matches_plain<float, float>(Add{});
  check_streaming_matches_plain<double, double>(Add{});
  check_streaming_matches_plain<std::int32_t, std::int32_t>(Add{});
  check_streaming_matches_plain<float, bool>(Less{});
}
#endif

TEST_CASE("the streaming threshold is at least 6 MiB, or what the environment says") {
  // ctest runs each TEST_CASE in its own process, so this decides the process's threshold.
  if (std::getenv("EAGLE_STREAMING_THRESHOLD") == nullptr) {
    CHECK(eagle::cpu::streaming_threshold_bytes() >= (std::int64_t{6} << 20));
    CHECK_FALSE(eagle::cpu::streaming_stores_pay_off((std::int64_t{6} << 20) - 1));
    CHECK(eagle::cpu::streaming_threshold_origin().find("calibrated") != std::string::npos);
  }
}

TEST_CASE("EAGLE_STREAMING_THRESHOLD: byte counts with units, 'never', errors") {
  using eagle::cpu::detail::parse_streaming_threshold;
  CHECK(parse_streaming_threshold("0") == 0);
  CHECK(parse_streaming_threshold("25165824") == 25165824);
  CHECK(parse_streaming_threshold("24MiB") == (std::int64_t{24} << 20));
  CHECK(parse_streaming_threshold("24M") == (std::int64_t{24} << 20));
  CHECK(parse_streaming_threshold("512KiB") == (std::int64_t{512} << 10));
  CHECK(parse_streaming_threshold("1GiB") == (std::int64_t{1} << 30));
  CHECK(parse_streaming_threshold("never") == eagle::cpu::kNeverStream);
  for (const char* bad : {"", "-1", "24 MiB", "24mb", "abc", "1.5MiB", "99999999999999999999"}) {
    CHECK_THROWS_WITH(parse_streaming_threshold(bad),
                      Catch::Contains("Invalid EAGLE_STREAMING_THRESHOLD='" + std::string(bad)));
  }
}

TEST_CASE("large adds give the same values whichever store path the library takes") {
  // 2^22 + 13 floats: 48 MiB, streamed under any calibration outcome up to 48 MiB, with a tail.
  const std::int64_t n = (std::int64_t{1} << 22) + 13;
  std::vector<float> x(static_cast<std::size_t>(n)), y(x.size()), want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i % 1000) * 0.37f;
    y[i] = static_cast<float>(i % 777) * -0.11f;
    want[i] = x[i] + y[i];
  }
  const std::vector<float> got =
      eagle::add(eagle::constant(x), eagle::constant(y)).to_vector<float>();
  CHECK(got == want);
}
