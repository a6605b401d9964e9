// Process-wide placement flags (docs/guide.md, "How an op is placed"). Atomics: read on every op,
// set rarely.
#pragma once

#include <atomic>

#include "eagle/config.hpp"

namespace eagle::runtime {

inline std::atomic<bool> g_log_device_placement{false};
inline std::atomic<bool> g_soft_device_placement{true};
inline std::atomic<DevicePolicy> g_device_policy{DevicePolicy::kSilent};
// Read by every float32 GPU matmul (config::enable_tensor_float_32_execution).
inline std::atomic<bool> g_tensor_float_32_execution{true};
// debugging::enable_check_numerics: every op's floating outputs checked after its kernel.
inline std::atomic<bool> g_check_numerics{false};

// While one lives, this thread's ops are left out of the placement log: the bookkeeping a
// library component does for itself (an optimizer reading and advancing its step counter), which
// would bury the user's ops in the log without telling them anything.
inline thread_local int t_unlogged_depth = 0;
class [[nodiscard]] UnloggedOps {
 public:
  UnloggedOps() { ++t_unlogged_depth; }
  ~UnloggedOps() { --t_unlogged_depth; }
  UnloggedOps(const UnloggedOps&) = delete;
  UnloggedOps& operator=(const UnloggedOps&) = delete;
};

}  // namespace eagle::runtime
