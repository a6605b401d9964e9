// A kind of hardware and the physical devices it has: the bottom layer of the runtime
// (docs/design.md, "Devices: platforms, configuration, logical devices"). Platforms only describe
// and hand out memory; logical devices, allocators and kernels are built on top of them by the
// Context.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "memory/region_provider.hpp"
#include "runtime/device.hpp"

namespace eagle::runtime {

struct PhysicalDeviceInfo {
  std::string device_name;                                // "NVIDIA H100 80GB HBM3"
  std::optional<std::pair<int, int>> compute_capability;  // CUDA only
  std::size_t total_memory = 0;                           // bytes
};

class Platform {
 public:
  virtual ~Platform() = default;

  virtual DeviceType type() const = 0;
  // How many devices there are; 0 when the hardware, driver or runtime is missing. Never throws.
  virtual int device_count() const noexcept = 0;
  // Precondition for all below: 0 <= ordinal < device_count().
  virtual PhysicalDeviceInfo info(int ordinal) const = 0;
};

// A platform whose devices are GPUs: besides describing them it makes their memory and their
// logical devices.
class GpuPlatform : public Platform {
 public:
  DeviceType type() const override { return DeviceType::kGPU; }
  // Free bytes of the device right now (cudaMemGetInfo), for the default allocator limit.
  virtual std::size_t free_memory(int ordinal) const = 0;
  // A logical GPU named GPU:<logical_id> on physical device `ordinal` whose allocator
  // GPU_<logical_id>_bfc takes its regions from that device's memory, which all logical devices
  // made from it share (one region provider per physical device). Thread-safe.
  virtual std::unique_ptr<Device> make_logical_device(int ordinal, int logical_id,
                                                      std::size_t memory_limit,
                                                      bool allow_growth) = 0;
  // True when its devices' memory is host memory (the CPU kernels then run on them directly).
  virtual bool host_accessible() const = 0;
};

}  // namespace eagle::runtime
