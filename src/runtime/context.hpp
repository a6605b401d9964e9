// The runtime: the logical devices and the kernel table, built once at initialization from the
// frozen device configuration (the first op, tensor, scope, device listing or memory query;
// docs/guide.md, "Configuring devices") and read-only afterwards.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/device.hpp"
#include "runtime/kernel_table.hpp"

namespace eagle::runtime {

struct RuntimePlan;

class Context {
 public:
  // Initializes on first use; thread-safe. A failed initialization (a configuration error)
  // throws, freezes nothing, and is retried by the next call.
  static Context& get();

  // In listing order: CPU devices first, then GPUs, each by id (list_logical_devices).
  const std::vector<Device*>& devices() const { return devices_; }
  // In placement priority order: GPUs before CPUs, each by id (docs/guide.md, "How an op is
  // placed").
  const std::vector<Device*>& devices_by_priority() const { return by_priority_; }
  Device& host_device() const { return *devices_.front(); }
  const KernelTable& kernels() const { return kernels_; }
  // Part of every placement cache key, so that a cache entry never outlives the names it
  // matched: the device set is fixed once built, and only rename_local_task changes the version.
  std::uint64_t device_set_version() const {
    return device_set_version_.load(std::memory_order_acquire);
  }

  // Invalidates every thread's placement cache: the remote devices changed.
  void devices_changed() { device_set_version_.fetch_add(1, std::memory_order_acq_rel); }
  // Names the local devices as task `task` of job `job` (Note [The local task's name]).
  void rename_local_task(const std::string& job, std::int64_t task);

 private:
  Context();
  void build(const RuntimePlan& plan);
  void check_against_op_table(DeviceType type) const;

  std::atomic<std::uint64_t> device_set_version_{1};
  std::vector<std::unique_ptr<Device>> owned_;
  std::vector<Device*> devices_;
  std::vector<Device*> by_priority_;
  KernelTable kernels_;
};

}  // namespace eagle::runtime
