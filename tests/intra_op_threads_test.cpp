// Intra-op parallelism (Note [Intra-op parallelism]): the pool's parallel_for, the
// config::threading knob, and ops whose values must not depend on the thread count.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "cpu/intra_op_pool.hpp"
#include "eagle/eagle.hpp"

namespace {

using eagle::Tensor;
namespace threading = eagle::config::threading;

// Restores the default thread count when a test ends, however it ends.
struct DefaultThreadsAfter {
  ~DefaultThreadsAfter() { threading::set_intra_op_parallelism_threads(0); }
};

// Values in [-1, 1) that are not exactly representable sums: rounding order shows in the results.
std::vector<float> pseudo_random(std::int64_t n, std::uint32_t seed) {
  std::vector<float> v(static_cast<std::size_t>(n));
  std::uint32_t s = seed;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / 8388608.0f - 1.0f;
  }
  return v;
}

template <class T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

}  // namespace

TEST_CASE("parallel_for covers every index once, in aligned ranges") {
  DefaultThreadsAfter restore;
  eagle::cpu::set_intra_op_threads(3);
  // Items of kMinChunkBytes / 4096 bytes: 3 chunks' worth, and 17 more.
  const std::int64_t n = 3 * 4096 + 17;
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
  std::atomic<int> ranges{0};
  std::atomic<bool> misaligned{false};
  eagle::cpu::parallel_for(
      n, eagle::cpu::kMinChunkBytes / 4096,
      [&](std::int64_t b, std::int64_t e) {
        ranges.fetch_add(1);
        if (b % 64 != 0) misaligned = true;
        for (std::int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)].fetch_add(1);
      },
      64);
  CHECK(ranges.load() == 3);
  CHECK_FALSE(misaligned.load());
  CHECK(std::all_of(hits.begin(), hits.end(), [](const std::atomic<int>& h) { return h == 1; }));
}

TEST_CASE("parallel_for runs small work on the calling thread in one range") {
  DefaultThreadsAfter restore;
  eagle::cpu::set_intra_op_threads(4);
  int calls = 0;
  std::thread::id where;
  eagle::cpu::parallel_for(eagle::cpu::kMinChunkBytes / 8, 8, [&](std::int64_t b, std::int64_t e) {
    ++calls;  // not atomic: a second thread here would be a data race for TSan to report
    where = std::this_thread::get_id();
    CHECK(b == 0);
    CHECK(e == eagle::cpu::kMinChunkBytes / 8);
  });
  CHECK(calls == 1);
  CHECK(where == std::this_thread::get_id());
}

TEST_CASE("parallel_for rethrows a chunk's exception and the pool keeps working") {
  DefaultThreadsAfter restore;
  eagle::cpu::set_intra_op_threads(2);
  const std::int64_t n = 4 * eagle::cpu::kMinChunkBytes;
  const auto failing = [&](std::int64_t b, std::int64_t) {
    if (b > 0) throw std::runtime_error("chunk failed");
  };
  CHECK_THROWS_WITH(eagle::cpu::parallel_for(n, 1, failing), "chunk failed");
  std::atomic<std::int64_t> covered{0};
  eagle::cpu::parallel_for(n, 1, [&](std::int64_t b, std::int64_t e) { covered += e - b; });
  CHECK(covered.load() == n);
}

TEST_CASE("nested parallel_for runs inline on a worker instead of waiting for the pool") {
  DefaultThreadsAfter restore;
  eagle::cpu::set_intra_op_threads(2);
  const std::int64_t n = 2 * eagle::cpu::kMinChunkBytes;
  std::atomic<std::int64_t> inner_items{0};
  eagle::cpu::parallel_for(n, 1, [&](std::int64_t, std::int64_t) {
    eagle::cpu::parallel_for(n, 1, [&](std::int64_t b, std::int64_t e) { inner_items += e - b; });
  });
  CHECK(inner_items.load() == 2 * n);
}

TEST_CASE("set_intra_op_parallelism_threads: 0 is the default, negative is refused") {
  DefaultThreadsAfter restore;
  CHECK(threading::get_intra_op_parallelism_threads() == 0);
  CHECK(eagle::cpu::intra_op_threads() >= 1);
  threading::set_intra_op_parallelism_threads(3);
  CHECK(threading::get_intra_op_parallelism_threads() == 3);
  CHECK(eagle::cpu::intra_op_threads() == 3);
  CHECK_THROWS_MATCHES(
      threading::set_intra_op_parallelism_threads(-2), eagle::InvalidArgumentError,
      Catch::Message(
          "intra_op_parallelism_threads must be >= 0 (0 picks the available CPUs), got -2"));
  CHECK(threading::get_intra_op_parallelism_threads() == 3);
  threading::set_intra_op_parallelism_threads(0);
  CHECK(threading::get_intra_op_parallelism_threads() == 0);
}

