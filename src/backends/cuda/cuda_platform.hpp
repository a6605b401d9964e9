// The CUDA GPUs of this machine as a platform (docs/design.md, "Devices: platforms,
// configuration, logical devices"). Devices are the CUDA runtime's ordinals, so
// CUDA_VISIBLE_DEVICES is honoured by the runtime itself before eagle enumerates anything. A
// machine without a driver or a GPU has zero devices; nothing throws then.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "memory/region_provider.hpp"
#include "runtime/platform.hpp"

namespace eagle::cuda {

// The memory of one CUDA device: cudaMalloc/cudaFree with that device current (the caller's
// current device is restored afterwards). Shared by every logical GPU made from the device.
class CudaRegionProvider final : public memory::RegionProvider {
 public:
  explicit CudaRegionProvider(int ordinal) : ordinal_(ordinal) {}

  // cudaMalloc, which aligns to at least 256 bytes; nullptr when it fails (the error is
  // cleared, so it does not resurface in a later call).
  void* allocate_region(std::size_t bytes) noexcept override;
  void free_region(void* ptr, std::size_t bytes) noexcept override;
  // cudaMemGetInfo; 0 when it fails.
  std::size_t free_bytes() const noexcept override;
  std::size_t total_bytes() const noexcept override;

  int ordinal() const noexcept { return ordinal_; }

 private:
  int ordinal_;
};

class CudaPlatform final : public runtime::GpuPlatform {
 public:
  // cudaGetDeviceCount, asked once; 0 when it fails (no driver, no device, a driver too old).
  int device_count() const noexcept override;
  // cudaGetDeviceProperties: name, compute capability, total global memory. Creates no context.
  runtime::PhysicalDeviceInfo info(int ordinal) const override;
  // cudaMemGetInfo on the device (which creates its context). InternalError on failure.
  std::size_t free_memory(int ordinal) const override;
  // A CudaDevice with a stream of its own on device `ordinal`.
  std::unique_ptr<runtime::Device> make_logical_device(int ordinal, int logical_id,
                                                       std::size_t memory_limit,
                                                       bool allow_growth) override;
  bool host_accessible() const override { return false; }

 private:
  // One provider per device, made on the first request and kept by the platform.
  std::shared_ptr<memory::RegionProvider> region_provider(int ordinal);
  // Throws InternalError unless 0 <= ordinal < device_count().
  void check_ordinal(int ordinal) const;

  mutable std::atomic<int> device_count_{-1};  // -1: not asked yet
  std::mutex providers_mutex_;
  std::vector<std::shared_ptr<CudaRegionProvider>> providers_;  // by ordinal, null until asked
};

std::unique_ptr<runtime::GpuPlatform> make_cuda_platform();

}  // namespace eagle::cuda
