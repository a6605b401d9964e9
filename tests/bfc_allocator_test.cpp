// BfcAllocator (docs/design.md, "Device memory") on host regions: rounding, best fit, coalescing,
// growth, the limit, OOM text and recovery, release of free regions, stats, threads; and
// HostRegionProvider committing memory only when touched.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "eagle/dtype.hpp"
#include "eagle/errors.hpp"
#include "eagle/shape.hpp"
#include "memory/bfc_allocator.hpp"
#include "memory/host_region_provider.hpp"

using eagle::memory::BfcAllocator;
using eagle::memory::HostRegionProvider;

namespace {

constexpr std::size_t KiB = std::size_t{1} << 10;
constexpr std::size_t MiB = std::size_t{1} << 20;
constexpr std::size_t GiB = std::size_t{1} << 30;
const std::string kDevice = "/job:localhost/replica:0/task:0/device:GPU:0";

// A provider and an allocator over it, in that order (the provider must outlive it).
struct Bfc {
  explicit Bfc(std::size_t limit, bool growth,
               std::size_t capacity = HostRegionProvider::kUnlimited)
      : provider(capacity), alloc("GPU_0_bfc", kDevice, provider, {limit, growth}) {}
  HostRegionProvider provider;
  BfcAllocator alloc;

  void* get(std::size_t bytes) {
    return alloc.allocate(bytes, eagle::Shape{static_cast<std::int64_t>(bytes)}, eagle::float32);
  }
  void put(void* p) { alloc.deallocate(p); }
  BfcAllocator::Stats stats() const { return alloc.stats(); }
  std::vector<std::size_t> regions() const { return alloc.region_sizes(); }
  void check() const { REQUIRE(alloc.check_invariants() == ""); }
};

std::uintptr_t addr(void* p) { return reinterpret_cast<std::uintptr_t>(p); }
using Sizes = std::vector<std::size_t>;

// Resident set size in bytes, from /proc/self/statm (second field, in pages).
std::size_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  REQUIRE(f != nullptr);
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  REQUIRE(n == 2);
  return static_cast<std::size_t>(resident) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

// ---- Regions: growth and no growth
// ---------------------------------------------------------------

TEST_CASE("growth: regions of 2, 4, 8 MiB, the last capped at the limit") {
  Bfc b(10 * MiB + 512 * KiB, true);
  CHECK(b.regions().empty());
  void* a1 = b.get(2 * MiB);  // fills the 2 MiB first region exactly
  CHECK(b.regions() == Sizes{2 * MiB});
  void* a2 = b.get(1 * MiB);  // needs a new region: 4 MiB
  CHECK(b.regions() == Sizes{2 * MiB, 4 * MiB});
  void* a3 = b.get(3 * MiB + 512 * KiB);  // 3 MiB free in region 2: a third, 8 MiB capped to 4.5
  CHECK(b.regions() == Sizes{2 * MiB, 4 * MiB, 4 * MiB + 512 * KiB});
  CHECK(b.stats().bytes_reserved == 10 * MiB + 512 * KiB);
  void* a4 = b.get(3 * MiB);  // fits the rest of region 2 (3 MiB)
  void* a5 = b.get(1 * MiB);  // the rest of region 3
  CHECK(b.regions().size() == 3);
  CHECK(b.stats().bytes_in_use == 10 * MiB + 512 * KiB);
  CHECK_THROWS_AS(b.get(1), eagle::ResourceExhaustedError);
  CHECK(b.stats().bytes_reserved == 10 * MiB + 512 * KiB);
  b.check();
  for (void* p : {a1, a2, a3, a4, a5}) b.put(p);
  b.check();
}

TEST_CASE("growth: a request bigger than the planned region doubles the plan until it fits") {
  // TensorFlow's BFCAllocator::Extend: regions are the first size times a power of two.
  Bfc b(GiB, true);
  void* a = b.get(1 * KiB);
  CHECK(b.regions() == Sizes{2 * MiB});
  void* c = b.get(20 * MiB);  // the plan, 4 MiB, doubles to 32 MiB; not doubled again after
  CHECK(b.regions() == Sizes{2 * MiB, 32 * MiB});
  void* d = b.get(30 * MiB);  // 12 MiB left in region 2: a region of the plan, 32 MiB
  CHECK(b.regions() == Sizes{2 * MiB, 32 * MiB, 32 * MiB});
  void* e = b.get(1 * MiB);  // fits in the first region
  CHECK(b.regions().size() == 3);
  void* f = b.get(40 * MiB);  // taken at the plan, so the plan doubled: 64 MiB
  CHECK(b.regions() == Sizes{2 * MiB, 32 * MiB, 32 * MiB, 64 * MiB});
  CHECK(b.stats().bytes_reserved == 130 * MiB);
  b.check();
  for (void* p : {a, c, d, e, f}) b.put(p);
  b.check();
}

TEST_CASE("growth: two live blocks of the largest size get two regions of that size") {
  // The allocator_churn window case: the doubling used to give the second 256 MiB block a
  // 512 MiB region (reserved / peak 1.5).
  Bfc b(GiB, true);
  void* a = b.get(256 * MiB);
  void* c = b.get(256 * MiB);
  CHECK(b.regions() == Sizes{256 * MiB, 256 * MiB});
  b.check();
  b.put(a);
  b.put(c);
}

TEST_CASE("growth: a limit under 2 MiB is the first region") {
  Bfc b(1 * MiB, true);
  void* p = b.get(100);
  CHECK(b.regions() == Sizes{1 * MiB});
  b.put(p);
}

TEST_CASE("growth: chunks of different regions never merge") {
  Bfc b(GiB, true);
  void* a = b.get(2 * MiB);
  void* c = b.get(4 * MiB);
  CHECK(b.regions() == Sizes{2 * MiB, 4 * MiB});
  b.put(a);
  b.put(c);
  CHECK(b.stats().largest_free_block == 4 * MiB);  // even if mmap placed them side by side
  b.check();
}

TEST_CASE("no growth: the first region is the whole limit, taken at the first allocation") {
  Bfc b(64 * MiB, false);
  CHECK(b.stats().bytes_reserved == 0);
  CHECK(b.provider.regions_outstanding() == 0);
  void* p = b.get(1 * KiB);
  CHECK(b.regions() == Sizes{64 * MiB});
  CHECK(b.stats().bytes_reserved == 64 * MiB);
  CHECK(b.provider.bytes_outstanding() == 64 * MiB);
  void* q = b.get(32 * MiB);
  CHECK(b.regions() == Sizes{64 * MiB});
  b.put(p);
  b.put(q);
  CHECK(b.stats().bytes_reserved == 64 * MiB);  // kept: a cache, not returned on free
}

TEST_CASE("no growth: a limit that is not a multiple of 256 gives a region rounded down") {
  Bfc b(1000000, false);
  void* p = b.get(1);
  CHECK(b.regions() == Sizes{999936});
  CHECK(b.stats().bytes_limit == 1000000);
  b.put(p);
}

// ---- Rounding and best fit
// ------------------------------------------------------------------------

TEST_CASE("sizes are rounded up to 256 bytes and pointers are 256-aligned") {
  Bfc b(16 * MiB, false);
  void* p1 = b.get(1);
  CHECK(b.stats().bytes_in_use == 256);
  void* p2 = b.get(256);
  CHECK(b.stats().bytes_in_use == 512);
  void* p3 = b.get(257);
  CHECK(b.stats().bytes_in_use == 1024);
  void* p4 = b.get(0);  // 0 bytes: a 256-byte chunk, a distinct pointer
  CHECK(p4 != nullptr);
  CHECK(b.stats().bytes_in_use == 1280);
  for (void* p : {p1, p2, p3, p4}) CHECK(addr(p) % 256 == 0);
  // Carved one after another from the front of the region.
  CHECK(addr(p2) == addr(p1) + 256);
  CHECK(addr(p3) == addr(p2) + 256);
  CHECK(addr(p4) == addr(p3) + 512);
  for (void* p : {p1, p2, p3, p4}) b.put(p);
  CHECK(b.stats().bytes_in_use == 0);
  b.check();
}

TEST_CASE("best fit: the smallest free chunk that fits, the lowest address on ties") {
  Bfc b(16 * MiB, false);
  // Holes of 3K, 1K, 2K and 1K, each followed by a live 256-byte spacer, then the free tail.
  void* h3k = b.get(3 * KiB);
  void* s1 = b.get(256);
  void* h1k = b.get(1 * KiB);
  void* s2 = b.get(256);
  void* h2k = b.get(2 * KiB);
  void* s3 = b.get(256);
  void* h1k_b = b.get(1 * KiB);
  void* s4 = b.get(256);
  const std::uintptr_t tail = addr(s4) + 256;
  for (void* p : {h3k, h1k, h2k, h1k_b}) b.put(p);
  b.check();

  void* x = b.get(1536);  // 1.5K: the 2K hole, not the 3K one nor the tail
  CHECK(x == h2k);
  void* y = b.get(900);  // rounds to 1K: the lower of the two 1K holes
  CHECK(y == h1k);
  void* z = b.get(1 * KiB);  // the other 1K hole
  CHECK(z == h1k_b);
  void* w = b.get(2560);  // 2.5K: the 3K hole, split
  CHECK(w == h3k);
  // Two 512-byte rests now (of the 3K and the 2K hole): the lower address wins.
  void* v = b.get(512);
  CHECK(addr(v) == addr(h3k) + 2560);
  void* v2 = b.get(512);
  CHECK(addr(v2) == addr(h2k) + 1536);
  void* u = b.get(4 * KiB);  // nothing that small left: the tail
  CHECK(addr(u) == tail);
  b.check();
  for (void* p : {s1, s2, s3, s4, x, y, z, w, v, v2, u}) b.put(p);
  b.check();
  CHECK(b.stats().largest_free_block == 16 * MiB);
}

// ---- Fragmentation and coalescing
// ------------------------------------------------------------------

TEST_CASE("coalescing: freeing the middle, then its neighbours, leaves one chunk") {
  Bfc b(8 * MiB, false);
  void* a = b.get(2 * MiB);
  void* m = b.get(2 * MiB);
  void* c = b.get(2 * MiB);
  void* d = b.get(2 * MiB);  // the region is full
  b.put(m);
  CHECK(b.stats().largest_free_block == 2 * MiB);
  CHECK_THROWS_AS(b.get(4 * MiB), eagle::ResourceExhaustedError);  // fragmented: 2 MiB holes
  b.put(a);  // merges with the free middle on its right
  CHECK(b.stats().largest_free_block == 4 * MiB);
  b.put(c);  // merges with the free run on its left
  CHECK(b.stats().largest_free_block == 6 * MiB);
  b.check();
  void* big = b.get(6 * MiB);  // one chunk: a large allocation fits where a was
  CHECK(big == a);
  b.put(big);
  b.put(d);
  CHECK(b.stats().largest_free_block == 8 * MiB);
  void* whole = b.get(8 * MiB);
  CHECK(whole == a);
  b.put(whole);
  b.check();
}

TEST_CASE("coalescing: random churn keeps chunks contiguous and never overlapping") {
  Bfc b(64 * MiB, true);
  std::mt19937_64 rng(42);
  std::map<std::uintptr_t, std::size_t> live;  // address -> rounded size
  std::vector<void*> ptrs;
  for (int step = 0; step < 4000; ++step) {
    if (ptrs.empty() || (rng() % 100 < 55 && ptrs.size() < 200)) {
      const std::size_t sizes[] = {1, 256, 1000, 4 * KiB, 100 * KiB, 1 * MiB, 3 * MiB};
      const std::size_t n = sizes[rng() % 7] + rng() % 512;
      void* p = nullptr;
      try {
        p = b.get(n);
      } catch (const eagle::ResourceExhaustedError&) {
        continue;
      }
      const std::size_t rounded = (n + 255) / 256 * 256;
      auto next = live.lower_bound(addr(p));
      if (next != live.end()) REQUIRE(addr(p) + rounded <= next->first);
      if (next != live.begin()) {
        auto prev = std::prev(next);
        REQUIRE(prev->first + prev->second <= addr(p));
      }
      live.emplace(addr(p), rounded);
      ptrs.push_back(p);
    } else {
      const std::size_t i = rng() % ptrs.size();
      live.erase(addr(ptrs[i]));
      b.put(ptrs[i]);
      ptrs[i] = ptrs.back();
      ptrs.pop_back();
    }
    if (step % 50 == 0) REQUIRE(b.alloc.check_invariants() == "");
  }
  for (void* p : ptrs) b.put(p);
  b.check();
  CHECK(b.stats().bytes_in_use == 0);
  const std::size_t reserved = b.stats().bytes_reserved;
  CHECK(b.alloc.release_unused() == reserved);  // every region coalesced back to one chunk
  CHECK(b.stats().bytes_reserved == 0);
  CHECK(b.provider.regions_outstanding() == 0);
}

// ---- The limit and OOM
// ----------------------------------------------------------------------------

TEST_CASE("limit: exactly reachable, one byte more is OOM (no growth)") {
  Bfc b(4 * MiB, false);
  void* p = b.get(4 * MiB);
  CHECK(b.stats().bytes_in_use == 4 * MiB);
  CHECK_THROWS_AS(b.get(1), eagle::ResourceExhaustedError);
  b.put(p);
  CHECK_THROWS_AS(b.get(4 * MiB + 1), eagle::ResourceExhaustedError);
  p = b.get(4 * MiB);
  b.put(p);
  CHECK(b.stats().num_ooms == 2);
}

TEST_CASE("limit: exactly reachable, one byte more is OOM (growth)") {
  Bfc b(10 * MiB, true);
  void* p1 = b.get(2 * MiB);
  void* p2 = b.get(4 * MiB);
  void* p3 = b.get(4 * MiB);  // the third region is capped: 8 MiB would pass the limit
  CHECK(b.regions() == Sizes{2 * MiB, 4 * MiB, 4 * MiB});
  CHECK(b.stats().bytes_reserved == 10 * MiB);
  CHECK_THROWS_AS(b.get(1), eagle::ResourceExhaustedError);
  CHECK(b.stats().bytes_reserved <= b.stats().bytes_limit);
  for (void* p : {p1, p2, p3}) b.put(p);

  Bfc fresh(10 * MiB, true);
  void* whole = fresh.get(10 * MiB);  // a first request of the whole limit
  CHECK(fresh.regions() == Sizes{10 * MiB});
  CHECK_THROWS_AS(fresh.get(1), eagle::ResourceExhaustedError);
  fresh.put(whole);
  Bfc over(10 * MiB, true);
  CHECK_THROWS_AS(over.get(10 * MiB + 1), eagle::ResourceExhaustedError);
  CHECK(over.stats().bytes_reserved == 0);
}

TEST_CASE("limit: the usable limit is rounded down to 256 bytes") {
  Bfc b(1000, false);
  void* p = b.get(768);
  b.put(p);
  CHECK_THROWS_AS(b.get(769), eagle::ResourceExhaustedError);  // 1024 > 768 usable bytes
  Bfc zero(0, true);
  CHECK_THROWS_AS(zero.get(0), eagle::ResourceExhaustedError);
}

TEST_CASE("OOM: TensorFlow's message text, exactly") {
  HostRegionProvider provider;
  BfcAllocator alloc("GPU_0_bfc", kDevice, provider, {1 * MiB, false});
  try {
    alloc.allocate(std::size_t{2048} * 768 * 4, eagle::Shape{2048, 768}, eagle::float32);
    FAIL("no OOM");
  } catch (const eagle::ResourceExhaustedError& e) {
    CHECK(std::string(e.what()) ==
          "OOM when allocating tensor with shape[2048,768] and type float on "
          "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc");
    CHECK(e.code() == eagle::ErrorCode::kResourceExhausted);
  }
  BfcAllocator gpu1("GPU_1_bfc", "/job:localhost/replica:0/task:0/device:GPU:1", provider,
                    {1 * MiB, true});
  try {
    gpu1.allocate(std::size_t{8} * MiB, eagle::Shape{1024, 1024}, eagle::float64);
    FAIL("no OOM");
  } catch (const eagle::ResourceExhaustedError& e) {
    CHECK(std::string(e.what()) ==
          "OOM when allocating tensor with shape[1024,1024] and type double on "
          "/job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc");
  }
}

TEST_CASE("OOM: the allocator stays usable and nothing live is lost") {
  Bfc b(8 * MiB, true);
  void* a = b.get(3 * MiB);
  std::memset(a, 0x5a, 3 * MiB);
  void* c = b.get(2 * MiB);
  const auto before = b.stats();
  CHECK_THROWS_AS(b.get(6 * MiB), eagle::ResourceExhaustedError);
  const auto after = b.stats();
  CHECK(after.num_ooms == 1);
  CHECK(after.bytes_in_use == before.bytes_in_use);
  CHECK(after.bytes_reserved == before.bytes_reserved);
  CHECK(after.num_allocs == before.num_allocs);
  b.check();
  CHECK(static_cast<unsigned char*>(a)[3 * MiB - 1] == 0x5a);
  b.put(a);
  b.put(c);
  // Fits once the regions (3 and 5 MiB) are free: both released, then one region of the next
  // doubling (10 MiB) capped at the limit.
  void* big = b.get(6 * MiB);
  CHECK(b.regions() == Sizes{8 * MiB});
  b.put(big);
  void* small = b.get(1 * KiB);
  b.put(small);
  CHECK(b.stats().num_ooms == 1);
  CHECK(b.stats().num_allocs == before.num_allocs + 2);
  b.check();
}

TEST_CASE("OOM: a provider that refuses regions gives OOM, and recovery when it stops") {
  Bfc b(64 * MiB, true);
  b.provider.fail_next_allocations(100);
  CHECK_THROWS_AS(b.get(1 * MiB), eagle::ResourceExhaustedError);
  CHECK(b.stats().bytes_reserved == 0);
  CHECK(b.stats().num_ooms == 1);
  b.provider.fail_next_allocations(0);
  void* p = b.get(1 * MiB);
  CHECK(b.regions() == Sizes{2 * MiB});
  b.put(p);
  b.check();
}

TEST_CASE("OOM: a provider refusing the planned region still gives the request itself") {
  Bfc b(64 * MiB, false);  // no growth: plans one 64 MiB region
  b.provider.fail_next_allocations(1);
  void* p = b.get(1 * MiB);
  CHECK(b.regions() == Sizes{1 * MiB});
  void* q = b.get(1 * MiB);  // then asks for the rest of the limit
  CHECK(b.regions() == Sizes{1 * MiB, 63 * MiB});
  b.put(p);
  b.put(q);
  b.check();
}

TEST_CASE("OOM: fully free regions are released and the allocation retried before failing") {
  SECTION("the limit is the constraint") {
    Bfc b(6 * MiB, true);
    void* p = b.get(1 * MiB);  // region 2 MiB
    void* q = b.get(3 * MiB);  // region 4 MiB: the limit is reached
    b.put(p);
    b.put(q);
    void* r = b.get(5 * MiB);  // fits in no region; both are released, then one of 6 MiB
    CHECK(b.regions() == Sizes{6 * MiB});
    CHECK(b.stats().num_ooms == 0);
    b.put(r);
  }
  SECTION("the provider's capacity is the constraint") {
    Bfc b(64 * MiB, true, 8 * MiB);
    void* keep = b.get(1 * MiB);  // region 2 MiB, stays in use
    void* q = b.get(3 * MiB);     // region 4 MiB
    b.put(q);
    CHECK(b.provider.bytes_outstanding() == 6 * MiB);
    // An 8 MiB region, or even 5 MiB, only fits the provider after the free 4 MiB region goes.
    void* r = b.get(5 * MiB);
    CHECK(b.regions() == Sizes{2 * MiB, 5 * MiB});
    CHECK(b.provider.bytes_outstanding() == 7 * MiB);
    CHECK(b.stats().num_ooms == 0);
    b.put(r);
    b.put(keep);
    b.check();
  }
  SECTION("a request above the limit fails at once and keeps the cache") {
    Bfc b(8 * MiB, true);
    b.put(b.get(1 * MiB));
    CHECK_THROWS_AS(b.get(9 * MiB), eagle::ResourceExhaustedError);
    CHECK(b.regions() == Sizes{2 * MiB});
  }
}

// ---- release_unused and stats -------------------------------------------------------------------

TEST_CASE("release_unused returns fully free regions only") {
  Bfc b(GiB, true);
  void* a = b.get(1 * MiB);  // region 2 MiB
  void* c = b.get(3 * MiB);  // region 4 MiB
  CHECK(b.alloc.release_unused() == 0);
  b.put(c);
  CHECK(b.alloc.release_unused() == 4 * MiB);
  CHECK(b.regions() == Sizes{2 * MiB});
  CHECK(b.stats().bytes_reserved == 2 * MiB);
  CHECK(b.provider.bytes_outstanding() == 2 * MiB);
  b.put(a);
  CHECK(b.alloc.release_unused() == 2 * MiB);
  CHECK(b.stats().bytes_reserved == 0);
  CHECK(b.provider.regions_outstanding() == 0);
  CHECK(b.alloc.release_unused() == 0);
  // Growth goes on doubling from the largest region taken so far.
  void* d = b.get(1 * KiB);
  CHECK(b.regions() == Sizes{8 * MiB});
  b.put(d);
  b.check();

  Bfc fixed(32 * MiB, false);
  fixed.put(fixed.get(1));
  CHECK(fixed.alloc.release_unused() == 32 * MiB);
  void* e = fixed.get(1);  // without growth the whole limit is taken again
  CHECK(fixed.regions() == Sizes{32 * MiB});
  fixed.put(e);
}

TEST_CASE("stats: current, peak, reserved, limit, allocations, reset_peak") {
  Bfc b(100 * MiB, true);
  auto s = b.stats();
  CHECK(s.bytes_in_use == 0);
  CHECK(s.peak_bytes_in_use == 0);
  CHECK(s.bytes_reserved == 0);
  CHECK(s.bytes_limit == 100 * MiB);
  CHECK(s.num_allocs == 0);
  CHECK(s.num_ooms == 0);
  CHECK(s.num_regions == 0);
  void* a = b.get(1000);       // 1024
  void* c = b.get(3 * MiB);    // new 4 MiB region
  void* d = b.get(512 * KiB);  // in the first region
  s = b.stats();
  CHECK(s.bytes_in_use == 1024 + 3 * MiB + 512 * KiB);
  CHECK(s.peak_bytes_in_use == s.bytes_in_use);
  CHECK(s.bytes_reserved == 6 * MiB);
  CHECK(s.num_allocs == 3);
  CHECK(s.num_regions == 2);
  b.put(c);
  s = b.stats();
  CHECK(s.bytes_in_use == 1024 + 512 * KiB);
  CHECK(s.peak_bytes_in_use == 1024 + 3 * MiB + 512 * KiB);
  CHECK(s.bytes_reserved == 6 * MiB);
  b.alloc.reset_peak();
  CHECK(b.stats().peak_bytes_in_use == 1024 + 512 * KiB);
  void* e = b.get(256);
  CHECK(b.stats().peak_bytes_in_use == 1024 + 512 * KiB + 256);
  b.put(e);
  CHECK(b.stats().peak_bytes_in_use == 1024 + 512 * KiB + 256);
  b.put(a);
  b.put(d);
  CHECK(b.stats().bytes_in_use == 0);
  CHECK(b.stats().num_allocs == 4);
  b.alloc.reset_peak();
  CHECK(b.stats().peak_bytes_in_use == 0);
}

TEST_CASE("deallocate(nullptr) is a no-op") {
  Bfc b(1 * MiB, true);
  b.put(nullptr);
  CHECK(b.stats().bytes_in_use == 0);
}

// ---- Threads
// ---------------------------------------------------------------------------------------

TEST_CASE("threads: 8 threads allocating and freeing stay consistent") {
  Bfc b(256 * MiB, true);
  constexpr int kThreads = 8;
  constexpr int kSteps = 4000;
  std::atomic<long long> allocs{0};
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(1000 + t);
      struct Block {
        unsigned char* p;
        std::size_t n;
        std::uint64_t tag;
      };
      std::vector<Block> live;
      auto verify_and_free = [&](const Block& blk) {
        std::uint64_t head = 0, tail = 0;
        std::memcpy(&head, blk.p, 8);
        std::memcpy(&tail, blk.p + blk.n - 8, 8);
        if (head != blk.tag || tail != blk.tag) ++errors;
        b.put(blk.p);
      };
      for (int i = 0; i < kSteps; ++i) {
        if (live.size() < 16 && (live.empty() || rng() % 2 == 0)) {
          const std::size_t n = 16 + rng() % (rng() % 8 == 0 ? 1 * MiB : 16 * KiB);
          auto* p = static_cast<unsigned char*>(b.get(n));
          const std::uint64_t tag = (std::uint64_t(t) << 32) | std::uint64_t(i);
          std::memcpy(p, &tag, 8);  // a block overlapping another would clobber its tags
          std::memcpy(p + n - 8, &tag, 8);
          live.push_back({p, n, tag});
          ++allocs;
        } else {
          const std::size_t k = rng() % live.size();
          verify_and_free(live[k]);
          live[k] = live.back();
          live.pop_back();
        }
        if (t == 0 && i % 500 == 0 && b.alloc.check_invariants() != "") ++errors;
      }
      for (const Block& blk : live) verify_and_free(blk);
    });
  }
  for (auto& th : threads) th.join();
  CHECK(errors.load() == 0);
  b.check();
  const auto s = b.stats();
  CHECK(s.bytes_in_use == 0);
  CHECK(s.num_allocs == allocs.load());
  CHECK(s.num_ooms == 0);
  CHECK(s.peak_bytes_in_use <= s.bytes_reserved);
  CHECK(b.alloc.release_unused() == s.bytes_reserved);
}

