#include "cpu/streaming_stores.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>

#include "cpu/broadcast_loop.hpp"
#include "eagle/errors.hpp"

namespace eagle::cpu {

// Note [Streaming stores]: an op whose output will not stay in the caches anyway should write it
// with non-temporal stores: a plain store first reads the destination line (read-for-ownership),
// 4 memory streams for a binary op instead of 3 (add of 2^24 floats: ~70% -> ~90% of memcpy's
// bandwidth). An op whose working set fits the last-level cache should not: its output is still
// cached when the next op (or the next call) reads it, and streaming sends it to DRAM.
//
// Where that line falls cannot be read off the cache sizes the system reports:
//  - on the 2-core development VM sysfs reports the host socket's 320 MiB L3; an add of 2^20
//    floats (12 MiB) ran at 28 GB/s with plain stores and 43 GB/s streamed, so the cache that
//    core really had was far smaller (the old rule, min(L3, 8x L2), streamed from 8 MiB);
//  - on a second 2-core VM (L2 1 MiB, L3 32 MiB, both real) the same rule streamed that 12 MiB,
//    which fits: `add` 2^20 took 115 us streamed and 95-100 us plain (NumPy: 96), and axpy fell
//    to 0.63-0.82x NumPy.
// So the threshold is measured once per process, at the first op that could stream: a chain of
// adds C = A + B, A = C + B, ... (each pass reads the previous pass's output, as eager ops do)
// over working sets of 6, 12 and 24 MiB, timed with plain and with streaming stores (minimum of
// 2 passes each, after one untimed). The threshold is the first working set where streaming is
// at least 10% faster, twice in a row; when none is, 48 MiB (the next doubling). Ops below 6 MiB
// never stream.
// On the 32 MiB-L3 VM, plain/streamed: 6 MiB 47/120 us, 12 MiB 97/250, 24 MiB 235/500, so
// 48 MiB (axpy 2^20: 0.85-1.06x NumPy with the old 8 MiB, 1.20-1.45x with this, interleaved
// runs); under load from another process
// the two come closer (6 MiB 74/84 us) and the answer is still 48 MiB.
// It costs about 5 ms and 24 MiB touched once; EAGLE_STREAMING_THRESHOLD (a byte count
// such as 24MiB, or "never") replaces it. Values never depend on it: streaming changes only how
// the bytes reach memory (tests/broadcast_loop_test.cpp).

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kMiB = std::int64_t{1} << 20;
constexpr std::int64_t kCandidates[] = {6 * kMiB, 12 * kMiB, 24 * kMiB};
constexpr std::int64_t kSmallestCandidate = kCandidates[0];
constexpr std::int64_t kBeyondCandidates = 48 * kMiB;
constexpr double kMinGain = 0.9;  // streaming must take at most 90% of the plain time

// -1 until decided.
std::atomic<std::int64_t> g_threshold{-1};
std::mutex g_decide_mutex;  // guards the decision and g_origin
std::string g_origin;

struct Add {
  float operator()(float a, float b) const { return a + b; }
};

// The faster of two chained adds over three buffers of `n` floats, after one untimed.
double time_chain(float* a, const float* b, float* c, std::int64_t n, bool streaming) {
  double best = 1e30;
  for (int pass = 0; pass < 3; ++pass) {
    float* in = pass % 2 == 0 ? a : c;
    float* out = pass % 2 == 0 ? c : a;
    const auto t0 = Clock::now();
#if defined(__SSE2__)
    if (streaming) {
      detail::contiguous_streaming(in, b, out, n, Add{});
    } else {
      detail::inner_loop(in, 1, b, 1, out, n, Add{});
    }
#else
    detail::inner_loop(in, 1, b, 1, out, n, Add{});
#endif
    const double t = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    if (pass > 0) best = std::min(best, t);
  }
  return best;
}

std::int64_t calibrate(std::string& origin) {
#if !defined(__SSE2__)
  origin = "no streaming stores on this architecture";
  return kNeverStream;
#else
  // Three buffers for the largest working set, in one block of huge pages where the system
  // gives them: faulting in 24 MiB of 4 KiB pages took ~10 ms on the 2-core VM.
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const auto n_max = static_cast<std::size_t>(kCandidates[std::size(kCandidates) - 1] / 12);
  const std::size_t buffer_bytes = (n_max * 4 + kHuge - 1) / kHuge * kHuge;
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<void, Free> block(std::aligned_alloc(kHuge, 3 * buffer_bytes));
  if (!block) {
    origin = "calibration skipped (no memory): never stream";
    return kNeverStream;
  }
#if defined(MADV_HUGEPAGE)
  ::madvise(block.get(), 3 * buffer_bytes, MADV_HUGEPAGE);  // a hint; failure is harmless
#endif
  float* a = static_cast<float*>(block.get());
  float* b = a + buffer_bytes / 4;
  float* c = b + buffer_bytes / 4;
  std::fill_n(a, n_max, 1.0f);
  std::fill_n(b, n_max, 0.5f);
  std::fill_n(c, n_max, 0.0f);
  origin = "calibrated (chained add, plain vs streamed, min of 2):";
  for (const std::int64_t bytes : kCandidates) {
    const std::int64_t n = bytes / 12;
    const double plain = time_chain(a, b, c, n, false);
    const double streamed = time_chain(a, b, c, n, true);
    origin += fmt::format(" {} MiB {:.0f}/{:.0f} us;", bytes / kMiB, plain, streamed);
    if (streamed <= kMinGain * plain) {
      // Confirmed by a second measurement: a burst of load on the other core makes plain stores
      // look slow for a moment, and the choice stays for the process.
      const double plain2 = time_chain(a, b, c, n, false);
      const double streamed2 = time_chain(a, b, c, n, true);
      origin += fmt::format(" again {:.0f}/{:.0f} us;", plain2, streamed2);
      if (streamed2 <= kMinGain * plain2) return bytes;
    }
  }
  return kBeyondCandidates;
#endif
}

// EAGLE_STREAMING_THRESHOLD, read once: -1 when unset or empty.
std::int64_t env_threshold() {
  static const std::int64_t value = [] {
    const char* env = std::getenv("EAGLE_STREAMING_THRESHOLD");
    return env == nullptr || *env == '\0' ? std::int64_t{-1}
                                          : detail::parse_streaming_threshold(env);
  }();
  return value;
}

// Decides the threshold if nobody has: from the environment, else by calibration.
std::int64_t decide() {
  std::lock_guard<std::mutex> lock(g_decide_mutex);
  std::int64_t t = g_threshold.load(std::memory_order_acquire);
  if (t >= 0) return t;
  t = env_threshold();
  if (t >= 0) {
    g_origin =
        fmt::format("EAGLE_STREAMING_THRESHOLD={}", std::getenv("EAGLE_STREAMING_THRESHOLD"));
  } else {
    t = calibrate(g_origin);
  }
  g_threshold.store(t, std::memory_order_release);
  return t;
}

std::int64_t read_sysfs_size(const std::string& dir) {
  std::ifstream f(dir + "/size");
  std::string s;
  if (!(f >> s) || s.empty()) return 0;
  std::int64_t v = std::strtoll(s.c_str(), nullptr, 10);
  const char unit = s.back();
  if (unit == 'K') v <<= 10;
  if (unit == 'M') v <<= 20;
  return v;
}

int count_cpus(const std::string& list) {  // "0-3,8" -> 5
  int count = 0;
  std::size_t i = 0;
  while (i < list.size()) {
    char* end = nullptr;
    const long lo = std::strtol(list.c_str() + i, &end, 10);
    long hi = lo;
    i = static_cast<std::size_t>(end - list.c_str());
    if (i < list.size() && list[i] == '-') hi = std::strtol(list.c_str() + i + 1, &end, 10);
    i = static_cast<std::size_t>(end - list.c_str());
    count += static_cast<int>(hi - lo + 1);
    while (i < list.size() && !std::isdigit(static_cast<unsigned char>(list[i]))) ++i;
  }
  return count;
}

}  // namespace

