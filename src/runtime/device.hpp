// A logical device: where an op runs and where its output's bytes live.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "eagle/device_name.hpp"
#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"

namespace eagle::memory {
class BfcAllocator;
}

namespace eagle::runtime {

// GPU before CPU in placement (docs/guide.md, "How an op is placed"); see kDeviceTypePriority.
enum class DeviceType : std::uint8_t { kCPU, kGPU };
inline constexpr int kNumDeviceTypes = 2;
inline constexpr DeviceType kDeviceTypePriority[kNumDeviceTypes] = {DeviceType::kGPU,
                                                                    DeviceType::kCPU};

std::string_view device_type_name(DeviceType type);

class Device {
 public:
  Device(DeviceType type, int id);
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  DeviceType type() const { return type_; }
  int id() const { return id_; }
  // "/job:localhost/replica:0/task:0/device:CPU:0"
  const std::string& name() const { return name_; }
  const DeviceName& parsed_name() const { return parsed_name_; }
  // True for a device of another task of the cluster (runtime/remote_device.hpp): its memory is
  // that task's, an op on it runs there, and its "pointers" are handles to the task's tensors.
  bool remote() const { return remote_; }
  // Renames the device into a cluster's task: "/job:<job>/replica:0/task:<task>/device:CPU:0"
  // (Note [The local task's name] in runtime/context.cpp).
  void rename_task(const std::string& job, std::int64_t task);

  // Bytes for a tensor of `shape` and `dtype` (both only for the out-of-memory message).
  // Throws ResourceExhaustedError; never returns nullptr for bytes > 0.
  virtual void* allocate(std::size_t bytes, const Shape& shape, DType dtype) = 0;
  virtual void deallocate(void* ptr, std::size_t bytes) noexcept = 0;

  // True when host code (the CPU kernels) can read and write this device's memory directly.
  virtual bool host_accessible() const = 0;
  virtual void copy_to_host(void* dst, const void* src, std::size_t bytes) = 0;
  virtual void copy_from_host(void* dst, const void* src, std::size_t bytes) = 0;

  // Copies `bytes` from this device's `src` straight into `destination`'s `dst` when the two can
  // (CUDA devices, Note [Stream ordering] in backends/cuda/cuda_device.hpp); false when they
  // cannot, and the caller then stages the bytes through the host.
  virtual bool copy_to_device(Device& /*destination*/, void* /*dst*/, const void* /*src*/,
                              std::size_t /*bytes*/) {
    return false;
  }

  // Copies `bytes` between two buffers of this device (a variable's copy on write, its
  // assignment): memcpy where host code reaches the memory, copy_to_device itself otherwise.
  void copy_within(void* dst, const void* src, std::size_t bytes);

  // Waits for every kernel and copy queued on this device (eagle::sync_devices). Devices whose
  // kernels run synchronously on the calling thread (the CPU, simulated GPUs) have nothing to
  // wait for.
  virtual void synchronize() {}

  // The allocator behind a GPU's memory statistics (get_memory_info); nullptr when the device
  // keeps none (the CPU, as in TensorFlow).
  virtual memory::BfcAllocator* bfc_allocator() noexcept { return nullptr; }

 protected:
  // A device named in full by its owner (a remote task's device: `remote` true).
  Device(DeviceType type, int id, const DeviceName& name, bool remote);

 private:
  friend class ScopedDevice;

  DeviceType type_;
  int id_;
  DeviceName parsed_name_;
  std::string name_;
  bool remote_ = false;
  std::atomic<std::uint32_t> scope_spec_id_{0};  // interned parsed_name_, 0 until first needed
};

}  // namespace eagle::runtime
