#include "runtime/kernel_table.hpp"

#include <vector>

#include <fmt/format.h>

#include "runtime/tensor_impl.hpp"

namespace eagle::runtime {

std::shared_ptr<TensorImpl> KernelContext::allocate_output() const {
  return allocate_tensor(device, output_shape, output_dtype);
}

bool KernelTable::has_any(OpId op, DeviceType type) const {
  for (int d = 0; d < kNumDTypes; ++d) {
    if (find(op, type, static_cast<DType>(d))) return true;
  }
  return false;
}

std::string KernelTable::describe(OpId op) const {
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

}  // namespace eagle::runtime
