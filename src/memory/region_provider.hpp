// Where an allocator's regions come from: the native "give me N bytes" / "take them back" of a
// device (cudaMalloc/cudaFree, host mmap/munmap). The allocator policy (BfcAllocator) sees only
// this interface, so it knows nothing of CUDA and is unit-tested on host memory
// (Flashlight's CachingMemoryManager takes its native alloc/free as injected functions the same
// way).
#pragma once

#include <cstddef>

namespace eagle::memory {

class RegionProvider {
 public:
  virtual ~RegionProvider() = default;

  // A fresh region of exactly `bytes` bytes, aligned to at least 256 bytes, or nullptr when the
  // device cannot give it (never throws). The provider never reads or writes the region.
  virtual void* allocate_region(std::size_t bytes) noexcept = 0;
  // Returns a region from allocate_region; `bytes` is the size it was allocated with.
  virtual void free_region(void* ptr, std::size_t bytes) noexcept = 0;

  // What the device could still hand out, and its whole size: the runtime computes an
  // allocator's default limit from these, as TensorFlow does from cudaMemGetInfo (docs/design.md,
  // "Devices: platforms, configuration, logical devices").
  virtual std::size_t free_bytes() const noexcept = 0;
  virtual std::size_t total_bytes() const noexcept = 0;
};

}  // namespace eagle::memory
