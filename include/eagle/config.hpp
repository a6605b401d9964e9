// tf.config equivalents: process-wide placement settings.
#pragma once

#include <string>
#include <vector>

namespace eagle {

// What happens when an op's input lives on another device (SEMANTICS §3.5).
enum class DevicePolicy {
  kSilent,    // copy, cache the copy on the source tensor
  kWarn,      // copy and log a warning
  kExplicit,  // refuse with InvalidArgumentError
};

// True when this build contains the CUDA backend (not whether a GPU is present).
bool is_built_with_cuda();

namespace config {

void set_soft_device_placement(bool enabled);  // default: on
bool get_soft_device_placement();

void set_device_policy(DevicePolicy policy);  // default: kSilent
DevicePolicy get_device_policy();

struct LogicalDevice {
  std::string name;         // "/device:CPU:0"
  std::string device_type;  // "CPU"
};
std::vector<LogicalDevice> list_logical_devices(const std::string& device_type = "");

}  // namespace config
}  // namespace eagle
