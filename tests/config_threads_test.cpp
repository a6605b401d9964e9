// Config calls, initialization and ops racing from many threads (run under ThreadSanitizer by
// the tsan preset): no crash, no torn state, every result right, and the frozen configuration
// is the one the runtime was built from.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "eagle/eagle.hpp"
#include "fresh_runtime.hpp"

TEST_CASE("config setters, memory queries and ops race, the frozen config matches the devices") {
  EAGLE_FRESH_RUNTIME("2:1GiB");
  const auto gpus = eagle::config::list_physical_devices("GPU");
  REQUIRE(gpus.size() == 2);
  eagle::config::set_visible_devices(gpus[0], "GPU");

  std::atomic<bool> go{false};
  std::atomic<int> failures{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      try {
        for (int i = 0; i < 200; ++i) {
          auto scope = eagle::device(t % 2 == 0 ? "/GPU:0" : "/CPU:0");
          const auto x = eagle::constant({float(i), float(t)}) + 1.0f;
          const auto v = x.to_vector<float>();
          if (v[0] != float(i + 1) || v[1] != float(t + 1)) failures.fetch_add(1);
          const auto info = eagle::config::get_memory_info("GPU:0");
          if (info.current > info.limit || info.reserved > info.limit) failures.fetch_add(1);
        }
      } catch (...) {
        failures.fetch_add(1);
      }
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      // At least 200 rounds, and on until the runtime has initialized under them.
      for (int i = 0; i < 200 || (refused.load() == 0 && i < 10'000'000); ++i) {
        try {
          if (eagle::config::list_physical_devices().size() != 3) failures.fetch_add(1);
          eagle::config::set_visible_devices(gpus[0], "GPU");  // the same list: always allowed
          eagle::config::set_memory_growth(gpus[0], (i + t) % 2 == 0);
        } catch (const eagle::FailedPreconditionError&) {
          refused.fetch_add(1);  // frozen: the runtime initialized meanwhile
        } catch (...) {
          failures.fetch_add(1);
        }
        eagle::config::set_soft_device_placement(i % 2 == 0);
        if (eagle::config::get_visible_devices("GPU").size() != 1) failures.fetch_add(1);
      }
      eagle::config::set_soft_device_placement(true);
    });
  }
  go.store(true);
  for (auto& th : threads) th.join();

  CHECK(failures.load() == 0);
  CHECK(refused.load() > 0);
  CHECK(eagle::config::list_logical_devices().size() == 2);
  // Whatever growth setting won the race is the one the allocator was built with.
  const bool growth = eagle::config::get_memory_growth(gpus[0]).value_or(false);
  const auto info = eagle::config::get_memory_info("GPU:0");
  INFO("growth=" << growth << " reserved=" << info.reserved);
  if (growth) {
    CHECK(info.reserved < info.limit);
  } else {
    CHECK(info.reserved == info.limit);
  }
}
