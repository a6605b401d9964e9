#include <cuda_runtime.h>

#include "cuda_runtime_probe.hpp"

namespace eagle::cuda {
namespace {

__global__ void write_indices(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

}  // namespace

int visible_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls are not confused by it
    return 0;
  }
  return count;
}

bool run_smoke_kernel(int device) noexcept {
  constexpr int kN = 256;
  if (cudaSetDevice(device) != cudaSuccess) return false;
  int* d = nullptr;
  if (cudaMalloc(&d, kN * sizeof(int)) != cudaSuccess) return false;
  write_indices<<<1, kN>>>(d, kN);
  int host[kN] = {};
  const bool ok = cudaGetLastError() == cudaSuccess &&
                  cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess;
  cudaFree(d);
  if (!ok) return false;
  for (int i = 0; i < kN; ++i) {
    if (host[i] != i) return false;
  }
  return true;
}

}  // namespace eagle::cuda
