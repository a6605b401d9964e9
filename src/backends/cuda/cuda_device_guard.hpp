// Makes a CUDA device current for a scope and gives the caller's current device back at its
// end, so that eagle's calls never change which device the user's own CUDA code runs on.
#pragma once

#include <cuda_runtime_api.h>

namespace eagle::cuda {

// True when the primary context of `ordinal` has been created (cuDevicePrimaryCtxGetState, looked
// up through the runtime so that eagle needs no link to libcuda). True as well when this cannot
// be told: restoring a device too often costs memory, failing to restore one changes behaviour.
bool has_primary_context(int ordinal) noexcept;

class CudaDeviceGuard {
 public:
  // Makes `ordinal` the current device (nothing to do when it already is). Never throws:
  // status() says whether it worked, check() turns a failure into an InternalError.
  explicit CudaDeviceGuard(int ordinal) noexcept;
  // Makes the caller's device current again. Skipped when that device has no context yet: since
  // CUDA 12 cudaSetDevice creates one, and a thread that never used a device (its current device
  // is then 0 by default) must not cost that device hundreds of MiB (PyTorch's
  // c10::cuda::MaybeSetDevice does the same).
  ~CudaDeviceGuard();

  CudaDeviceGuard(const CudaDeviceGuard&) = delete;
  CudaDeviceGuard& operator=(const CudaDeviceGuard&) = delete;

  cudaError_t status() const noexcept { return status_; }
  bool ok() const noexcept { return status_ == cudaSuccess; }
  // Throws InternalError "cudaSetDevice(<ordinal>) failed: ..." unless ok().
  void check() const;

 private:
  int ordinal_;
  int previous_ = -1;  // the device to make current again; -1 when there is nothing to restore
  cudaError_t status_ = cudaSuccess;
};

}  // namespace eagle::cuda