TEST_CASE("large ops give the same bits on 1, 2, 3 and 5 threads, and the right values") {
  DefaultThreadsAfter restore;
  // Odd sizes (uneven ranges and tiles), large enough to be split: 21 MB per float32 tensor.
  constexpr std::int64_t kRows = 2053, kCols = 2563;
  const std::vector<float> ha = pseudo_random(kRows * kCols, 1);
  const std::vector<float> hb = pseudo_random(kCols, 2);
  const std::vector<float> hlong = pseudo_random((std::int64_t{1} << 23) + 3, 3);  // 4 chunks
  const Tensor a = eagle::constant(ha, eagle::Shape{kRows, kCols});
  const Tensor b = eagle::constant(hb);
  const Tensor longv = eagle::constant(hlong);
  const Tensor a16 = eagle::cast(a, eagle::DType::kFloat16);

  const auto run_all = [&] {
    std::vector<std::vector<float>> r;
    r.push_back((a + a).to_vector<float>());                      // equal shapes
    r.push_back((a + b).to_vector<float>());                      // broadcast rows
    r.push_back((eagle::constant(0.5f) * a).to_vector<float>());  // scalar operand
    r.push_back(eagle::exp(a).to_vector<float>());                // unary
    r.push_back(eagle::reduce_sum(a, {0}).to_vector<float>());    // column tiles
    r.push_back(eagle::reduce_sum(a, {1}).to_vector<float>());    // rows
    r.push_back(eagle::reduce_mean(longv).to_vector<float>());    // one long row
    r.push_back(eagle::reduce_max(a, {0}).to_vector<float>());    // max over columns
    r.push_back(eagle::softmax(a).to_vector<float>());            // rows
    r.push_back(eagle::cast(eagle::softmax(a16), eagle::DType::kFloat32).to_vector<float>());
    r.push_back(eagle::nn::bias_add(a, b).to_vector<float>());  // rows, split
    {
      // BiasAddGrad(a): d sum(bias_add(a, b) * a) / d b. Rows summed in blocks spread over the
      // threads, added in block order.
      eagle::GradientTape tape;
      tape.watch(b);
      const Tensor y = eagle::nn::bias_add(a, b) * a;
      r.push_back(tape.gradient(y, {b})[0]->to_vector<float>());
    }
    return r;
  };
  threading::set_intra_op_parallelism_threads(1);
  const std::vector<std::vector<float>> one = run_all();
  for (const int threads : {2, 3, 5}) {
    threading::set_intra_op_parallelism_threads(threads);
    const std::vector<std::vector<float>> many = run_all();
    for (std::size_t i = 0; i < one.size(); ++i) {
      INFO("threads " << threads << ", result " << i);
      CHECK(bitwise_equal(one[i], many[i]));
    }
  }

  // Spot values against double-precision references.
  const auto at = [&](std::int64_t r, std::int64_t c) {
    return double{ha[static_cast<std::size_t>(r * kCols + c)]};
  };
  for (const std::int64_t c : {std::int64_t{0}, kCols / 2, kCols - 1}) {
    double column = 0;
    for (std::int64_t r = 0; r < kRows; ++r) column += at(r, c);
    CHECK(one[4][static_cast<std::size_t>(c)] == Approx(column).epsilon(1e-5));
    CHECK(one[11][static_cast<std::size_t>(c)] == Approx(column).epsilon(1e-5));
  }
  for (const std::int64_t r : {std::int64_t{0}, kRows / 2, kRows - 1}) {
    double row = 0;
    for (std::int64_t c = 0; c < kCols; ++c) row += at(r, c);
    CHECK(one[5][static_cast<std::size_t>(r)] == Approx(row).epsilon(1e-5));
    CHECK(one[1][static_cast<std::size_t>(r * kCols + 7)] ==
          static_cast<float>(ha[static_cast<std::size_t>(r * kCols + 7)] + hb[7]));
    CHECK(one[10][static_cast<std::size_t>(r * kCols + 7)] ==
          one[1][static_cast<std::size_t>(r * kCols + 7)]);
  }
  double total = 0;
  for (const float v : hlong) total += v;
  CHECK(one[6][0] == Approx(total / static_cast<double>(hlong.size())).margin(1e-6));
}

TEST_CASE("many threads share the pool while its size changes") {
  DefaultThreadsAfter restore;
  constexpr std::int64_t kN = std::int64_t{1} << 21;  // 24 MiB moved per add: 3 chunks
  const std::vector<float> hx = pseudo_random(kN, 4);
  std::vector<float> want(hx.size());
  for (std::size_t i = 0; i < hx.size(); ++i) want[i] = hx[i] + hx[i];
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> users;
  for (int t = 0; t < 6; ++t) {
    users.emplace_back([&] {
      const Tensor x = eagle::constant(hx);
      for (int i = 0; i < 20; ++i) {
        if (!bitwise_equal((x + x).to_vector<float>(), want)) ++wrong;
      }
    });
  }
  std::thread resizer([&] {
    for (int i = 0; !stop.load(); ++i) {
      threading::set_intra_op_parallelism_threads(1 + i % 4);
      std::this_thread::yield();
    }
  });
  for (std::thread& u : users) u.join();
  stop = true;
  resizer.join();
  CHECK(wrong.load() == 0);
}

