// GPUs backed by host memory (docs/guide.md, "Simulated GPUs"): they report N physical GPUs of a
// given size, their memory is MAP_NORESERVE host memory capped at that size (committed only when
// touched), and the CPU kernels do their work. Memory accounting, limits and OOM are those of a
// real card because the same BfcAllocator sits on top.
#pragma once

#include <memory>
#include <vector>

#include "memory/host_region_provider.hpp"
#include "runtime/platform.hpp"
#include "simulated/simulated_gpu_spec.hpp"

namespace eagle::simulated {

class SimulatedGpuPlatform final : public runtime::GpuPlatform {
 public:
  explicit SimulatedGpuPlatform(const SimulatedGpuSpec& spec);

  int device_count() const noexcept override { return static_cast<int>(memory_.size()); }
  // device_name "Simulated GPU", no compute capability, total = the configured size.
  runtime::PhysicalDeviceInfo info(int ordinal) const override;
  std::size_t free_memory(int ordinal) const override;
  std::unique_ptr<runtime::Device> make_logical_device(int ordinal, int logical_id,
                                                       std::size_t memory_limit,
                                                       bool allow_growth) override;
  bool host_accessible() const override { return true; }

 private:
  std::vector<std::shared_ptr<memory::HostRegionProvider>> memory_;  // one per physical GPU
};

}  // namespace eagle::simulated