// ---- HostRegionProvider
// ---------------------------------------------------------------------------

TEST_CASE("host provider: capacity, failure injection, totals") {
  HostRegionProvider capped(8 * MiB);
  CHECK(capped.total_bytes() == 8 * MiB);
  CHECK(capped.free_bytes() == 8 * MiB);
  void* a = capped.allocate_region(6 * MiB);
  REQUIRE(a != nullptr);
  CHECK(addr(a) % 256 == 0);
  CHECK(capped.free_bytes() == 2 * MiB);
  CHECK(capped.allocate_region(2 * MiB + 1) == nullptr);
  void* c = capped.allocate_region(2 * MiB);
  CHECK(c != nullptr);
  CHECK(capped.free_bytes() == 0);
  capped.free_region(a, 6 * MiB);
  capped.free_region(c, 2 * MiB);
  CHECK(capped.bytes_outstanding() == 0);
  CHECK(capped.regions_outstanding() == 0);
  CHECK(capped.allocate_region(0) == nullptr);

  HostRegionProvider host;
  CHECK(host.total_bytes() > 0);
  host.fail_next_allocations(2);
  CHECK(host.allocate_region(4096) == nullptr);
  CHECK(host.allocate_region(4096) == nullptr);
  void* d = host.allocate_region(4096);
  CHECK(d != nullptr);
  host.free_region(d, 4096);
  CHECK(host.allocate_calls() == 3);
}

TEST_CASE("host provider: memory is committed only when touched") {
  HostRegionProvider host;
  const std::size_t before = resident_bytes();
  auto* p = static_cast<unsigned char*>(host.allocate_region(GiB));
  REQUIRE(p != nullptr);
  const std::size_t mapped = resident_bytes();
  CHECK(mapped < before + 16 * MiB);  // far less than the 1 GiB mapped
  const long page = ::sysconf(_SC_PAGESIZE);
  for (std::size_t off = 0; off < 64 * MiB; off += static_cast<std::size_t>(page)) p[off] = 1;
  const std::size_t touched = resident_bytes();
  CHECK(touched >= mapped + 60 * MiB);  // (no upper bound: sanitizers commit shadow pages too)
  host.free_region(p, GiB);
}

TEST_CASE("host provider: the allocator never touches the memory it manages") {
  Bfc b(GiB, false);
  const std::size_t before = resident_bytes();
  void* p = b.get(768 * MiB);
  void* q = b.get(200 * MiB);
  CHECK(b.stats().bytes_reserved == GiB);
  CHECK(resident_bytes() < before + 16 * MiB);
  b.put(p);
  b.put(q);
}
