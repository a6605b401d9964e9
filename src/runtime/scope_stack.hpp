// The thread-local stack behind eagle::device() (docs/guide.md, "Devices", "Device names").
#pragma once

#include <cstdint>
#include <vector>

#include "eagle/device_name.hpp"

namespace eagle::runtime {

struct ScopeEntry {
  DeviceName spec;        // merged with every enclosing scope; empty = automatic placement
  std::uint32_t spec_id;  // interned canonical text of `spec` (0 = automatic): the cache key
  std::uint64_t token;    // identifies the DeviceScope that owns the entry
};

struct ScopeStack {
  std::vector<ScopeEntry> entries;
  bool nesting_violated = false;

  std::uint32_t top_id() const { return entries.empty() ? 0 : entries.back().spec_id; }
  const DeviceName* top_spec() const {
    return entries.empty() || entries.back().spec.empty() ? nullptr : &entries.back().spec;
  }
};

ScopeStack& this_thread_scopes();

// Throws FailedPreconditionError "Exiting device scope without proper scope nesting" once for
// each violation recorded on this thread (see Note [Scope nesting errors]). Cheap when clean.
void check_scope_nesting();

class Device;

// An internal device scope for work on a device already resolved (a gradient on its forward
// op's device, a replica's step): no string to parse, no global lock after the device's first
// use. Ops inside are placed as under eagle::device(<the device's full name>). Must end on the
// thread and in the order it began, as an eagle::DeviceScope.
class [[nodiscard]] ScopedDevice {
 public:
  explicit ScopedDevice(Device& device);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  std::uint64_t token_;
};

}  // namespace eagle::runtime
