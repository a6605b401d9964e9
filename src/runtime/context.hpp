// The runtime: the logical devices and the kernel table, built once at initialization
// (the first op, tensor, scope or device listing; SEMANTICS §5) and read-only afterwards.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/device.hpp"
#include "runtime/kernel_table.hpp"

namespace eagle::runtime {

class Context {
 public:
  // Initializes on first use; thread-safe.
  static Context& get();

  // In listing order: CPU devices first, then GPUs, each by id (list_logical_devices).
  const std::vector<Device*>& devices() const { return devices_; }
  // In placement priority order: GPUs before CPUs (SEMANTICS §3), each by id.
  const std::vector<Device*>& devices_by_priority() const { return by_priority_; }
  Device& host_device() const { return *devices_.front(); }
  const KernelTable& kernels() const { return kernels_; }
  // Changes whenever the device set does; part of every placement cache key.
  std::uint64_t device_set_version() const { return version_.load(std::memory_order_relaxed); }

 private:
  Context();

  std::vector<std::unique_ptr<Device>> owned_;
  std::vector<Device*> devices_;
  std::vector<Device*> by_priority_;
  KernelTable kernels_;
  std::atomic<std::uint64_t> version_{1};
};

}  // namespace eagle::runtime
