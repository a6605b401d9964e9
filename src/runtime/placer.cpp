#include "runtime/placer.hpp"

#include <array>
#include <string>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "runtime/context.hpp"
#include "runtime/flags.hpp"
#include "runtime/remote_devices.hpp"
#include "runtime/scope_stack.hpp"

namespace eagle::runtime {
namespace {

bool has_kernel(const KernelTable& kernels, opdefs::OpId op, DeviceType type, DType dtype) {
  return kernels.find(op, type, dtype) != nullptr;
}

Device* first_match(const PlacementRequest& r, const DeviceName* spec,
                    const std::vector<Device*>& devices, const KernelTable& kernels) {
  for (Device* d : devices) {  // priority order: the first candidate type wins
    if (!has_kernel(kernels, r.op, d->type(), r.dtype)) continue;
    if (spec == nullptr || d->parsed_name().matches(*spec)) return d;
  }
  return nullptr;
}

// TensorFlow's text when no device matches the scope; `types` are those with a kernel for the op,
// `names` every device there is.
[[noreturn]] void throw_unsatisfiable(const PlacementRequest& r,
                                      const std::vector<std::string_view>& types,
                                      const std::vector<std::string_view>& names) {
  throw InvalidArgumentError(fmt::format(
      "Could not satisfy device specification '{}'. enable_soft_placement={}. Supported device "
      "types [{}]. All available devices [{}]. [Op:{}]",
      r.spec->to_string(), r.soft ? 1 : 0, fmt::join(types, ", "), fmt::join(names, ", "),
      opdefs::op_name(r.op)));
}

[[noreturn]] void throw_unsatisfiable(const PlacementRequest& r,
                                      const std::vector<Device*>& devices,
                                      const KernelTable& kernels) {
  std::vector<std::string_view> types;
  for (DeviceType type : kDeviceTypePriority) {
    if (has_kernel(kernels, r.op, type, r.dtype)) types.push_back(device_type_name(type));
  }
  std::vector<std::string_view> names;
  for (Device* d : devices) names.push_back(d->name());
  throw_unsatisfiable(r, types, names);
}

// What soft placement falls back to: the spec's job, replica and task, any device of them.
DeviceName without_device(const DeviceName& spec) {
  DeviceName relaxed = spec;
  relaxed.type.reset();
  relaxed.id.reset();
  return relaxed;
}

// True when `spec` names a task other than this process's (Note [Remote devices]).
bool names_other_task(const DeviceName& spec, const DeviceName& host) {
  return (spec.job && *spec.job != *host.job) || (spec.task && *spec.task != *host.task) ||
         (spec.replica && *spec.replica != *host.replica);
}

// Another task's device for a scope that names that task. Its kernels are this build's (every
// task runs eagle), so the op table's dtype sets say what it runs; GPUs first, as locally.
Device& select_remote_device(const PlacementRequest& r, Context& context) {
  const std::vector<std::shared_ptr<RemoteDevice>> remotes = remote_devices();
  const opdefs::OpDef& def = opdefs::op_def(r.op);
  const auto supports = [&](DeviceType type) {
    return ((type == DeviceType::kGPU ? def.gpu_dtypes : def.cpu_dtypes) &
            opdefs::dtype_bit(r.dtype)) != 0;
  };
  const auto find = [&](const DeviceName& spec) -> Device* {
    for (DeviceType type : kDeviceTypePriority) {
      if (!supports(type)) continue;
      for (const auto& d : remotes) {
        if (d->type() == type && d->parsed_name().matches(spec)) return d.get();
      }
    }
    return nullptr;
  };
  if (Device* d = find(*r.spec)) return *d;
  if (r.soft) {
    if (Device* d = find(without_device(*r.spec))) return *d;
  }
  std::vector<std::string_view> types;
  for (DeviceType type : kDeviceTypePriority) {
    if (supports(type)) types.push_back(device_type_name(type));
  }
  std::vector<std::string_view> names;
  for (Device* d : context.devices()) names.push_back(d->name());
  for (const auto& d : remotes) names.push_back(d->name());
  throw_unsatisfiable(r, types, names);
}

}  // namespace

Device& select_device(const PlacementRequest& r, const std::vector<Device*>& devices,
                      const KernelTable& kernels) {
  // A DType made by casting a number outside the enumerators would index past the kernel table.
  if (static_cast<int>(r.dtype) >= kNumDTypes) {
    throw InvalidArgumentError(fmt::format("DType value {} is not a valid eagle::DType [Op:{}]",
                                           static_cast<int>(r.dtype), opdefs::op_name(r.op)));
  }
  bool any_kernel = false;
  for (DeviceType type : kDeviceTypePriority)
    any_kernel |= has_kernel(kernels, r.op, type, r.dtype);
  if (!any_kernel) {
    throw NotFoundError(fmt::format(
        "Could not find device for node: {} with dtype {}. All kernels registered for op {}: {}",
        opdefs::op_name(r.op), dtype_name(r.dtype), opdefs::op_name(r.op), kernels.describe(r.op)));
  }
  if (r.spec == nullptr) {
    if (r.prefer_host) {
      for (Device* d : devices) {
        if (d->type() == DeviceType::kCPU && has_kernel(kernels, r.op, d->type(), r.dtype)) {
          return *d;
        }
      }
    }
    if (Device* d = first_match(r, nullptr, devices, kernels)) return *d;
  } else {
    if (Device* d = first_match(r, r.spec, devices, kernels)) return *d;
    if (r.soft) {
      const DeviceName relaxed = without_device(*r.spec);
      if (Device* d = first_match(r, &relaxed, devices, kernels)) return *d;
    }
    throw_unsatisfiable(r, devices, kernels);
  }
  // Kernels exist but no device of their type does (a GPU-only op on a machine without one).
  throw NotFoundError(fmt::format(
      "Could not find device for node: {} with dtype {}. All kernels registered for op {}: {}",
      opdefs::op_name(r.op), dtype_name(r.dtype), opdefs::op_name(r.op), kernels.describe(r.op)));
}

namespace {

struct CacheEntry {
  std::uint64_t key = ~std::uint64_t{0};
  std::uint64_t version = 0;
  Device* device = nullptr;
};
constexpr std::size_t kCacheSlots = 64;

}  // namespace

Device& place(opdefs::OpId op, DType dtype, bool prefer_host) {
  const ScopeStack& scopes = this_thread_scopes();
  Context& context = Context::get();
  // Constants are always placed softly (Note [Constant placement] in ops/creation_ops.cpp).
  const bool soft = prefer_host || g_soft_device_placement.load(std::memory_order_relaxed);
  const std::uint64_t key = std::uint64_t{scopes.top_id()} |
                            (std::uint64_t{static_cast<std::uint16_t>(op)} << 32) |
                            (std::uint64_t{static_cast<std::uint8_t>(dtype)} << 48) |
                            (std::uint64_t{soft} << 56) | (std::uint64_t{prefer_host} << 57);
  const std::uint64_t version = context.device_set_version();
  thread_local std::array<CacheEntry, kCacheSlots> cache;
  CacheEntry& slot = cache[(key * 0x9E3779B97F4A7C15ull) >> 58];
  if (slot.key == key && slot.version == version) return *slot.device;

  const PlacementRequest request{op, dtype, scopes.top_spec(), soft, prefer_host};
  Device& device = request.spec != nullptr && static_cast<int>(dtype) < kNumDTypes &&
                           names_other_task(*request.spec, context.host_device().parsed_name())
                       ? select_remote_device(request, context)
                       : select_device(request, context.devices_by_priority(), context.kernels());
  slot = CacheEntry{key, version, &device};
  return device;
}

}  // namespace eagle::runtime
