// Process-wide placement flags (SEMANTICS §3.7). Atomics: read on every op, set rarely.
#pragma once

#include <atomic>

#include "eagle/config.hpp"

namespace eagle::runtime {

inline std::atomic<bool> g_log_device_placement{false};
inline std::atomic<bool> g_soft_device_placement{true};
inline std::atomic<DevicePolicy> g_device_policy{DevicePolicy::kSilent};

}  // namespace eagle::runtime
