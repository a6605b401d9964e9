// For the test programs that check GPU backends: whether this process sees a real CUDA GPU, and
// the "Not Run" exit code (ctest SKIP_RETURN_CODE) of a program that requires one.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "eagle/config.hpp"

namespace eagle_test {

// ctest reports a test whose SKIP_RETURN_CODE is 77 as "Not Run" (never "Passed").
inline constexpr int kSkipReturnCode = 77;

// True when GPU:0 is a CUDA device. Simulated GPUs (docs/guide.md, "Simulated GPUs") have no
// compute capability. Lists the physical devices (which does not initialize the runtime).
inline bool real_cuda_gpu_present() {
  const auto gpus = eagle::config::list_physical_devices("GPU");
  return !gpus.empty() && eagle::config::get_device_details(gpus[0]).compute_capability;
}

// For a program that needs a real CUDA GPU: ignores EAGLE_SIMULATED_GPUS (a simulated GPU must
// never let such a test pass) and returns kSkipReturnCode, with a line saying why, when there is
// no CUDA GPU; 0 when there is one.
inline int require_real_cuda_gpu(const char* program) {
  ::unsetenv("EAGLE_SIMULATED_GPUS");
  if (!eagle::is_built_with_cuda()) {
    std::printf("SKIP: %s: this build has no CUDA backend\n", program);
    return kSkipReturnCode;
  }
  if (!real_cuda_gpu_present()) {
    std::printf("SKIP: %s: no CUDA GPU is visible\n", program);
    return kSkipReturnCode;
  }
  return 0;
}

// Catch's exit code is the number of failed assertions (capped at 255): 77 of them must not read
// as "Not Run".
inline int run_result(int catch_result) { return catch_result == 0 ? 0 : 1; }

}  // namespace eagle_test
