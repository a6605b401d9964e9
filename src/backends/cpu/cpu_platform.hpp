// The host CPU as a platform: always exactly one physical device.
#pragma once

#include "runtime/platform.hpp"

namespace eagle::cpu {

class CpuPlatform final : public runtime::Platform {
 public:
  runtime::DeviceType type() const override { return runtime::DeviceType::kCPU; }
  int device_count() const noexcept override { return 1; }
  // The model name from /proc/cpuinfo ("CPU" when unknown) and the machine's physical memory.
  runtime::PhysicalDeviceInfo info(int ordinal) const override;
};

}  // namespace eagle::cpu
