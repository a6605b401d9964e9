#include "cuda_device.hpp"

#include <utility>

#include "cuda_check.hpp"
#include "cuda_device_guard.hpp"

namespace eagle::cuda {

CudaDevice::CudaDevice(int ordinal, int logical_id, std::shared_ptr<memory::RegionProvider> memory,
                       std::size_t memory_limit, bool allow_growth)
    : GpuDevice(logical_id, std::move(memory), memory_limit, allow_growth), ordinal_(ordinal) {
  CudaDeviceGuard guard(ordinal_);
  guard.check();
  EAGLE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

CudaDevice::~CudaDevice() {
  if (stream_ == nullptr) return;
  // Work still queued on the stream completes; its resources are released afterwards.
  CudaDeviceGuard guard(ordinal_);
  cuda_succeeded(cudaStreamDestroy(stream_));
}

void CudaDevice::copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  CudaDeviceGuard guard(ordinal_);
  guard.check();
  EAGLE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
  EAGLE_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CudaDevice::copy_from_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  CudaDeviceGuard guard(ordinal_);
  guard.check();
  EAGLE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_));
  EAGLE_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

}  // namespace eagle::cuda
