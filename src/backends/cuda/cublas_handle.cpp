#include "cublas_handle.hpp"

#include "cublas_library.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "eagle/errors.hpp"
#include "memory/bfc_allocator.hpp"
#include "runtime/device.hpp"

namespace eagle::cuda {

void throw_cublas_error(cublasStatus_t status, std::string_view call) {
  throw InternalError(fmt::format("{} failed: {} ({})", call, cublas().status_name(status),
                                  cublas().status_string(status)));
}

CublasHandle::CublasHandle(runtime::Device& device, cudaStream_t stream) : device_(device) {
  EAGLE_CUBLAS_CHECK(cublas().create(&handle_));
  try {
    EAGLE_CUBLAS_CHECK(cublas().set_stream(handle_, stream));
    // Pointer mode host (alpha, beta from the host) is the default; state it, ops rely on it.
    EAGLE_CUBLAS_CHECK(cublas().set_pointer_mode(handle_, CUBLAS_POINTER_MODE_HOST));
    constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
    std::size_t bytes = kWorkspaceBytes;
    if (memory::BfcAllocator* allocator = device.bfc_allocator()) {
      bytes = std::min(bytes, allocator->stats().bytes_limit / 16);
    }
    bytes &= ~std::size_t{255};
    if (bytes > 0) {
      try {
        workspace_ = device.allocate(bytes, Shape{static_cast<std::int64_t>(bytes)}, DType::kBool);
        workspace_bytes_ = bytes;
      } catch (const ResourceExhaustedError&) {
        // cuBLAS then falls back on its own small default workspace.
      }
    }
    if (workspace_ != nullptr) {
      EAGLE_CUBLAS_CHECK(cublas().set_workspace(handle_, workspace_, workspace_bytes_));
    }
  } catch (...) {
    if (workspace_ != nullptr) device.deallocate(workspace_, workspace_bytes_);
    cublas().destroy(handle_);
    throw;
  }
}

CublasHandle::~CublasHandle() {
  // cublasDestroy waits for the handle's queued work, so the workspace is free afterwards.
  cublas().destroy(handle_);
  if (workspace_ != nullptr) device_.deallocate(workspace_, workspace_bytes_);
}

}  // namespace eagle::cuda
