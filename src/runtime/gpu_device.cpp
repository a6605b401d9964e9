#include "runtime/gpu_device.hpp"

#include <string>
#include <utility>

namespace eagle::runtime {

GpuDevice::GpuDevice(int logical_id, std::shared_ptr<memory::RegionProvider> memory,
                     std::size_t memory_limit, bool allow_growth)
    : Device(DeviceType::kGPU, logical_id),
      memory_(std::move(memory)),
      allocator_("GPU_" + std::to_string(logical_id) + "_bfc", name(), *memory_,
                 memory::BfcAllocator::Options{memory_limit, allow_growth}) {}

}  // namespace eagle::runtime
