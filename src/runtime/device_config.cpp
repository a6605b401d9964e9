#include "runtime/device_config.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "runtime/backends.hpp"
#include "runtime/log_sink.hpp"

namespace eagle::runtime {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

bool type_matches(const config::PhysicalDevice& d, std::string_view type) {
  return type.empty() || d.device_type == type;
}

// EAGLE_FORCE_GPU_ALLOW_GROWTH (TensorFlow's TF_FORCE_GPU_ALLOW_GROWTH): unset or empty -> none.
std::optional<bool> forced_allow_growth() {
  const char* value = std::getenv("EAGLE_FORCE_GPU_ALLOW_GROWTH");
  if (value == nullptr || *value == '\0') return std::nullopt;
  const std::string_view v(value);
  if (v == "true") return true;
  if (v == "false") return false;
  throw InvalidArgumentError(fmt::format(
      "Invalid EAGLE_FORCE_GPU_ALLOW_GROWTH='{}': only 'true' or 'false' are accepted", v));
}

}  // namespace

std::size_t system_memory_reserve(std::size_t free_memory,
                                  std::optional<std::pair<int, int>> compute_capability) {
  if (free_memory < (std::size_t{2} << 30)) return 225 * kMiB;
  // A simulated GPU has no compute capability: it is accounted as a current card.
  const int major = compute_capability ? compute_capability->first : 9;
  if (major <= 6) return 500 * kMiB;
  if (major <= 7) return 1050 * kMiB;
  if (major <= 8) return 1536 * kMiB;
  return 1800 * kMiB;
}

DeviceConfig& DeviceConfig::get() {
  // Note [Runtime lifetime]: the runtime is never destroyed, so tensors held in other static
  // objects may die after it at exit without touching a destroyed allocator.
  static DeviceConfig* const config = new DeviceConfig();
  return *config;
}

std::unique_lock<std::mutex> DeviceConfig::lock_discovered() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!discovered_) discover_locked();
  return lock;
}

void DeviceConfig::discover_locked() {
  Platforms platforms = discover_platforms(simulated_fallback_);  // Note [Backend registry]
  cpu_platform_ = std::move(platforms.cpu);
  gpu_platform_ = std::move(platforms.gpu);
  devices_.push_back(
      Physical{{"/physical_device:CPU:0", "CPU"}, DeviceType::kCPU, 0, true, {}, {}});
  const int gpus = gpu_platform_ ? gpu_platform_->device_count() : 0;
  for (int i = 0; i < gpus; ++i) {
    devices_.push_back(Physical{
        {fmt::format("/physical_device:GPU:{}", i), "GPU"}, DeviceType::kGPU, i, true, {}, {}});
  }
  discovered_ = true;
}

DeviceConfig::Physical& DeviceConfig::find_locked(const config::PhysicalDevice& device) {
  for (Physical& p : devices_) {
    if (p.device == device) return p;
  }
  throw InvalidArgumentError(fmt::format("Unrecognized device: {}", device.name));
}

const Platform& DeviceConfig::platform_of(const Physical& p) const {
  if (p.type == DeviceType::kCPU) return *cpu_platform_;
  return *gpu_platform_;
}

std::vector<config::PhysicalDevice> DeviceConfig::list_physical_devices(std::string_view type) {
  auto lock = lock_discovered();
  std::vector<config::PhysicalDevice> out;
  for (const Physical& p : devices_) {
    if (type_matches(p.device, type)) out.push_back(p.device);
  }
  return out;
}

config::DeviceDetails DeviceConfig::device_details(const config::PhysicalDevice& device) {
  auto lock = lock_discovered();
  const Physical& p = find_locked(device);
  PhysicalDeviceInfo info = platform_of(p).info(p.ordinal);
  return config::DeviceDetails{std::move(info.device_name), info.compute_capability,
                               info.total_memory};
}

