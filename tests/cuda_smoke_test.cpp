// Runs only where a CUDA GPU is present; elsewhere exits 77, which ctest reports as "Not Run".
#include <cstdio>

#include "cuda_runtime_probe.hpp"
#include "eagle/config.hpp"

int main() {
  if (!eagle::is_built_with_cuda()) {
    std::puts("FAIL: the CUDA backend was compiled but is_built_with_cuda() is false");
    return 1;
  }
  const int count = eagle::cuda::visible_device_count();
  if (count == 0) {
    std::puts("SKIP: no CUDA GPU is visible");
    return 77;
  }
  for (int d = 0; d < count; ++d) {
    if (!eagle::cuda::run_smoke_kernel(d)) {
      std::printf("FAIL: smoke kernel on GPU %d\n", d);
      return 1;
    }
  }
  std::printf("OK: smoke kernel ran on %d GPU(s)\n", count);
  return 0;
}
