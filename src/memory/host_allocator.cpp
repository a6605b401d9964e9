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

HostAllocator::HostAllocator(std::string allocator_name, std::string device_name)
    : allocator_name_(std::move(allocator_name)), device_name_(std::move(device_name)) {}

HostAllocator::~HostAllocator() { release_cached(); }

std::size_t HostAllocator::block_size(std::size_t bytes) {
  const std::size_t granule = bytes >= kCacheMinBytes ? std::size_t{1} << 16 : kAlignment;
  return (bytes + granule - 1) / granule * granule;
}

void* HostAllocator::allocate(std::size_t bytes, const Shape& shape, DType dtype) {
  const std::size_t size = block_size(bytes);
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