void DeviceConfig::set_visible_devices(const std::vector<config::PhysicalDevice>& devices,
                                       std::string_view type) {
  auto lock = lock_discovered();
  for (const config::PhysicalDevice& d : devices) {
    find_locked(d);
    if (!type_matches(d, type)) throw InvalidArgumentError("Unrecognized device: " + d.name);
  }
  std::vector<bool> visible;
  for (const Physical& p : devices_) {
    const bool listed = std::find(devices.begin(), devices.end(), p.device) != devices.end();
    visible.push_back(type_matches(p.device, type) ? listed : p.visible);
  }
  if (!visible.front()) {
    throw InvalidArgumentError(
        "The CPU must stay visible: it holds host tensors. To choose GPUs only, pass "
        "device_type \"GPU\"");
  }
  bool same = true;
  for (std::size_t i = 0; i < devices_.size(); ++i) same &= devices_[i].visible == visible[i];
  if (same) return;
  if (initialized()) {
    throw FailedPreconditionError("Visible devices cannot be modified after being initialized");
  }
  for (std::size_t i = 0; i < devices_.size(); ++i) devices_[i].visible = visible[i];
}

std::vector<config::PhysicalDevice> DeviceConfig::visible_devices(std::string_view type) {
  auto lock = lock_discovered();
  std::vector<config::PhysicalDevice> out;
  for (const Physical& p : devices_) {
    if (p.visible && type_matches(p.device, type)) out.push_back(p.device);
  }
  return out;
}

void DeviceConfig::set_memory_growth(const config::PhysicalDevice& device, bool enable) {
  auto lock = lock_discovered();
  Physical& p = find_locked(device);
  if (p.logical) {
    throw InvalidArgumentError(
        "Cannot set memory growth on device when virtual devices configured");
  }
  if (p.type != DeviceType::kGPU) {
    throw InvalidArgumentError("Cannot set memory growth on non-GPU devices");
  }
  if (p.memory_growth == enable) return;
  if (initialized()) {
    throw FailedPreconditionError("Physical devices cannot be modified after being initialized");
  }
  p.memory_growth = enable;
}

std::optional<bool> DeviceConfig::memory_growth(const config::PhysicalDevice& device) {
  auto lock = lock_discovered();
  return find_locked(device).memory_growth;
}

void DeviceConfig::set_logical_configuration(
    const config::PhysicalDevice& device,
    const std::vector<config::LogicalDeviceConfiguration>& logical) {
  auto lock = lock_discovered();
  Physical& p = find_locked(device);
  for (const config::LogicalDeviceConfiguration& c : logical) {
    if (p.type == DeviceType::kCPU && c.memory_limit) {
      throw InvalidArgumentError(
          "Setting memory limit on CPU virtual devices is currently not supported");
    }
    if (p.type == DeviceType::kGPU && !c.memory_limit) {
      throw InvalidArgumentError("Setting memory limit is required for GPU virtual devices");
    }
    if (c.memory_limit && *c.memory_limit <= 0) {
      throw InvalidArgumentError(
          fmt::format("memory_limit must be a positive number of MiB, got {}", *c.memory_limit));
    }
    // Beyond 2^43 MiB the limit in bytes no longer fits (it wrapped around, to 0 for 2^44).
    constexpr std::int64_t kMaxMemoryLimit = std::int64_t{1} << 43;
    if (c.memory_limit && *c.memory_limit > kMaxMemoryLimit) {
      throw InvalidArgumentError(
          fmt::format("memory_limit must be at most {} MiB (2^63 bytes), got {}", kMaxMemoryLimit,
                      *c.memory_limit));
    }
  }
  if (p.type == DeviceType::kGPU && gpu_memory_fraction_) {
    throw InvalidArgumentError(
        "It's invalid to set per_process_gpu_memory_fraction when virtual devices are set");
  }
  if (p.logical == logical) return;
  if (initialized()) {
    throw FailedPreconditionError("Virtual devices cannot be modified after being initialized");
  }
  p.logical = logical;
}

std::optional<std::vector<config::LogicalDeviceConfiguration>> DeviceConfig::logical_configuration(
    const config::PhysicalDevice& device) {
  auto lock = lock_discovered();
  return find_locked(device).logical;
}

void DeviceConfig::set_gpu_memory_fraction(double fraction) {
  auto lock = lock_discovered();
  if (!(fraction > 0.0 && fraction <= 1.0)) {
    throw InvalidArgumentError(
        fmt::format("per_process_gpu_memory_fraction must be in (0, 1], got {}", fraction));
  }
  for (const Physical& p : devices_) {
    if (p.type == DeviceType::kGPU && p.logical) {
      throw InvalidArgumentError(
          "It's invalid to set per_process_gpu_memory_fraction when virtual devices are set");
    }
  }
  if (gpu_memory_fraction_ == fraction) return;
  if (initialized()) {
    throw FailedPreconditionError("GPU memory fraction cannot be modified after being initialized");
  }
  gpu_memory_fraction_ = fraction;
}

