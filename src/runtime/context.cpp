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

// Note [The local task's name]
// A process that is not part of a cluster names its devices "/job:localhost/replica:0/task:0/...",
// as TensorFlow does. Joining a cluster (config::experimental_connect_to_cluster) renames them to
// that task's name, "/job:local/replica:0/task:0/device:CPU:0", again as TensorFlow does: a scope
// and the placement log then spell a local device as the cluster does, and the job "localhost" no
// longer names anything. Tensors keep their Device*, so they follow the rename. The names are
// plain strings read without a lock by every op, so connecting is for program start, before other
// threads run ops (documented with the function; TensorFlow's connect likewise invalidates what
// ran before). The version bump invalidates every thread's placement cache.
void Context::rename_local_task(const std::string& job, std::int64_t task) {
  for (Device* device : devices_) device->rename_task(job, task);
  devices_changed();
}

}  // namespace eagle::runtime
