#include "simulated/simulated_gpu_platform.hpp"

#include <cstring>

#include "runtime/gpu_device.hpp"

namespace eagle::simulated {
namespace {

// Host memory, so copies are memcpy and the CPU kernels read and write it directly.
class SimulatedGpuDevice final : public runtime::GpuDevice {
 public:
  using GpuDevice::GpuDevice;
  bool host_accessible() const override { return true; }
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void copy_from_host(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
};

}  // namespace

SimulatedGpuPlatform::SimulatedGpuPlatform(const SimulatedGpuSpec& spec) {
  for (int i = 0; i < spec.count; ++i) {
    memory_.push_back(std::make_shared<memory::HostRegionProvider>(spec.memory_bytes));
  }
}

runtime::PhysicalDeviceInfo SimulatedGpuPlatform::info(int ordinal) const {
  runtime::PhysicalDeviceInfo info;
  info.device_name = "Simulated GPU";
  info.total_memory = memory_.at(ordinal)->total_bytes();
  return info;
}

std::size_t SimulatedGpuPlatform::free_memory(int ordinal) const {
  return memory_.at(ordinal)->free_bytes();
}

std::unique_ptr<runtime::Device> SimulatedGpuPlatform::make_logical_device(int ordinal,
                                                                           int logical_id,
                                                                           std::size_t memory_limit,
                                                                           bool allow_growth) {
  return std::make_unique<SimulatedGpuDevice>(logical_id, memory_.at(ordinal), memory_limit,
                                              allow_growth);
}

}  // namespace eagle::simulated
