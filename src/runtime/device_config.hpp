// The physical devices and their configuration before the runtime initializes (docs/guide.md,
// "Configuring devices"):
// which devices are visible, memory growth, logical device configurations, the memory fraction.
// At initialization the configuration is validated, turned into a RuntimePlan for the Context
// and frozen. Everything here is thread-safe (one mutex; none of it is on the op path).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "eagle/config.hpp"
#include "runtime/backends.hpp"
#include "runtime/platform.hpp"

namespace eagle::runtime {

struct LogicalGpuPlan {
  int ordinal;     // physical device within the GPU platform
  int logical_id;  // GPU:<logical_id>
  std::size_t memory_limit;
  bool allow_growth;
};

// What the Context builds: logical CPUs CPU:0..num_cpus-1, then the logical GPUs in id order.
struct RuntimePlan {
  int num_cpus = 1;
  GpuPlatform* gpu_platform = nullptr;  // null when no GPU is visible
  std::vector<LogicalGpuPlan> gpus;
};

// TensorFlow's MinSystemMemory: what the default allocator limit leaves to the driver and other
// programs, from the free memory and the compute capability (docs/design.md,
// "Devices: platforms, configuration, logical devices").
std::size_t system_memory_reserve(std::size_t free_memory,
                                  std::optional<std::pair<int, int>> compute_capability);

class DeviceConfig {
 public:
  static DeviceConfig& get();

  std::vector<config::PhysicalDevice> list_physical_devices(std::string_view type);
  config::DeviceDetails device_details(const config::PhysicalDevice& device);
  void set_visible_devices(const std::vector<config::PhysicalDevice>& devices,
                           std::string_view type);
  std::vector<config::PhysicalDevice> visible_devices(std::string_view type);
  void set_memory_growth(const config::PhysicalDevice& device, bool enable);
  std::optional<bool> memory_growth(const config::PhysicalDevice& device);
  void set_logical_configuration(const config::PhysicalDevice& device,
                                 const std::vector<config::LogicalDeviceConfiguration>& logical);
  std::optional<std::vector<config::LogicalDeviceConfiguration>> logical_configuration(
      const config::PhysicalDevice& device);
  void set_gpu_memory_fraction(double fraction);
  std::optional<double> gpu_memory_fraction();
  void simulate_gpus_when_absent(int count, std::size_t memory_bytes);

  // Validates the configuration, makes the plan and calls build(plan), all under the lock; the
  // configuration is frozen once build returns. If anything throws, nothing is frozen and the
  // next initialization attempt starts over.
  void initialize(const std::function<void(const RuntimePlan&)>& build);
  bool initialized() const { return initialized_.load(std::memory_order_acquire); }

 private:
  struct Physical {
    config::PhysicalDevice device;
    DeviceType type;
    int ordinal;  // within its platform
    bool visible = true;
    std::optional<bool> memory_growth;
    std::optional<std::vector<config::LogicalDeviceConfiguration>> logical;
  };

  DeviceConfig() = default;
  std::unique_lock<std::mutex> lock_discovered();
  void discover_locked();
  Physical& find_locked(const config::PhysicalDevice& device);
  const Platform& platform_of(const Physical& p) const;
  RuntimePlan make_plan_locked();

  std::mutex mutex_;
  std::atomic<bool> initialized_{false};
  bool discovered_ = false;
  std::optional<SimulatedGpuSpec> simulated_fallback_;
  std::unique_ptr<Platform> cpu_platform_;
  std::unique_ptr<GpuPlatform> gpu_platform_;  // CUDA, simulated, or none
  std::vector<Physical> devices_;              // CPU:0, then GPU:0, GPU:1, ...
  std::optional<double> gpu_memory_fraction_;
};

}  // namespace eagle::runtime
