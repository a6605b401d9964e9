// One cuBLAS handle per logical GPU: bound to that device's stream and given a workspace from
// that device's allocator once, then reused by every matmul on the device.
#pragma once

#include <cublas_v2.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

namespace eagle::runtime {
class Device;
}

namespace eagle::cuda {

// "<call> failed: CUBLAS_STATUS_... (<description>)" as an InternalError.
[[noreturn]] void throw_cublas_error(cublasStatus_t status, std::string_view call);
inline void check_cublas(cublasStatus_t status, std::string_view call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw_cublas_error(status, call);
}
#define EAGLE_CUBLAS_CHECK(expr) ::eagle::cuda::check_cublas((expr), #expr)

class CublasHandle {
 public:
  // With the device current. The workspace (cuBLAS recommends 32 MiB on Hopper) comes from
  // `device`'s allocator, so it shows in its memory statistics like any tensor; a logical GPU
  // too small for it gets a smaller one. Throws InternalError when cuBLAS cannot start.
  CublasHandle(runtime::Device& device, cudaStream_t stream);
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  cublasHandle_t get() const noexcept { return handle_; }
  // cuBLAS handles must not be used by two threads at once.
  std::mutex& mutex() noexcept { return mutex_; }

 private:
  runtime::Device& device_;
  cublasHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  std::mutex mutex_;
};

}  // namespace eagle::cuda
