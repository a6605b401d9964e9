#include "cuda_device_guard.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>

#include "cuda_check.hpp"

namespace eagle::cuda {
namespace {

// The two driver functions has_primary_context needs, found once through the runtime.
struct DriverEntryPoints {
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuDevicePrimaryCtxGetState_v7000 primary_ctx_get_state = nullptr;
};

// The ABI asked for: the functions as of CUDA 12.0, which are still their only versions (_v2000
// and _v7000, the types used below).
constexpr unsigned int kAbiVersion = 12000;

void* driver_entry_point(const char* symbol, unsigned int version) noexcept {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (!cuda_succeeded(
          cudaGetDriverEntryPointByVersion(symbol, &fn, version, cudaEnableDefault, &found)) ||
      found != cudaDriverEntryPointSuccess) {
    return nullptr;
  }
  return fn;
}

const DriverEntryPoints& driver_entry_points() noexcept {
  static const DriverEntryPoints points = []() noexcept {
    DriverEntryPoints p;
    p.device_get =
        reinterpret_cast<PFN_cuDeviceGet_v2000>(driver_entry_point("cuDeviceGet", kAbiVersion));
    p.primary_ctx_get_state = reinterpret_cast<PFN_cuDevicePrimaryCtxGetState_v7000>(
        driver_entry_point("cuDevicePrimaryCtxGetState", kAbiVersion));
    return p;
  }();
  return points;
}

}  // namespace

bool has_primary_context(int ordinal) noexcept {
  const DriverEntryPoints& driver = driver_entry_points();
  if (driver.device_get == nullptr || driver.primary_ctx_get_state == nullptr) return true;
  // Runtime ordinals are driver ordinals (both after CUDA_VISIBLE_DEVICES).
  CUdevice device = 0;
  if (driver.device_get(&device, ordinal) != CUDA_SUCCESS) return true;
  unsigned int flags = 0;
  int active = 0;
  if (driver.primary_ctx_get_state(device, &flags, &active) != CUDA_SUCCESS) return true;
  return active != 0;
}

CudaDeviceGuard::CudaDeviceGuard(int ordinal) noexcept : ordinal_(ordinal) {
  int current = -1;
  if (!cuda_succeeded(cudaGetDevice(&current))) current = -1;
  if (current == ordinal) return;
  status_ = cudaSetDevice(ordinal);
  if (!cuda_succeeded(status_)) return;
  previous_ = current;
}

CudaDeviceGuard::~CudaDeviceGuard() {
  if (previous_ >= 0 && has_primary_context(previous_)) cuda_succeeded(cudaSetDevice(previous_));
}

void CudaDeviceGuard::check() const {
  if (!ok()) throw_cuda_error(status_, "cudaSetDevice(" + std::to_string(ordinal_) + ")");
}

}  // namespace eagle::cuda
