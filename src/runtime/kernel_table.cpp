#include "runtime/kernel_table.hpp"

#include <vector>

#include <fmt/format.h>

#include "eagle/errors.hpp"

namespace eagle::runtime {

void KernelTable::add(opdefs::OpId op, DeviceType type, DType dtype, KernelFn fn) {
  KernelFn& s = slot(op, type, dtype);
  if (s != nullptr) {
    throw InternalError(
        fmt::format("A second {} kernel for {} on {} was registered; use "
                    "KernelTable::replace to choose another provider",
                    opdefs::op_name(op), dtype_name(dtype), device_type_name(type)));
  }
  s = fn;
}

void KernelTable::replace(opdefs::OpId op, DeviceType type, DType dtype, KernelFn fn) {
  KernelFn& s = slot(op, type, dtype);
  if (s == nullptr) {
    throw InternalError(fmt::format("No {} kernel for {} on {} to replace", opdefs::op_name(op),
                                    dtype_name(dtype), device_type_name(type)));
  }
  s = fn;
}

bool KernelTable::has_any(opdefs::OpId op, DeviceType type) const {
  for (int d = 0; d < kNumDTypes; ++d) {
    if (find(op, type, static_cast<DType>(d))) return true;
  }
  return false;
}

std::string KernelTable::describe(opdefs::OpId op) const {
  std::vector<std::string> entries;
  for (DeviceType type : kDeviceTypePriority) {
    std::vector<std::string_view> dtypes;
    for (int d = 0; d < kNumDTypes; ++d) {
      if (find(op, type, static_cast<DType>(d)))
        dtypes.push_back(dtype_name(static_cast<DType>(d)));
    }
    if (!dtypes.empty()) {
      entries.push_back(
          fmt::format("device='{}'; T in [{}]", device_type_name(type), fmt::join(dtypes, ", ")));
    }
  }
  return entries.empty() ? "<no registered kernels>" : fmt::format("{}", fmt::join(entries, " | "));
}

std::string KernelTable::differences_from_op_table(DeviceType type) const {
  std::string out;
  for (int o = 0; o < opdefs::kNumOps; ++o) {
    const auto op = static_cast<opdefs::OpId>(o);
    for (int d = 0; d < kNumDTypes; ++d) {
      const auto dtype = static_cast<DType>(d);
      const bool declared = type == DeviceType::kCPU ? opdefs::cpu_implements(op, dtype)
                                                     : opdefs::gpu_implements(op, dtype);
      const bool registered = find(op, type, dtype) != nullptr;
      if (declared == registered) continue;
      out += fmt::format(" {}/{}({})", opdefs::op_name(op), dtype_name(dtype),
                         declared ? "declared, not registered" : "registered, not declared");
    }
  }
  return out;
}

}  // namespace eagle::runtime
