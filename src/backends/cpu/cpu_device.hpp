// The host CPU as a device: plain memory, kernels run on the calling thread (and OpenBLAS's).
#pragma once

#include <cstring>

#include "memory/host_allocator.hpp"
#include "runtime/device.hpp"

namespace eagle::cpu {

class CpuDevice final : public runtime::Device {
 public:
  explicit CpuDevice(int id) : Device(runtime::DeviceType::kCPU, id), allocator_("cpu", name()) {}

  void* allocate(std::size_t bytes, const Shape& shape, DType dtype) override {
    return allocator_.allocate(bytes, shape, dtype);
  }
  void deallocate(void* ptr, std::size_t bytes) noexcept override {
    allocator_.deallocate(ptr, bytes);
  }
  bool host_accessible() const override { return true; }
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void copy_from_host(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }

 private:
  memory::HostAllocator allocator_;
};

}  // namespace eagle::cpu
