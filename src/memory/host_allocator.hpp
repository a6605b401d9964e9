// Host memory for CPU tensors. Small blocks come straight from malloc; large blocks are cached
// after free, because a fresh multi-megabyte block is a fresh mmap whose page faults would cost
// more than the op that fills it (see Note [Host block cache] in host_allocator.cpp).
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"

namespace eagle::memory {

class HostAllocator {
 public:
  static constexpr std::size_t kAlignment = 64;           // one cache line, any SIMD width
  static constexpr std::size_t kCacheMinBytes = 1 << 20;  // blocks this large are cached
  static constexpr std::size_t kCacheMaxBytes = std::size_t{1} << 30;  // total kept when idle

  HostAllocator(std::string allocator_name, std::string device_name);
  ~HostAllocator();
  HostAllocator(const HostAllocator&) = delete;
  HostAllocator& operator=(const HostAllocator&) = delete;

  // Throws ResourceExhaustedError, TensorFlow's OOM text (docs/guide.md, "Configuring devices").
  void* allocate(std::size_t bytes, const Shape& shape, DType dtype);
  void deallocate(void* ptr, std::size_t bytes) noexcept;
  // Returns every cached block to the system.
  void release_cached() noexcept;
  std::size_t cached_bytes() const;

 private:
  static std::size_t block_size(std::size_t bytes);

  std::string allocator_name_;
  std::string device_name_;
  mutable std::mutex mutex_;
  std::multimap<std::size_t, void*> cached_;  // block size -> free block
  std::size_t cached_total_ = 0;
};

}  // namespace eagle::memory
