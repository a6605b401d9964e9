// A logical GPU on a CUDA device: its memory comes from the physical device's
// CudaRegionProvider (through the GpuDevice allocator), its work goes to a stream of its own.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "memory/region_provider.hpp"
#include "runtime/gpu_device.hpp"

namespace eagle::cuda {

class CudaDevice final : public runtime::GpuDevice {
 public:
  // Logical GPU:<logical_id> on CUDA device `ordinal`. Creates the device's non-blocking stream
  // (a stream per logical device: virtual GPUs split from one card do not share one). Throws
  // InternalError when the device or the stream cannot be set up.
  CudaDevice(int ordinal, int logical_id, std::shared_ptr<memory::RegionProvider> memory,
             std::size_t memory_limit, bool allow_growth);
  ~CudaDevice() override;

  bool host_accessible() const override { return false; }
  // Device memory <-> host memory on this device's stream. Synchronous: they return when the
  // bytes have arrived (ops on this device are synchronous until kernels record events).
  // InternalError on a CUDA failure.
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override;
  void copy_from_host(void* dst, const void* src, std::size_t bytes) override;

  cudaStream_t stream() const noexcept { return stream_; }
  // The CUDA device ordinal (after CUDA_VISIBLE_DEVICES), not the logical id.
  int ordinal() const noexcept { return ordinal_; }

 private:
  int ordinal_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace eagle::cuda