std::optional<double> DeviceConfig::gpu_memory_fraction() {
  auto lock = lock_discovered();
  return gpu_memory_fraction_;
}

void DeviceConfig::simulate_gpus_when_absent(int count, std::size_t memory_bytes) {
  if (count < 0 || count > kMaxSimulatedGpus) {
    throw InvalidArgumentError(fmt::format(
        "The number of simulated GPUs must be in [0, {}], got {}", kMaxSimulatedGpus, count));
  }
  if (memory_bytes < kMiB) {
    throw InvalidArgumentError(
        fmt::format("A simulated GPU needs at least 1MiB of memory, got {} bytes", memory_bytes));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const SimulatedGpuSpec spec{count, memory_bytes};
  if (discovered_) {
    if (simulated_fallback_ && simulated_fallback_->count == count &&
        simulated_fallback_->memory_bytes == memory_bytes) {
      return;
    }
    throw FailedPreconditionError(
        "Simulated GPUs cannot be configured after the physical devices were listed or the "
        "runtime initialized");
  }
  simulated_fallback_ = spec;
}

RuntimePlan DeviceConfig::make_plan_locked() {
  RuntimePlan plan;
  const Physical& cpu = devices_.front();
  if (cpu.logical && !cpu.logical->empty()) plan.num_cpus = static_cast<int>(cpu.logical->size());

  std::vector<const Physical*> gpus;
  bool any_virtual = false;
  for (const Physical& p : devices_) {
    if (p.type != DeviceType::kGPU || !p.visible) continue;
    gpus.push_back(&p);
    any_virtual |= p.logical.has_value();
  }
  if (gpus.empty()) {
    forced_allow_growth();  // still validated: a typo is an error
    return plan;
  }
  if (any_virtual && gpu_memory_fraction_) {
    throw InvalidArgumentError(
        "It's invalid to set per_process_gpu_memory_fraction when virtual devices are set");
  }
  // As TensorFlow: without virtual devices all visible GPUs must agree, unset counting as a
  // value of its own; with virtual devices each GPU keeps its own setting.
  if (!any_virtual) {
    for (const Physical* g : gpus) {
      if (g->memory_growth != gpus.front()->memory_growth) {
        throw InvalidArgumentError("Memory growth cannot differ between GPU devices");
      }
    }
  }
  const std::optional<bool> forced = forced_allow_growth();
  if (forced) {
    emit_log(debugging::LogLevel::kWarning,
             fmt::format("Overriding allow_growth setting because the "
                         "EAGLE_FORCE_GPU_ALLOW_GROWTH environment variable is set. Original "
                         "config value was {}.",
                         gpus.front()->memory_growth.value_or(false)));
  }

  plan.gpu_platform = gpu_platform_.get();
  int logical_id = 0;
  for (const Physical* g : gpus) {
    const PhysicalDeviceInfo info = gpu_platform_->info(g->ordinal);
    const bool growth = forced.value_or(g->memory_growth.value_or(false));
    std::vector<config::LogicalDeviceConfiguration> entries =
        g->logical.value_or(std::vector<config::LogicalDeviceConfiguration>{});
    if (entries.empty()) entries.emplace_back();
    for (const config::LogicalDeviceConfiguration& entry : entries) {
      std::size_t limit;
      if (entry.memory_limit) {
        limit = static_cast<std::size_t>(*entry.memory_limit) * kMiB;
      } else if (gpu_memory_fraction_) {
        limit = static_cast<std::size_t>(static_cast<double>(info.total_memory) *
                                         *gpu_memory_fraction_);
      } else {
        const std::size_t free = gpu_platform_->free_memory(g->ordinal);
        const std::size_t reserve = system_memory_reserve(free, info.compute_capability);
        limit = free > reserve ? free - reserve : free;
      }
      plan.gpus.push_back(LogicalGpuPlan{g->ordinal, logical_id++, limit, growth});
    }
  }
  return plan;
}

void DeviceConfig::initialize(const std::function<void(const RuntimePlan&)>& build) {
  auto lock = lock_discovered();
  const RuntimePlan plan = make_plan_locked();
  build(plan);
  initialized_.store(true, std::memory_order_release);
}

}  // namespace eagle::runtime
