// tf.config equivalents: placement settings, physical and logical devices, device memory
// (docs/guide.md, "Devices", "Configuring devices" and "Simulated GPUs").
//
// Physical configuration (visible devices, memory growth, logical device configuration, the
// memory fraction) may change until the runtime initializes: at the first op or tensor, the first
// device scope, list_logical_devices or get_memory_info. After that it is frozen; setting a value
// it already has is a silent no-op, anything else is a FailedPreconditionError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace eagle {

// What happens when an op's input lives on another device (docs/guide.md, "Configuring devices").
enum class DevicePolicy {
  kSilent,    // copy, cache the copy on the source tensor
  kWarn,      // copy and log a warning
  kExplicit,  // refuse with InvalidArgumentError
};

// True when this build contains the CUDA backend (not whether a GPU is present: for that, ask
// list_physical_devices("GPU")).
bool is_built_with_cuda();

namespace config {

void set_soft_device_placement(bool enabled);  // default: on
bool get_soft_device_placement();

void set_device_policy(DevicePolicy policy);  // default: kSilent
DevicePolicy get_device_policy();

// TensorFlow's tf.config.experimental.enable_tensor_float_32_execution: float32 matmuls on GPUs
// with tensor cores (compute capability >= 8.0) may round their inputs to TF32 (10-bit mantissa,
// about 1e-3 relative error) for up to 8x the throughput. Default: on, as in TensorFlow. Takes
// effect for the next matmul; float64, float16 and bfloat16 are unaffected, and so is the CPU.
void enable_tensor_float_32_execution(bool enabled);
bool tensor_float_32_execution_enabled();

// ---- Threads ------------------------------------------------------------------------------------

namespace threading {
// TensorFlow's tf.config.threading.set_intra_op_parallelism_threads: the most threads one CPU op
// may use (large elementwise ops, reductions and softmax split their work; small ops always run
// on the calling thread). 0, the default, means the CPUs this process may run on (its affinity
// mask, so `taskset -c 0` gives 1). Unlike TensorFlow it may be changed at any time: the next op
// uses the new count. Results do not depend on it. Matmul uses the BLAS library's own threads
// (OPENBLAS_NUM_THREADS). InvalidArgumentError when negative.
void set_intra_op_parallelism_threads(int num_threads);
int get_intra_op_parallelism_threads();  // the value set; 0 when it is the default
}  // namespace threading

// ---- Physical devices -------------------------------------------------------------------------

struct PhysicalDevice {
  std::string name;         // "/physical_device:GPU:0"
  std::string device_type;  // "GPU"
  friend bool operator==(const PhysicalDevice& a, const PhysicalDevice& b) {
    return a.name == b.name && a.device_type == b.device_type;
  }
  friend bool operator!=(const PhysicalDevice& a, const PhysicalDevice& b) { return !(a == b); }
};

struct DeviceDetails {
  std::string device_name;  // "NVIDIA H100 80GB HBM3", "Simulated GPU", the CPU model
  std::optional<std::pair<int, int>> compute_capability;  // CUDA GPUs only: {9, 0}
  std::size_t total_memory = 0;                           // bytes
};

// CPU:0 first, then the GPUs in ordinal order. Does not initialize the runtime; never throws for
// "no GPU". An unknown type gives an empty list.
std::vector<PhysicalDevice> list_physical_devices(const std::string& device_type = "");
// InvalidArgumentError "Unrecognized device: <name>" for a device not from the listing.
DeviceDetails get_device_details(const PhysicalDevice& device);

// Makes exactly `devices` visible among those of `device_type` (all types when empty); others
// stay as they are. The CPU cannot be hidden.
void set_visible_devices(const std::vector<PhysicalDevice>& devices,
                         const std::string& device_type = "");
void set_visible_devices(const PhysicalDevice& device, const std::string& device_type = "");
std::vector<PhysicalDevice> get_visible_devices(const std::string& device_type = "");

// GPU only. Empty until set. All visible GPUs must agree at initialization.
void set_memory_growth(const PhysicalDevice& device, bool enable);
std::optional<bool> get_memory_growth(const PhysicalDevice& device);

// One entry per logical device to make from a physical one (TensorFlow's virtual devices).
struct LogicalDeviceConfiguration {
  std::optional<std::int64_t> memory_limit;  // MiB; required on GPUs, refused on the CPU
  friend bool operator==(const LogicalDeviceConfiguration& a, const LogicalDeviceConfiguration& b) {
    return a.memory_limit == b.memory_limit;
  }
  friend bool operator!=(const LogicalDeviceConfiguration& a, const LogicalDeviceConfiguration& b) {
    return !(a == b);
  }
};
void set_logical_device_configuration(const PhysicalDevice& device,
                                      const std::vector<LogicalDeviceConfiguration>& logical);
// Empty until set.
std::optional<std::vector<LogicalDeviceConfiguration>> get_logical_device_configuration(
    const PhysicalDevice& device);

// TensorFlow's per_process_gpu_memory_fraction: each GPU allocator's limit is total * fraction.
// In (0, 1]; refused together with logical GPU configurations.
void set_gpu_memory_fraction(double fraction);
std::optional<double> get_gpu_memory_fraction();

// When the machine has no CUDA GPU (none built, no driver, or none visible), report `count`
// simulated GPUs of `memory_bytes` each, as EAGLE_SIMULATED_GPUS would (docs/guide.md, "Simulated
// GPUs"); with real GPUs present this does nothing. The variable, when set, wins. Must be called
// before the first device listing or initialization (FailedPreconditionError otherwise). For
// tests and samples that must run anywhere.
inline constexpr std::size_t kDefaultSimulatedGpuMemory = std::size_t{16} << 30;
void simulate_gpus_when_absent(int count, std::size_t memory_bytes = kDefaultSimulatedGpuMemory);

// ---- Logical devices ----------------------------------------------------------------------------

struct LogicalDevice {
  std::string name;         // "/device:CPU:0"
  std::string device_type;  // "CPU"
};
// Initializes the runtime. CPUs first, then GPUs: ids run over the visible physical GPUs in
// order, each one's logical devices in configuration order.
std::vector<LogicalDevice> list_logical_devices(const std::string& device_type = "");

// ---- Device memory ------------------------------------------------------------------------------

struct MemoryInfo {
  std::size_t current = 0;   // bytes of live tensors (rounded to the allocator's granule)
  std::size_t peak = 0;      // most `current` has been since start or reset_memory_stats
  std::size_t reserved = 0;  // bytes the allocator holds from the device
  std::size_t limit = 0;     // most it may hold
};
// `device` names a logical device: "GPU:0", "/device:GPU:1", a full name. Initializes the
// runtime. InvalidArgumentError "No matching devices found for '<device>'", or "Allocator stats
// not available for device '<device>'" (the CPU).
MemoryInfo get_memory_info(const std::string& device);
void reset_memory_stats(const std::string& device);  // peak = current
// Returns the device's fully free regions to the driver; the bytes returned.
std::size_t release_unused_memory(const std::string& device);

}  // namespace config

// Waits until every op queued so far on every device has finished (TensorFlow's
// tf.test.experimental.sync_devices, torch.cuda.synchronize). Ops on GPUs are asynchronous: they
// return once their work is queued, and reading a tensor's values waits only for that tensor.
// This is for timing and for handing device memory to other libraries. An error a queued kernel
// met is reported here as InternalError.
void sync_devices();

}  // namespace eagle
