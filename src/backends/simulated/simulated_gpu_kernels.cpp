#include "simulated/simulated_gpu_kernels.hpp"

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "opdefs/op_defs.hpp"

namespace eagle::simulated {

void register_simulated_gpu_kernels(runtime::KernelTable& table) {
  using runtime::DeviceType;
  for (int o = 0; o < opdefs::kNumOps; ++o) {
    const auto op = static_cast<opdefs::OpId>(o);
    for (int d = 0; d < kNumDTypes; ++d) {
      const auto dtype = static_cast<DType>(d);
      if (!opdefs::gpu_implements(op, dtype)) continue;
      const runtime::KernelFn cpu_kernel = table.find(op, DeviceType::kCPU, dtype);
      if (cpu_kernel == nullptr) {
        throw InternalError(
            fmt::format("The GPU kernel set declares {} for {} but the CPU has no "
                        "such kernel to simulate it with",
                        opdefs::op_name(op), dtype_name(dtype)));
      }
      table.add(op, DeviceType::kGPU, dtype, cpu_kernel);
    }
  }
}

}  // namespace eagle::simulated