// Note [Spinning before sleeping]

namespace {
// Restores the spin that EAGLE_INTRA_OP_SPIN_US (or the default) gives when a test ends.
struct DefaultSpinAfter {
  ~DefaultSpinAfter() { eagle::cpu::set_intra_op_spin_microseconds(-1); }
};
}  // namespace

TEST_CASE("EAGLE_INTRA_OP_SPIN_US takes whole microseconds from 0 to a second") {
  using eagle::cpu::detail::parse_intra_op_spin;
  CHECK(parse_intra_op_spin("0") == 0);
  CHECK(parse_intra_op_spin("300") == 300);
  CHECK(parse_intra_op_spin("0050") == 50);
  CHECK(parse_intra_op_spin("1000000") == 1000000);
  for (const char* bad : {"", "-1", "+5", "abc", "300us", "3.5", " 300", "1000001", "99999999"}) {
    CHECK_THROWS_MATCHES(
        parse_intra_op_spin(bad), eagle::InvalidArgumentError,
        Catch::Message(std::string("Invalid EAGLE_INTRA_OP_SPIN_US='") + bad +
                       "': expected whole microseconds from 0 (sleep at once) to 1000000"));
  }
}

TEST_CASE("the spin defaults to 300 us and a set value overrides the environment") {
  DefaultSpinAfter restore;
  const char* env = std::getenv("EAGLE_INTRA_OP_SPIN_US");
  const std::int64_t from_env = env == nullptr || *env == '\0'
                                    ? eagle::cpu::kDefaultIntraOpSpinMicroseconds
                                    : eagle::cpu::detail::parse_intra_op_spin(env);
  CHECK(eagle::cpu::kDefaultIntraOpSpinMicroseconds == 300);
  CHECK(eagle::cpu::intra_op_spin_microseconds() == from_env);
  eagle::cpu::set_intra_op_spin_microseconds(0);
  CHECK(eagle::cpu::intra_op_spin_microseconds() == 0);
  eagle::cpu::set_intra_op_spin_microseconds(12345);
  CHECK(eagle::cpu::intra_op_spin_microseconds() == 12345);
  eagle::cpu::set_intra_op_spin_microseconds(-1);
  CHECK(eagle::cpu::intra_op_spin_microseconds() == from_env);
}

TEST_CASE("polling and sleeping workers give the same bits and resized pools stop polling") {
  DefaultThreadsAfter restore_threads;
  DefaultSpinAfter restore_spin;
  constexpr std::int64_t kN = (std::int64_t{1} << 21) + 333;  // 3 chunks of an add
  const std::vector<float> hx = pseudo_random(kN, 9);
  const Tensor x = eagle::constant(hx);
  std::vector<float> want(hx.size());
  for (std::size_t i = 0; i < hx.size(); ++i) want[i] = hx[i] * hx[i] + hx[i];
  // A second of polling: workers are still polling when the next op comes, and when the pool
  // is replaced (its destructor must stop them, or the join waits for the second to pass).
  for (const std::int64_t spin : {std::int64_t{0}, std::int64_t{1000000}, std::int64_t{300}}) {
    eagle::cpu::set_intra_op_spin_microseconds(spin);
    for (const int threads : {2, 3, 2}) {
      threading::set_intra_op_parallelism_threads(threads);
      for (int i = 0; i < 5; ++i) {
        INFO("spin " << spin << " us, " << threads << " threads, op " << i);
        CHECK(bitwise_equal((x * x + x).to_vector<float>(), want));
      }
    }
  }
}

// Run by the ctest entry "intra_op_threads_test with a bad EAGLE_INTRA_OP_SPIN_US", which sets it.
TEST_CASE("a bad EAGLE_INTRA_OP_SPIN_US is an InvalidArgumentError from each parallel op",
          "[.bad_spin_env]") {
  const char* env = std::getenv("EAGLE_INTRA_OP_SPIN_US");
  REQUIRE(env != nullptr);
  REQUIRE(std::string(env) == "5ms");
  const std::string message =
      "Invalid EAGLE_INTRA_OP_SPIN_US='5ms': expected whole microseconds from 0 (sleep at once) "
      "to 1000000";
  DefaultThreadsAfter restore;
  threading::set_intra_op_parallelism_threads(2);
  const Tensor big = eagle::ones({std::int64_t{1} << 21});
  for (int attempt = 0; attempt < 2; ++attempt) {
    CHECK_THROWS_MATCHES(big + big, eagle::InvalidArgumentError, Catch::Message(message));
  }
  // Ops too small to split never reach the pool, and the tensor is intact.
  const Tensor small = eagle::ones({16});
  CHECK((small + small).to_vector<float>() == std::vector<float>(16, 2.0f));
  CHECK(eagle::reduce_sum(big).item<float>() == static_cast<float>(std::int64_t{1} << 21));
}