bool streaming_stores_pay_off(std::int64_t bytes) {
  const std::int64_t t = g_threshold.load(std::memory_order_acquire);
  if (t >= 0) return bytes >= t;
  // Undecided: small ops neither stream nor calibrate, unless the environment says otherwise.
  if (bytes < kSmallestCandidate && env_threshold() < 0) return false;
  return bytes >= decide();
}

std::int64_t streaming_threshold_bytes() {
  const std::int64_t t = g_threshold.load(std::memory_order_acquire);
  return t >= 0 ? t : decide();
}

std::string streaming_threshold_origin() {
  streaming_threshold_bytes();
  std::lock_guard<std::mutex> lock(g_decide_mutex);
  return g_origin;
}

CacheSizes host_cache_sizes() {
  CacheSizes sizes;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}", index);
    std::ifstream level_file(dir + "/level"), type_file(dir + "/type"),
        shared_file(dir + "/shared_cpu_list");
    int level = 0;
    std::string type, shared;
    if (!(level_file >> level) || !(type_file >> type)) continue;
    shared_file >> shared;
    const std::int64_t size = read_sysfs_size(dir);
    if (level == 1 && type == "Data") sizes.l1d = size;
    if (level == 2) sizes.l2 = size, sizes.l2_shared = count_cpus(shared);
    if (level == 3) sizes.l3 = size, sizes.l3_shared = count_cpus(shared);
  }
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && \
    defined(_SC_LEVEL3_CACHE_SIZE)
  if (sizes.l1d == 0) sizes.l1d = std::max(0L, ::sysconf(_SC_LEVEL1_DCACHE_SIZE));
  if (sizes.l2 == 0) sizes.l2 = std::max(0L, ::sysconf(_SC_LEVEL2_CACHE_SIZE));
  if (sizes.l3 == 0) sizes.l3 = std::max(0L, ::sysconf(_SC_LEVEL3_CACHE_SIZE));
#endif
  return sizes;
}

namespace detail {

std::int64_t parse_streaming_threshold(const std::string& value) {
  const auto bad = [&] {
    return InvalidArgumentError(fmt::format(
        "Invalid EAGLE_STREAMING_THRESHOLD='{}': expected a byte count such as 25165824, 24MiB "
        "or 0 (always stream), or 'never'",
        value));
  };
  if (value == "never") return kNeverStream;
  std::size_t digits = 0;
  while (digits < value.size() && std::isdigit(static_cast<unsigned char>(value[digits]))) {
    ++digits;
  }
  if (digits == 0 || digits > 15) throw bad();
  const std::int64_t number = std::stoll(value.substr(0, digits));
  const std::string unit = value.substr(digits);
  int shift = 0;
  if (unit == "K" || unit == "KiB") {
    shift = 10;
  } else if (unit == "M" || unit == "MiB") {
    shift = 20;
  } else if (unit == "G" || unit == "GiB") {
    shift = 30;
  } else if (!unit.empty()) {
    throw bad();
  }
  if (number > (kNeverStream >> shift)) throw bad();
  return number << shift;
}

}  // namespace detail

}  // namespace eagle::cpu
