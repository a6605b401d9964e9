// Out-of-memory storms on a small logical GPU: allocate until the allocator refuses, free half,
// allocate again, many times. Every refusal must be TensorFlow's OOM ResourceExhaustedError
// (docs/guide.md, "Configuring devices"), every surviving tensor must keep its values, and when
// everything is dropped the allocator must be back where it started (no leaked chunk, every region
// returnable). Scenario test: each TEST_CASE runs in its own process (tests/fresh_runtime.hpp).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "eagle/eagle.hpp"
#include "fresh_runtime.hpp"

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

struct Live {
  eagle::Tensor tensor;
  float value;
};

// One storm on GPU:0 of `limit_mib`; tensors of 0.25–6 MiB filled with their own value.
void storm(std::int64_t limit_mib, bool growth, int rounds) {
  const auto gpu = eagle::config::list_physical_devices("GPU").at(0);
  if (growth) {
    eagle::config::set_memory_growth(gpu, true);
  } else {
    eagle::config::set_logical_device_configuration(gpu, {{limit_mib}});
  }
  auto scope = eagle::device("/GPU:0");
  const eagle::config::MemoryInfo start = eagle::config::get_memory_info("GPU:0");
  REQUIRE(start.current == 0);

  std::mt19937 rng(42);
  std::vector<Live> live;
  int refusals = 0;
  float next_value = 1;
  for (int round = 0; round < rounds; ++round) {
    // Fill until refused.
    for (;;) {
      const std::int64_t rows = std::uniform_int_distribution<std::int64_t>(1, 24)(rng);
      const eagle::Shape shape{rows * 64, 1024};  // rows * 256 KiB
      try {
        live.push_back({eagle::fill(shape, next_value), next_value});
        next_value += 1;
      } catch (const eagle::ResourceExhaustedError& e) {
        const std::string expected_start = "OOM when allocating tensor with shape[" +
                                           std::to_string(shape[0]) +
                                           ",1024] and type float on "
                                           "/job:localhost/replica:0/task:0/device:GPU:0 by "
                                           "allocator GPU_0_bfc";
        REQUIRE(std::string(e.what()).rfind(expected_start, 0) == 0);
        ++refusals;
        break;
      }
    }
    const eagle::config::MemoryInfo full = eagle::config::get_memory_info("GPU:0");
    REQUIRE(full.current <= full.limit);
    REQUIRE(full.reserved <= full.limit);
    // Free every other tensor (fragmenting the free space), then check the survivors.
    std::vector<Live> kept;
    for (std::size_t i = 0; i < live.size(); ++i) {
      if (i % 2 == 0) kept.push_back(std::move(live[i]));
    }
    live = std::move(kept);
    for (const Live& l : live) {
      const float sum = eagle::reduce_sum(l.tensor).item<float>();
      REQUIRE(sum == l.value * static_cast<float>(l.tensor.num_elements()));
    }
  }
  CHECK(refusals == rounds);

  // The device still computes correctly after the storm.
  const auto a = eagle::fill({256, 256}, 0.5);
  const auto b = eagle::fill({256, 256}, 2.0);
  CHECK(eagle::reduce_sum(eagle::matmul(a, b)).item<float>() == 256.0f * 256 * 256);
}  // every tensor of the storm, and a and b, die here

void check_back_to_start() {
  const eagle::config::MemoryInfo end = eagle::config::get_memory_info("GPU:0");
  CHECK(end.current == 0);
  // Every chunk coalesced back into whole free regions: all of them can be returned.
  eagle::config::release_unused_memory("GPU:0");
  CHECK(eagle::config::get_memory_info("GPU:0").reserved == 0);
}

TEST_CASE("OOM storm on a 64 MiB logical GPU: refusals, survivors intact, nothing leaked") {
  EAGLE_FRESH_RUNTIME("1");
  storm(64, /*growth=*/false, /*rounds=*/60);
  check_back_to_start();
  const eagle::config::MemoryInfo info = eagle::config::get_memory_info("GPU:0");
  CHECK(info.limit == 64 * kMiB);
  CHECK(info.peak <= info.limit);
}

TEST_CASE("OOM storm with memory growth on a small simulated GPU") {
  // With growth, regions are added as the storm asks. The limit is the 2 GiB card less the
  // runtime's reserve for it, TensorFlow's MinSystemMemory: a few hundred MiB (docs/design.md,
  // "Devices: platforms, configuration, logical devices").
  EAGLE_FRESH_RUNTIME("1:2GiB");
  storm(0, /*growth=*/true, /*rounds=*/30);
  check_back_to_start();
  const eagle::config::MemoryInfo info = eagle::config::get_memory_info("GPU:0");
  CHECK(info.limit < 2048 * kMiB);
  CHECK(info.peak <= info.limit);
}

}  // namespace
