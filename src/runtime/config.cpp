// eagle::config (docs/guide.md, "Configuring devices"): thin wrappers over the flags, DeviceConfig
// (before initialization) and the Context's devices (after).
#include "eagle/config.hpp"

#include <fmt/format.h>

#include "eagle/device_name.hpp"
#include "eagle/errors.hpp"
#include "memory/bfc_allocator.hpp"
#include "runtime/backends.hpp"
#include "runtime/context.hpp"
#include "runtime/device_config.hpp"
#include "runtime/flags.hpp"
#include "runtime/remote_devices.hpp"

namespace eagle {

bool is_built_with_cuda() {
#ifdef EAGLE_WITH_CUDA
  return true;
#else
  return false;
#endif
}

namespace config {
namespace {

runtime::DeviceConfig& device_config() { return runtime::DeviceConfig::get(); }

// The allocator of the first logical device matching `device` ("GPU:0", "/device:GPU:1", ...).
memory::BfcAllocator& allocator_for(const std::string& device) {
  const DeviceName spec = DeviceName::parse(device);
  for (runtime::Device* d : runtime::Context::get().devices()) {
    if (!d->parsed_name().matches(spec)) continue;
    if (memory::BfcAllocator* allocator = d->bfc_allocator()) return *allocator;
    throw InvalidArgumentError(
        fmt::format("Allocator stats not available for device '{}'", device));
  }
  throw InvalidArgumentError(fmt::format("No matching devices found for '{}'", device));
}

}  // namespace

void set_soft_device_placement(bool enabled) { runtime::g_soft_device_placement.store(enabled); }
bool get_soft_device_placement() { return runtime::g_soft_device_placement.load(); }

void set_device_policy(DevicePolicy policy) { runtime::g_device_policy.store(policy); }
DevicePolicy get_device_policy() { return runtime::g_device_policy.load(); }

void enable_tensor_float_32_execution(bool enabled) {
  runtime::g_tensor_float_32_execution.store(enabled);
}
bool tensor_float_32_execution_enabled() { return runtime::g_tensor_float_32_execution.load(); }

namespace threading {
void set_intra_op_parallelism_threads(int num_threads) {
  runtime::set_intra_op_threads(num_threads);
}
int get_intra_op_parallelism_threads() { return runtime::configured_intra_op_threads(); }
}  // namespace threading

std::vector<PhysicalDevice> list_physical_devices(const std::string& device_type) {
  return device_config().list_physical_devices(device_type);
}

DeviceDetails get_device_details(const PhysicalDevice& device) {
  return device_config().device_details(device);
}

void set_visible_devices(const std::vector<PhysicalDevice>& devices,
                         const std::string& device_type) {
  device_config().set_visible_devices(devices, device_type);
}

void set_visible_devices(const PhysicalDevice& device, const std::string& device_type) {
  device_config().set_visible_devices({device}, device_type);
}

std::vector<PhysicalDevice> get_visible_devices(const std::string& device_type) {
  return device_config().visible_devices(device_type);
}

void set_memory_growth(const PhysicalDevice& device, bool enable) {
  device_config().set_memory_growth(device, enable);
}

std::optional<bool> get_memory_growth(const PhysicalDevice& device) {
  return device_config().memory_growth(device);
}

void set_logical_device_configuration(const PhysicalDevice& device,
                                      const std::vector<LogicalDeviceConfiguration>& logical) {
  device_config().set_logical_configuration(device, logical);
}

std::optional<std::vector<LogicalDeviceConfiguration>> get_logical_device_configuration(
    const PhysicalDevice& device) {
  return device_config().logical_configuration(device);
}

void set_gpu_memory_fraction(double fraction) { device_config().set_gpu_memory_fraction(fraction); }
std::optional<double> get_gpu_memory_fraction() { return device_config().gpu_memory_fraction(); }

void simulate_gpus_when_absent(int count, std::size_t memory_bytes) {
  device_config().simulate_gpus_when_absent(count, memory_bytes);
}

std::vector<LogicalDevice> list_logical_devices(const std::string& device_type) {
  std::vector<LogicalDevice> out;
  // Connected to a cluster, every device is named in full, the local ones by this task's name
  // (Note [The local task's name]), and the other tasks' follow: as TensorFlow lists them.
  const bool connected = runtime::connected_to_cluster();
  for (runtime::Device* d : runtime::Context::get().devices()) {
    const std::string type(runtime::device_type_name(d->type()));
    if (!device_type.empty() && device_type != type) continue;
    out.push_back({connected ? d->name() : fmt::format("/device:{}:{}", type, d->id()), type});
  }
  for (const auto& remote : runtime::remote_devices()) {
    const std::string type(runtime::device_type_name(remote->type()));
    if (!device_type.empty() && device_type != type) continue;
    out.push_back({remote->name(), type});
  }
  return out;
}

MemoryInfo get_memory_info(const std::string& device) {
  const memory::BfcAllocator::Stats stats = allocator_for(device).stats();
  return MemoryInfo{stats.bytes_in_use, stats.peak_bytes_in_use, stats.bytes_reserved,
                    stats.bytes_limit};
}

void reset_memory_stats(const std::string& device) { allocator_for(device).reset_peak(); }

std::size_t release_unused_memory(const std::string& device) {
  return allocator_for(device).release_unused();
}

}  // namespace config

void sync_devices() {
  for (runtime::Device* device : runtime::Context::get().devices()) device->synchronize();
}

}  // namespace eagle
