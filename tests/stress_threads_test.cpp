// 16 threads, each with its own nested device scopes, run random op sequences on the CPU and two
// simulated GPUs while another thread reads memory statistics. Every result is checked exactly
// (small integers in float32, so every sum is exact) together with the device it ran on. Run
// under ThreadSanitizer by the tsan preset. Scenario test (tests/fresh_runtime.hpp).
#include <atomic>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "eagle/eagle.hpp"
#include "fresh_runtime.hpp"

namespace {

// Catch2 assertions are not thread-safe: workers record failures here, the test checks after.
class Failures {
 public:
  void add(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (messages_.size() < 10) messages_.push_back(what);
    ++count_;
  }
  int count() const { return count_.load(); }
  std::vector<std::string> messages() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return messages_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
  std::atomic<int> count_{0};
};

const char* const kDevices[] = {"/CPU:0", "/GPU:0", "/GPU:1"};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void check(Failures& failures, const eagle::Tensor& t, const std::vector<float>& expected,
           const std::string& device, const std::string& what) {
  if (!ends_with(t.device(), "device:" + device.substr(1))) {
    failures.add(what + " ran on " + t.device() + ", not " + device);
  }
  if (t.to_vector<float>() != expected) failures.add(what + " gave wrong values on " + device);
}

void worker(int id, int iterations, Failures& failures) {
  std::mt19937 rng(static_cast<unsigned>(1000 + id));
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  try {
    for (int it = 0; it < iterations; ++it) {
      const std::string outer = kDevices[pick(3)];
      const std::string inner = kDevices[pick(3)];
      auto outer_scope = eagle::device(outer);
      auto inner_scope = eagle::device(inner);
      const int n = 1 + pick(64);
      std::vector<float> xv(static_cast<std::size_t>(n)), yv(xv.size());
      for (std::size_t i = 0; i < xv.size(); ++i) {
        xv[i] = static_cast<float>(pick(21) - 10);
        yv[i] = static_cast<float>(pick(21) - 10);
      }
      const auto x = eagle::constant(xv);
      const auto y = eagle::constant(yv);
      std::vector<float> expected(xv.size());
      switch (pick(5)) {
        case 0:
          for (std::size_t i = 0; i < xv.size(); ++i) expected[i] = xv[i] + yv[i];
          check(failures, eagle::add(x, y), expected, inner, "add");
          break;
        case 1:
          for (std::size_t i = 0; i < xv.size(); ++i) expected[i] = xv[i] * yv[i];
          check(
              failures, eagle::relu(eagle::multiply(x, y)),
              [&] {
                for (float& e : expected) e = e < 0 ? 0 : e;
                return expected;
              }(),
              inner, "relu(multiply)");
          break;
        case 2:
          check(failures, eagle::reshape(eagle::reduce_sum(x), {1}),
                {std::accumulate(xv.begin(), xv.end(), 0.0f)}, inner, "reduce_sum");
          break;
        case 3: {
          const auto dot = eagle::matmul(eagle::reshape(x, {1, n}), eagle::reshape(y, {n, 1}));
          check(failures, eagle::reshape(dot, {1}),
                {std::inner_product(xv.begin(), xv.end(), yv.begin(), 0.0f)}, inner, "matmul");
          break;
        }
        default: {
          // concat then slice back out: the second half is y.
          const auto both = eagle::concat({x, y}, 0);
          check(failures, eagle::slice(both, {n}, {n}), yv, inner, "concat+slice");
          break;
        }
      }
      // A tensor made on one device and used on another from this thread.
      if (it % 16 == 0) {
        const std::string other = kDevices[pick(3)];
        auto other_scope = eagle::device(other);
        std::vector<float> doubled(xv.size());
        for (std::size_t i = 0; i < xv.size(); ++i) doubled[i] = 2 * xv[i];
        check(failures, eagle::add(x, x), doubled, other, "add across devices");
      }
    }
  } catch (const std::exception& e) {
    failures.add(std::string("worker threw: ") + e.what());
  }
}

TEST_CASE("16 threads with nested scopes run random ops on CPU and GPUs, stats read alongside") {
  EAGLE_FRESH_RUNTIME("2");
  constexpr int kThreads = 16;
  constexpr int kIterations = 150;
  Failures failures;
  std::atomic<bool> done{false};
  std::atomic<int> stat_reads{0};
  std::thread reader([&] {
    while (!done.load()) {
      for (const char* gpu : {"GPU:0", "GPU:1"}) {
        const eagle::config::MemoryInfo info = eagle::config::get_memory_info(gpu);
        if (info.current > info.reserved || info.reserved > info.limit ||
            info.peak < info.current) {
          failures.add(std::string("inconsistent memory statistics on ") + gpu);
        }
        stat_reads.fetch_add(1);
      }
    }
  });
  std::vector<std::thread> workers;
  for (int id = 0; id < kThreads; ++id) {
    workers.emplace_back(worker, id, kIterations, std::ref(failures));
  }
  for (std::thread& t : workers) t.join();
  done.store(true);
  reader.join();

  INFO("first failures: " << [&] {
    std::string all;
    for (const std::string& m : failures.messages()) all += "\n  " + m;
    return all;
  }());
  CHECK(failures.count() == 0);
  CHECK(stat_reads.load() > 0);
  // Every tensor is gone: nothing is left in use on either GPU.
  CHECK(eagle::config::get_memory_info("GPU:0").current == 0);
  CHECK(eagle::config::get_memory_info("GPU:1").current == 0);
}

}  // namespace
