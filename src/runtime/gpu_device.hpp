// A logical GPU: a full device name, and an allocator GPU_<id>_bfc with its own limit over the
// memory of the physical device it was made from (shared with that device's other logical GPUs).
// Subclasses say how bytes move to and from the host (CUDA copies, or memcpy when simulated).
#pragma once

#include <cstddef>
#include <memory>

#include "memory/bfc_allocator.hpp"
#include "memory/region_provider.hpp"
#include "runtime/device.hpp"

namespace eagle::runtime {

class GpuDevice : public Device {
 public:
  GpuDevice(int logical_id, std::shared_ptr<memory::RegionProvider> memory,
            std::size_t memory_limit, bool allow_growth);

  void* allocate(std::size_t bytes, const Shape& shape, DType dtype) override {
    return allocator_.allocate(bytes, shape, dtype);
  }
  void deallocate(void* ptr, std::size_t) noexcept override { allocator_.deallocate(ptr); }
  memory::BfcAllocator* bfc_allocator() noexcept override { return &allocator_; }

 private:
  std::shared_ptr<memory::RegionProvider> memory_;  // outlives allocator_ (declared first)
  memory::BfcAllocator allocator_;
};

}  // namespace eagle::runtime
