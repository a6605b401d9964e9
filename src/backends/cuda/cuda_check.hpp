// Checking CUDA runtime calls: a failed call becomes an eagle::InternalError that names the call,
// the CUDA error and its description, e.g.
//   cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) failed: cudaErrorInvalidValue (invalid
//   argument)
// Host C++ only (no kernels), so it can be used from .cpp files compiled against CUDA::cudart.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

namespace eagle::cuda {

// "<call> failed: <cudaErrorName> (<description>)".
std::string cuda_error_message(cudaError_t status, std::string_view call);

// Clears the thread's last CUDA error (cudaGetLastError) so that later calls do not report it
// again, then throws InternalError with cuda_error_message(status, call). A sticky error (a
// corrupted context) cannot be cleared; every later call on that device reports it anyway.
[[noreturn]] void throw_cuda_error(cudaError_t status, std::string_view call);

// Throws as throw_cuda_error unless `status` is cudaSuccess.
inline void check_cuda(cudaError_t status, std::string_view call) {
  if (status != cudaSuccess) throw_cuda_error(status, call);
}

// For the paths that must not throw (noexcept queries, destructors, allocation that reports
// failure as nullptr): true on cudaSuccess; otherwise clears the thread's last error and returns
// false.
inline bool cuda_succeeded(cudaError_t status) noexcept {
  if (status == cudaSuccess) return true;
  cudaGetLastError();
  return false;
}

}  // namespace eagle::cuda

// Evaluates a cudaError_t expression once; on failure throws InternalError naming the call as
// written: EAGLE_CUDA_CHECK(cudaMalloc(&p, bytes)).
#define EAGLE_CUDA_CHECK(expr) ::eagle::cuda::check_cuda((expr), #expr)
