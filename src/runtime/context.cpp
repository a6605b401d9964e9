#include "runtime/context.hpp"

#include <algorithm>

#include "cpu/cpu_device.hpp"
#include "cpu/register_kernels.hpp"
#include "eagle/config.hpp"

namespace eagle::runtime {

Context& Context::get() {
  static Context context;
  return context;
}

Context::Context() {
  owned_.push_back(std::make_unique<cpu::CpuDevice>(0));
  for (auto& d : owned_) devices_.push_back(d.get());
  by_priority_ = devices_;
  std::stable_sort(by_priority_.begin(), by_priority_.end(), [](Device* a, Device* b) {
    return a->type() == DeviceType::kGPU && b->type() != DeviceType::kGPU;
  });
  // Registration is explicit, from this one place (no static initializers a linker may drop).
  cpu::register_kernels(kernels_);
}

}  // namespace eagle::runtime

namespace eagle {

bool is_built_with_cuda() {
#ifdef EAGLE_WITH_CUDA
  return true;
#else
  return false;
#endif
}

namespace config {

std::vector<LogicalDevice> list_logical_devices(const std::string& device_type) {
  std::vector<LogicalDevice> out;
  for (runtime::Device* d : runtime::Context::get().devices()) {
    const std::string type(runtime::device_type_name(d->type()));
    if (!device_type.empty() && device_type != type) continue;
    out.push_back({"/device:" + type + ":" + std::to_string(d->id()), type});
  }
  return out;
}

}  // namespace config
}  // namespace eagle
