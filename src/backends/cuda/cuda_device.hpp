// A logical GPU on a CUDA device: its memory comes from the physical device's
// CudaRegionProvider (through the GpuDevice allocator), its work goes to a stream of its own.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <mutex>

#include "cublas_handle.hpp"
#include "memory/region_provider.hpp"
#include "pinned_staging.hpp"
#include "runtime/gpu_device.hpp"

namespace eagle::cuda {

// Note [Stream ordering]
// ~~~~~~~~~~~~~~~~~~~~~~
// Every kernel and copy of a logical GPU goes to that GPU's one stream, so its work runs in the
// order the ops were called, and an op returns as soon as its work is queued. This is also what
// makes freeing safe without waiting: when a tensor dies, its memory goes back to the device's
// allocator at once, and the next tensor that gets those bytes is written by work queued *after*
// every kernel that could still read the old one. Work that crosses streams is ordered with
// events: a device-to-device copy runs on the destination's stream after an event of the source
// stream, and the source stream then waits for the copy before anything later on it can reuse
// the source's bytes. Host reads wait for an event behind the tensor's producer, never for the
// whole device.
class CudaDevice final : public runtime::GpuDevice {
 public:
  // Logical GPU:<logical_id> on CUDA device `ordinal`. Creates the device's non-blocking stream
  // (a stream per logical device: virtual GPUs split from one card do not share one). Throws
  // InternalError when the device or the stream cannot be set up.
  CudaDevice(int ordinal, int logical_id, std::shared_ptr<memory::RegionProvider> memory,
             std::size_t memory_limit, bool allow_growth);
  ~CudaDevice() override;

  bool host_accessible() const override { return false; }
  // Through pinned staging on this device's stream. copy_from_host returns once `src` may be
  // reused; copy_to_host once the bytes have arrived, having waited for the work queued before
  // it (Note [Stream ordering]). InternalError on a CUDA failure, including one a queued kernel
  // met.
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override;
  void copy_from_host(void* dst, const void* src, std::size_t bytes) override;
  // To another CudaDevice (another card, or another logical GPU of this one), ordered with events
  // and without waiting on the host. False for any other kind of device.
  bool copy_to_device(runtime::Device& destination, void* dst, const void* src,
                      std::size_t bytes) override;
  void synchronize() override;

  cudaStream_t stream() const noexcept { return stream_; }
  // The CUDA device ordinal (after CUDA_VISIBLE_DEVICES), not the logical id.
  int ordinal() const noexcept { return ordinal_; }
  int multiprocessor_count() const noexcept { return multiprocessor_count_; }
  // The device's cuBLAS handle, made on first use. Lock its mutex() around every call.
  CublasHandle& cublas();

 private:
  int ordinal_;
  int multiprocessor_count_ = 1;
  cudaStream_t stream_ = nullptr;
  PinnedStaging staging_;
  std::once_flag cublas_once_;
  std::unique_ptr<CublasHandle> cublas_;
};

}  // namespace eagle::cuda
