// The elementwise loop's store paths give identical values (Note [Streaming stores]).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cpu/broadcast_loop.hpp"

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

TEST_CASE("the streaming threshold is at least a cache's worth of bytes") {
  CHECK(eagle::cpu::detail::streaming_threshold_bytes() >= (std::int64_t{1} << 20));
}
