#include "memory/host_allocator.hpp"

#include <cstdint>
#include <cstdlib>

#include <fmt/format.h>

#include "eagle/errors.hpp"

namespace eagle::memory {

// Note [Host block cache]: glibc serves blocks above its mmap threshold (at most 32 MiB) with a
// fresh mapping each time, so an op producing a 64 MiB tensor would spend as long faulting in
// zeroed pages as computing. Freed large blocks are kept, keyed by size class (64 KiB granules),
// and reused so a loop of same-sized ops touches warm memory. The cache is bounded and is
// dropped before an allocation is declared out of memory.

// Note [Small block cache]: a block between 1 KiB and 1 MiB freed to glibc goes past its
// tcache (<= 1032 bytes) and, next to the top of the heap, merges into a chunk of 64 KiB or more,
// which makes glibc consolidate its fast bins on every such free: a perf profile of adds of 2^12
// floats (16 KiB outputs) showed malloc_consolidate, _int_free and _int_malloc at about 30% of
// eagle's time. Freed blocks of those sizes are kept per thread instead, in size classes (1 KiB
// steps up to 64 KiB, 16 KiB steps above), a few per class and at most kSmallCacheMaxBytes per
// thread; a thread frees what it holds when it exits. No lock: the blocks are plain
// aligned_alloc memory, so whichever thread frees a block may reuse it. Blocks under 1 KiB (64 B
// steps) are kept the same way: aligned_alloc never takes from glibc's tcache, so each one went
// through _int_memalign, and their frees, past tcache's 7 per size, through the bins and
// malloc_consolidate: a quarter of a 1-element op's instructions (docs/performance.md, "Dispatch
// cost as an instruction count").

namespace {

constexpr std::size_t kSmallMin = std::size_t{1} << 10;
constexpr std::size_t kSmallStepLimit = std::size_t{64} << 10;  // 1 KiB steps up to here
// 64 B steps below 1 KiB: 64, 128, ..., 960.
constexpr std::size_t kTinyClasses = kSmallMin / HostAllocator::kAlignment - 1;
constexpr std::size_t kSmallClasses =
    kTinyClasses + 64 + (HostAllocator::kCacheMinBytes - kSmallStepLimit) / (std::size_t{16} << 10);
constexpr int kSmallPerClass = 8;
constexpr std::size_t kSmallCacheMaxBytes = std::size_t{4} << 20;

// Block size -> class; the block sizes of small classes are exact multiples of their step.
std::size_t small_class(std::size_t block) {
  if (block < kSmallMin) return block / HostAllocator::kAlignment - 1;
  return kTinyClasses + (block <= kSmallStepLimit
                             ? block / kSmallMin - 1
                             : 63 + (block - kSmallStepLimit) / (std::size_t{16} << 10));
}

struct SmallCache {
  struct Bin {
    void* blocks[kSmallPerClass];
    int count = 0;
  };
  Bin bins[kSmallClasses];
  std::size_t total = 0;

  ~SmallCache();
  void clear() noexcept {
    for (Bin& bin : bins) {
      while (bin.count > 0) std::free(bin.blocks[--bin.count]);
    }
    total = 0;
  }
};

// The thread's cache, once made; t_small_cache_gone is set when it is destroyed at thread exit,
// and tensors freed after that (static objects at process exit) go straight to free(). Plain
// constant-initialized initial-exec thread-locals: every allocation and free reads them with one
// %fs-relative load, where the cache object itself (a thread_local with a destructor, in a
// shared library) cost a __tls_get_addr call each time (docs/performance.md, "Dispatch cost as
// an instruction count").
__attribute__((tls_model("initial-exec"))) thread_local SmallCache* t_small_cache = nullptr;
__attribute__((tls_model("initial-exec"))) thread_local bool t_small_cache_gone = false;

SmallCache::~SmallCache() {
  clear();
  t_small_cache = nullptr;
  t_small_cache_gone = true;
}

SmallCache* make_small_cache() {
  thread_local SmallCache cache;  // destroyed at the thread's exit
  t_small_cache = &cache;
  return &cache;
}

SmallCache* small_cache() {
  if (SmallCache* cache = t_small_cache) return cache;
  if (t_small_cache_gone) return nullptr;
  return make_small_cache();
}

}  // namespace

HostAllocator::HostAllocator(std::string allocator_name, std::string device_name)
    : allocator_name_(std::move(allocator_name)), device_name_(std::move(device_name)) {}

HostAllocator::~HostAllocator() { release_cached(); }

std::size_t HostAllocator::block_size(std::size_t bytes) {
  const std::size_t granule = bytes >= kCacheMinBytes   ? std::size_t{1} << 16
                              : bytes > kSmallStepLimit ? std::size_t{16} << 10
                              : bytes >= kSmallMin      ? kSmallMin
                                                        : kAlignment;
  return (bytes + granule - 1) / granule * granule;
}

void* HostAllocator::allocate(std::size_t bytes, const Shape& shape, DType dtype) {
  const std::size_t size = block_size(bytes);
  if (size > 0 && size < kCacheMinBytes) {  // Note [Small block cache]
    if (SmallCache* cache = small_cache()) {
      SmallCache::Bin& bin = cache->bins[small_class(size)];
      if (bin.count > 0) {
        cache->total -= size;
        return bin.blocks[--bin.count];
      }
    }
  }
  if (size >= kCacheMinBytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Exact size class only: deallocate() learns a block's size from the tensor's byte count.
    auto it = cached_.find(size);
    if (it != cached_.end()) {
      void* ptr = it->second;
      cached_total_ -= size;
      cached_.erase(it);
      return ptr;
    }
  }
  // No block can be larger than PTRDIFF_MAX (glibc refuses it, valgrind reports the size as a
  // negative argument): allocate_tensor caps byte counts there, which rounding up may pass.
  void* ptr = nullptr;
  if (size <= static_cast<std::size_t>(PTRDIFF_MAX)) {
    ptr = std::aligned_alloc(kAlignment, size);
    if (!ptr) {
      release_cached();
      ptr = std::aligned_alloc(kAlignment, size);
    }
  }
  if (!ptr) {
    throw ResourceExhaustedError(
        fmt::format("OOM when allocating tensor with shape{} and type {} on {} by allocator {}",
                    shape.to_string(), dtype_runtime_name(dtype), device_name_, allocator_name_));
  }
  return ptr;
}

void HostAllocator::deallocate(void* ptr, std::size_t bytes) noexcept {
  const std::size_t size = block_size(bytes);
  if (size > 0 && size < kCacheMinBytes) {  // Note [Small block cache]
    SmallCache* cache = small_cache();
    if (cache != nullptr) {
      SmallCache::Bin& bin = cache->bins[small_class(size)];
      if (bin.count < kSmallPerClass && cache->total + size <= kSmallCacheMaxBytes) {
        bin.blocks[bin.count++] = ptr;
        cache->total += size;
        return;
      }
    }
  }
  if (size >= kCacheMinBytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (cached_total_ + size <= kCacheMaxBytes) {
      cached_.emplace(size, ptr);
      cached_total_ += size;
      return;
    }
  }
  std::free(ptr);
}

void HostAllocator::release_cached() noexcept {
  if (SmallCache* cache = small_cache())
    cache->clear();  // this thread's (Note [Small block cache])
  std::multimap<std::size_t, void*> blocks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks.swap(cached_);
    cached_total_ = 0;
  }
  for (auto& [size, ptr] : blocks) std::free(ptr);
}

std::size_t HostAllocator::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_total_;
}

}  // namespace eagle::memory
