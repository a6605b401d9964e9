// What every CUDA kernel function of the kernel table does around its launches: make the op's
// device current, size the grid, and turn a failed launch into an InternalError.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "cuda_check.hpp"
#include "cuda_device.hpp"
#include "cuda_device_guard.hpp"
#include "runtime/kernel_table.hpp"

namespace eagle::cuda {

// The op's device made current for the kernel function's scope (launches go to its stream).
class LaunchScope {
 public:
  explicit LaunchScope(const runtime::KernelContext& ctx)
      : device_(static_cast<CudaDevice&>(ctx.device())), guard_(device_.ordinal()) {
    guard_.check();
  }
  CudaDevice& device() const { return device_; }
  cudaStream_t stream() const { return device_.stream(); }

 private:
  CudaDevice& device_;
  CudaDeviceGuard guard_;
};

inline constexpr int kBlockSize = 256;

// Blocks for `work_items` items of kBlockSize threads each, capped at a few waves of the device
// (grid-stride loops cover the rest): enough blocks to fill every SM without paying for
// millions of tiny blocks. At least 1.
inline unsigned int grid_size(std::int64_t work_items, const CudaDevice& device,
                              int block_size = kBlockSize) {
  const std::int64_t needed = (work_items + block_size - 1) / block_size;
  const std::int64_t cap = std::int64_t{device.multiprocessor_count()} * (2048 / block_size) * 4;
  return static_cast<unsigned int>(std::max<std::int64_t>(1, std::min(needed, cap)));
}

// After a launch: a bad configuration (or an earlier asynchronous failure) becomes an
// InternalError naming the kernel.
inline void check_launch(const char* kernel) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) throw_cuda_error(status, std::string("launching ") + kernel);
}

}  // namespace eagle::cuda
