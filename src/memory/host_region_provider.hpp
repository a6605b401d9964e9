// Regions of host memory, mapped with MAP_NORESERVE so that pages are committed only when first
// touched: a simulated GPU (docs/guide.md, "Simulated GPUs") can report 16 GiB and hand its
// allocator a 16 GiB region while the process uses only what its tensors touch. Optionally capped
// (capacity: the total bytes it will hand out at once, like a card's memory), and able to fail on
// demand so tests can drive the allocator's out-of-memory paths.
#pragma once

#include <cstddef>
#include <limits>
#include <mutex>

#include "memory/region_provider.hpp"

namespace eagle::memory {

class HostRegionProvider final : public RegionProvider {
 public:
  static constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();

  // capacity: the most bytes outstanding at once; kUnlimited means "as much as mmap gives", and
  // then total_bytes() reports the machine's physical memory.
  explicit HostRegionProvider(std::size_t capacity = kUnlimited);
  ~HostRegionProvider() override = default;
  HostRegionProvider(const HostRegionProvider&) = delete;
  HostRegionProvider& operator=(const HostRegionProvider&) = delete;

  void* allocate_region(std::size_t bytes) noexcept override;
  void free_region(void* ptr, std::size_t bytes) noexcept override;
  std::size_t free_bytes() const noexcept override;
  std::size_t total_bytes() const noexcept override;

  // For tests: the next `count` calls to allocate_region return nullptr (0 clears it).
  void fail_next_allocations(int count) noexcept;
  // Bytes and regions currently handed out, and allocate_region calls so far (failed included).
  std::size_t bytes_outstanding() const noexcept;
  int regions_outstanding() const noexcept;
  long long allocate_calls() const noexcept;

 private:
  const std::size_t capacity_;
  mutable std::mutex mutex_;  // one provider may serve several allocators (virtual devices)
  std::size_t outstanding_bytes_ = 0;
  int outstanding_regions_ = 0;
  int fail_next_ = 0;
  long long allocate_calls_ = 0;
};

}  // namespace eagle::memory
