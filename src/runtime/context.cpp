#include "runtime/context.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "cpu/cpu_device.hpp"
#include "cpu/register_kernels.hpp"
#include "eagle/errors.hpp"
#include "runtime/device_config.hpp"
#include "simulated/simulated_gpu_kernels.hpp"

#ifdef EAGLE_WITH_CUDA
#include "cuda_kernels.hpp"
#endif

namespace eagle::runtime {

Context& Context::get() {
  // Never destroyed: Note [Runtime lifetime] in device_config.cpp.
  static Context* const context = new Context();
  return *context;
}

Context::Context() {
  DeviceConfig::get().initialize([this](const RuntimePlan& plan) { build(plan); });
}

void Context::build(const RuntimePlan& plan) {
  for (int i = 0; i < plan.num_cpus; ++i) owned_.push_back(std::make_unique<cpu::CpuDevice>(i));
  for (const LogicalGpuPlan& gpu : plan.gpus) {
    owned_.push_back(plan.gpu_platform->make_logical_device(gpu.ordinal, gpu.logical_id,
                                                            gpu.memory_limit, gpu.allow_growth));
  }
  for (auto& d : owned_) devices_.push_back(d.get());
  by_priority_ = devices_;
  std::stable_sort(by_priority_.begin(), by_priority_.end(), [](Device* a, Device* b) {
    return a->type() == DeviceType::kGPU && b->type() != DeviceType::kGPU;
  });
  // Registration is explicit, from this one place (no static initializers a linker may drop).
  cpu::register_kernels(kernels_);
  check_against_op_table(DeviceType::kCPU);
  // GPU kernels exist only where there are GPUs: "Supported device types" in placement errors
  // then lists what this process can actually run. Both kinds register exactly the GPU kernel
  // set (Note [GPU kernel set]).
  if (plan.gpus.empty()) return;
  if (plan.gpu_platform->host_accessible()) {
    simulated::register_simulated_gpu_kernels(kernels_);
  } else {
#ifdef EAGLE_WITH_CUDA
    cuda::register_cuda_kernels(kernels_);
#endif
  }
  check_against_op_table(DeviceType::kGPU);
}

void Context::check_against_op_table([[maybe_unused]] DeviceType type) const {
  // Debug builds only: the release path is covered by op_table_test on every backend.
#ifndef NDEBUG
  const std::string differences = kernels_.differences_from_op_table(type);
  if (!differences.empty()) {
    throw InternalError(fmt::format("The {} kernels differ from the op table (Note [Op table]):{}",
                                    device_type_name(type), differences));
  }
#endif
}

}  // namespace eagle::runtime
