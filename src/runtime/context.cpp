#include "runtime/context.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "runtime/backends.hpp"
#include "runtime/device_config.hpp"

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
  for (int i = 0; i < plan.num_cpus; ++i) owned_.push_back(make_cpu_device(i));
  for (const LogicalGpuPlan& gpu : plan.gpus) {
    owned_.push_back(plan.gpu_platform->make_logical_device(gpu.ordinal, gpu.logical_id,
                                                            gpu.memory_limit, gpu.allow_growth));
  }
  for (auto& d : owned_) devices_.push_back(d.get());
  by_priority_ = devices_;
  std::stable_sort(by_priority_.begin(), by_priority_.end(), [](Device* a, Device* b) {
    return a->type() == DeviceType::kGPU && b->type() != DeviceType::kGPU;
  });
  // Registration is explicit, from this one place (no static initializers a linker may drop),
  // through the composition root (Note [Backend registry]).
  register_backend_kernels(kernels_, DeviceType::kCPU, nullptr);
  check_against_op_table(DeviceType::kCPU);
  // GPU kernels exist only where there are GPUs: "Supported device types" in placement errors
  // then lists what this process can actually run. Every kind of GPU registers exactly the GPU
  // kernel set (Note [GPU kernel set]).
  if (plan.gpus.empty()) return;
  register_backend_kernels(kernels_, DeviceType::kGPU, plan.gpu_platform);
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
