// Case 5 of docs/performance.md, "Benchmark cases and targets": allocator churn. BfcAllocator
// over host regions (HostRegionProvider, the simulated GPU's provider), limit 1 GiB, growth on and
// off, against a raw mmap + munmap per pair (the host analogue of cudaMalloc + cudaFree: a fresh
// mapping, never touched).
//
// Patterns, each 100k alloc/free pairs per timed repetition (times reported per pair):
//   cycle   allocate then free at once, sizes cycling 4 KiB, 1 MiB, 16 MiB, 256 MiB
//   window  sizes drawn from the same four (seed 5), each allocation first freeing the older
//           of the 2 live blocks (up to 512 MiB live: splits, merges and best-fit choices
//           across regions). With 3 live (768 MiB) a single 1 GiB region fragments into holes
//           under 256 MiB now and then: real OOMs, which this timing case avoids.
// reserved_over_peak = bytes held from the provider / peak bytes in use. The target (<= 1.2)
// is for growth; without growth the allocator holds the whole limit by design.
// The check: every case ends with nothing in use and consistent chunk bookkeeping, and no OOM.
#include <sys/mman.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "eagle/dtype.hpp"
#include "eagle/errors.hpp"
#include "eagle/shape.hpp"
#include "memory/bfc_allocator.hpp"
#include "memory/host_region_provider.hpp"

namespace {

constexpr std::size_t KiB = std::size_t{1} << 10;
constexpr std::size_t MiB = std::size_t{1} << 20;
constexpr std::size_t kLimit = std::size_t{1} << 30;
constexpr std::array<std::size_t, 4> kSizes = {4 * KiB, 1 * MiB, 16 * MiB, 256 * MiB};
constexpr int kPairs = 100000;
constexpr int kWindow = 2;

std::vector<std::size_t> size_sequence(const std::string& pattern, int n) {
  std::vector<std::size_t> seq(static_cast<std::size_t>(n));
  std::mt19937 rng(5);
  for (int i = 0; i < n; ++i) {
    seq[static_cast<std::size_t>(i)] =
        pattern == "cycle" ? kSizes[static_cast<std::size_t>(i) % 4] : kSizes[rng() % 4];
  }
  return seq;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  const int reps = opt.reps_or(30, 10);
  const int warmup = opt.warmup_or(2, 1);
  const eagle::Shape shape{1};

  bench::Reporter rep;
  for (const std::string pattern : {"cycle", "window"}) {
    const std::vector<std::size_t> seq = size_sequence(pattern, kPairs);
    double bfc_growth_us = 0;
    for (const bool growth : {true, false}) {
      const std::string name = std::string("allocator_churn_") + pattern;
      if (!opt.selected(name, growth ? 1 : 0)) continue;
      eagle::memory::HostRegionProvider provider;
      eagle::memory::BfcAllocator alloc("GPU_0_bfc", "/job:localhost/replica:0/task:0/device:GPU:0",
                                        provider, {kLimit, growth});
      std::array<void*, kWindow> live{};
      long long ooms = 0;
      auto run = [&] {
        if (pattern == "cycle") {
          for (int i = 0; i < kPairs; ++i) {
            void* p = alloc.allocate(seq[static_cast<std::size_t>(i)], shape, eagle::float32);
            bench::do_not_optimize(p);
            alloc.deallocate(p);
          }
        } else {
          for (int i = 0; i < kPairs; ++i) {
            void*& slot = live[static_cast<std::size_t>(i % kWindow)];
            alloc.deallocate(slot);  // the oldest (nullptr at first: a no-op)
            try {
              slot = alloc.allocate(seq[static_cast<std::size_t>(i)], shape, eagle::float32);
            } catch (const eagle::ResourceExhaustedError&) {
              slot = nullptr;
              ++ooms;
            }
          }
        }
      };
      const bench::Stats s = bench::measure(run, warmup, reps);
      for (void*& p : live) {
        alloc.deallocate(p);
        p = nullptr;
      }
      const auto st = alloc.stats();
      bench::check(alloc.check_invariants().empty(),
                   "allocator bookkeeping: " + alloc.check_invariants());
      bench::check(st.bytes_in_use == 0, "bytes in use after the churn");
      bench::check(ooms == 0, fmt::format("{} OOMs under the 1 GiB limit", ooms));

      bench::Stats per_pair = s;
      per_pair.median_us /= kPairs;
      per_pair.min_us /= kPairs;
      per_pair.max_us /= kPairs;
      if (growth) bfc_growth_us = per_pair.median_us;
      bench::Record r;
      r.set("case", name).set("impl", "eagle_bfc").set("growth", growth);
      r.set(per_pair).set("unit", "us per alloc/free pair").set("pairs", kPairs);
      r.set("limit_bytes", static_cast<long long>(kLimit));
      r.set("reserved_bytes", static_cast<long long>(st.bytes_reserved));
      r.set("peak_in_use_bytes", static_cast<long long>(st.peak_bytes_in_use));
      r.set("reserved_over_peak",
            static_cast<double>(st.bytes_reserved) / static_cast<double>(st.peak_bytes_in_use));
      r.set("regions", st.num_regions);
      r.set("ooms", ooms);
      r.set("target_us", 0.2);
      rep.emit(std::move(r));
    }

    // Raw mmap + munmap per pair, untouched pages: what an allocator without a cache pays on
    // the host. Fewer pairs per repetition (it is ~100x slower); the time is per pair.
    const std::string name = std::string("allocator_churn_") + pattern;
    if (!opt.selected(name, 2)) continue;
    const int raw_pairs = kPairs / 10;
    std::array<std::pair<void*, std::size_t>, kWindow> raw_live{};
    bool failed = false;
    auto run_raw = [&] {
      for (int i = 0; i < raw_pairs; ++i) {
        const std::size_t n = seq[static_cast<std::size_t>(i)];
        if (pattern == "cycle") {
          void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
          failed |= p == MAP_FAILED;
          bench::do_not_optimize(p);
          ::munmap(p, n);
        } else {
          auto& slot = raw_live[static_cast<std::size_t>(i % kWindow)];
          if (slot.first) ::munmap(slot.first, slot.second);
          void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
          failed |= p == MAP_FAILED;
          slot = {p == MAP_FAILED ? nullptr : p, n};
        }
      }
    };
    bench::Stats s = bench::measure(run_raw, warmup, reps);
    for (auto& [p, n] : raw_live) {
      if (p) ::munmap(p, n);
      p = nullptr;
    }
    bench::check(!failed, "mmap failed");
    s.median_us /= raw_pairs;
    s.min_us /= raw_pairs;
    s.max_us /= raw_pairs;
    bench::Record r;
    r.set("case", name).set("impl", "raw_mmap").set(s).set("unit", "us per alloc/free pair");
    r.set("pairs", raw_pairs);
    if (bfc_growth_us > 0) r.set("ratio_vs_bfc_growth", s.median_us / bfc_growth_us);
    rep.emit(std::move(r));
  }

  rep.table(fmt::format("allocator churn: sizes 4K/1M/16M/256M, limit 1 GiB, host regions, "
                        "{} reps, us per alloc/free pair",
                        reps),
            {{"case", "case", 24, 0},
             {"impl", "impl", 10, 0},
             {"growth", "growth", 7, 0},
             {"median_us", "median_us", 10, 4},
             {"min_us", "min_us", 9, 4},
             {"max_us", "max_us", 9, 4},
             {"reserved/peak", "reserved_over_peak", 13, 3},
             {"regions", "regions", 8, 0}});
  return 0;
}
