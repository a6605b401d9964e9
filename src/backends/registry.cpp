// The composition root (Note [Backend registry] in runtime/backends.hpp): the one file that names
// every backend, and what the runtime asks of them.
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cpu/cpu_device.hpp"
#include "cpu/cpu_platform.hpp"
#include "cpu/intra_op_pool.hpp"
#include "cpu/register_kernels.hpp"
#include "portable/portable_kernels.hpp"
#include "runtime/backends.hpp"
#include "runtime/log_sink.hpp"
#include "simulated/simulated_gpu_kernels.hpp"
#include "simulated/simulated_gpu_platform.hpp"
#include "simulated/simulated_gpu_spec.hpp"
#ifdef EAGLE_WITH_CUDA
#include "cuda_kernels.hpp"
#include "cuda_platform.hpp"
#endif

namespace eagle::runtime {

Platforms discover_platforms(const std::optional<SimulatedGpuSpec>& fallback) {
  Platforms platforms;
  platforms.cpu = std::make_unique<cpu::CpuPlatform>();
  std::unique_ptr<GpuPlatform> cuda;
#ifdef EAGLE_WITH_CUDA
  cuda = eagle::cuda::make_cuda_platform();
#endif
  const int cuda_count = cuda ? cuda->device_count() : 0;

  std::optional<SimulatedGpuSpec> simulated;
  const char* env = std::getenv("EAGLE_SIMULATED_GPUS");
  if (env != nullptr && *env != '\0') {
    // Parsed even when real GPUs win: a typo is an error, never silence.
    const SimulatedGpuSpec spec = simulated::parse_simulated_gpu_spec(env);
    if (cuda_count > 0 && spec.count > 0) {
      emit_log(debugging::LogLevel::kWarning,
               fmt::format("EAGLE_SIMULATED_GPUS={} is ignored: this machine has {} CUDA GPU(s)",
                           env, cuda_count));
    }
    if (cuda_count == 0) simulated = spec;
  } else if (cuda_count == 0) {
    simulated = fallback;
  }

  if (cuda_count > 0) {
    platforms.gpu = std::move(cuda);
  } else if (simulated && simulated->count > 0) {
    platforms.gpu = std::make_unique<simulated::SimulatedGpuPlatform>(*simulated);
  }
  return platforms;
}

std::unique_ptr<Device> make_cpu_device(int id) { return std::make_unique<cpu::CpuDevice>(id); }

void register_backend_kernels(KernelTable& table, DeviceType type, const GpuPlatform* gpu) {
  if (type == DeviceType::kCPU) {
    cpu::register_kernels(table);
    portable::register_portable_kernels(table, DeviceType::kCPU);
    return;
  }
  if (gpu == nullptr) return;
  if (gpu->host_accessible()) {
    // A simulated GPU runs the CPU's kernels, the portable ones included.
    simulated::register_simulated_gpu_kernels(table);
    return;
  }
#ifdef EAGLE_WITH_CUDA
  cuda::register_cuda_kernels(table);
  portable::register_portable_kernels(table, DeviceType::kGPU);
#endif
}

void set_intra_op_threads(int threads) { cpu::set_intra_op_threads(threads); }
int configured_intra_op_threads() { return cpu::configured_intra_op_threads(); }

}  // namespace eagle::runtime
