// eagle::config flags (SEMANTICS §3.7, §5).
#include "eagle/config.hpp"

#include "runtime/flags.hpp"

namespace eagle::config {

void set_soft_device_placement(bool enabled) { runtime::g_soft_device_placement.store(enabled); }
bool get_soft_device_placement() { return runtime::g_soft_device_placement.load(); }

void set_device_policy(DevicePolicy policy) { runtime::g_device_policy.store(policy); }
DevicePolicy get_device_policy() { return runtime::g_device_policy.load(); }

}  // namespace eagle::config
