// HostAllocator: alignment, the small block cache (Note [Small block cache], blocks under 1 MiB)
// and the large one (Note [Host block cache]).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "memory/host_allocator.hpp"

using eagle::memory::HostAllocator;

namespace {
const eagle::Shape kShape{1};
bool aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }
}  // namespace

TEST_CASE("host blocks are 64-byte aligned and hold the bytes asked for, at every size class") {
  HostAllocator alloc("cpu", "/job:localhost/replica:0/task:0/device:CPU:0");
  for (std::size_t bytes :
       {std::size_t{1}, std::size_t{63}, std::size_t{1000}, std::size_t{1024}, std::size_t{1025},
        std::size_t{16384}, std::size_t{65536}, std::size_t{65537}, std::size_t{1} << 19,
        (std::size_t{1} << 20) - 1, std::size_t{1} << 20, (std::size_t{1} << 20) + 1}) {
    std::vector<void*> blocks;
    for (int i = 0; i < 6; ++i) {  // more than one class holds
      void* p = alloc.allocate(bytes, kShape, eagle::float32);
      REQUIRE(aligned(p));
      std::memset(p, 0xab, bytes);
      blocks.push_back(p);
    }
    for (void* p : blocks) alloc.deallocate(p, bytes);
  }
  alloc.release_cached();
}

TEST_CASE("a freed small block is reused by the next allocation of its class on that thread") {
  HostAllocator alloc("cpu", "/job:localhost/replica:0/task:0/device:CPU:0");
  void* p = alloc.allocate(16384, kShape, eagle::float32);
  alloc.deallocate(p, 16384);
  void* q = alloc.allocate(16000, kShape, eagle::float32);  // same 1 KiB class
  CHECK(q == p);
  alloc.deallocate(q, 16000);
  alloc.release_cached();
}

TEST_CASE("a freed block under 1 KiB is reused by the next allocation of its 64-byte class") {
  // One-element tensors: aligned_alloc never takes from glibc's tcache, so these are cached too.
  HostAllocator alloc("cpu", "/job:localhost/replica:0/task:0/device:CPU:0");
  void* p = alloc.allocate(4, kShape, eagle::float32);
  alloc.deallocate(p, 4);
  void* q = alloc.allocate(64, kShape, eagle::float32);  // the same 64-byte class
  CHECK(q == p);
  void* r = alloc.allocate(65, kShape, eagle::float32);  // the next class: another block
  CHECK(r != q);
  CHECK(aligned(r));
  alloc.deallocate(q, 64);
  alloc.deallocate(r, 65);
  alloc.release_cached();
}

TEST_CASE("small blocks freed on another thread are freed or reused there") {
  HostAllocator alloc("cpu", "/job:localhost/replica:0/task:0/device:CPU:0");
  std::vector<void*> blocks;
  for (int i = 0; i < 64; ++i)
    blocks.push_back(alloc.allocate(4096 * (i % 8 + 1), kShape, eagle::float32));
  std::thread t([&] {
    for (int i = 0; i < 64; ++i) alloc.deallocate(blocks[i], 4096 * (i % 8 + 1));
    void* p = alloc.allocate(4096, kShape, eagle::float32);
    alloc.deallocate(p, 4096);
  });  // the thread's cached blocks are freed when it exits (leak-checked under ASan)
  t.join();
}
