#include "cuda_platform.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

#include "cuda_check.hpp"
#include "cuda_device.hpp"
#include "cuda_device_guard.hpp"
#include "eagle/errors.hpp"

namespace eagle::cuda {
namespace {

// cudaMemGetInfo on `ordinal`, with the caller's current device restored afterwards.
// (free, total) on success, (0, 0) on failure, with the error cleared.
std::pair<std::size_t, std::size_t> device_memory_info(int ordinal) noexcept {
  CudaDeviceGuard guard(ordinal);
  std::size_t available = 0;
  std::size_t total = 0;
  if (!guard.ok() || !cuda_succeeded(cudaMemGetInfo(&available, &total))) return {0, 0};
  return {available, total};
}

}  // namespace

void* CudaRegionProvider::allocate_region(std::size_t bytes) noexcept {
  CudaDeviceGuard guard(ordinal_);
  if (!guard.ok()) return nullptr;
  void* ptr = nullptr;
  if (!cuda_succeeded(cudaMalloc(&ptr, bytes))) return nullptr;
  return ptr;
}

void CudaRegionProvider::free_region(void* ptr, std::size_t) noexcept {
  if (ptr == nullptr) return;
  CudaDeviceGuard guard(ordinal_);
  cuda_succeeded(cudaFree(ptr));
}

std::size_t CudaRegionProvider::free_bytes() const noexcept {
  return device_memory_info(ordinal_).first;
}

std::size_t CudaRegionProvider::total_bytes() const noexcept {
  return device_memory_info(ordinal_).second;
}

int CudaPlatform::device_count() const noexcept {
  int count = device_count_.load(std::memory_order_acquire);
  if (count >= 0) return count;
  // Two threads may both ask the runtime the first time; they get the same answer.
  count = 0;
  if (!cuda_succeeded(cudaGetDeviceCount(&count)) || count < 0) count = 0;
  device_count_.store(count, std::memory_order_release);
  return count;
}

void CudaPlatform::check_ordinal(int ordinal) const {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count) {
    throw InternalError("CUDA device ordinal " + std::to_string(ordinal) + " is out of range (" +
                        std::to_string(count) + " CUDA devices)");
  }
}

runtime::PhysicalDeviceInfo CudaPlatform::info(int ordinal) const {
  check_ordinal(ordinal);
  cudaDeviceProp prop{};
  EAGLE_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  runtime::PhysicalDeviceInfo info;
  info.device_name = prop.name;
  info.compute_capability = std::make_pair(prop.major, prop.minor);
  info.total_memory = prop.totalGlobalMem;
  return info;
}

std::size_t CudaPlatform::free_memory(int ordinal) const {
  check_ordinal(ordinal);
  CudaDeviceGuard guard(ordinal);
  guard.check();
  std::size_t available = 0;
  std::size_t total = 0;
  EAGLE_CUDA_CHECK(cudaMemGetInfo(&available, &total));
  return available;
}

std::shared_ptr<memory::RegionProvider> CudaPlatform::region_provider(int ordinal) {
  check_ordinal(ordinal);
  std::lock_guard<std::mutex> lock(providers_mutex_);
  const auto index = static_cast<std::size_t>(ordinal);
  if (providers_.size() <= index) providers_.resize(index + 1);
  std::shared_ptr<CudaRegionProvider>& provider = providers_[index];
  if (provider == nullptr) provider = std::make_shared<CudaRegionProvider>(ordinal);
  return provider;
}

std::unique_ptr<runtime::Device> CudaPlatform::make_logical_device(int ordinal, int logical_id,
                                                                   std::size_t memory_limit,
                                                                   bool allow_growth) {
  return std::make_unique<CudaDevice>(ordinal, logical_id, region_provider(ordinal), memory_limit,
                                      allow_growth);
}

std::unique_ptr<runtime::GpuPlatform> make_cuda_platform() {
  return std::make_unique<CudaPlatform>();
}

}  // namespace eagle::cuda
