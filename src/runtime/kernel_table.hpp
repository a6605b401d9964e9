// Which device types implement which op for which dtype, and the functions that do it.
#pragma once

#include <array>
#include <string>

#include "eagle/dtype.hpp"
#include "opdefs/op_defs.hpp"
#include "runtime/device.hpp"
#include "runtime/kernel_context.hpp"

namespace eagle::runtime {

// A dense table indexed by (op, device type, dtype): a lookup is three array indexings.
// Filled once at runtime initialization, read-only afterwards (no locks on the op path).
class KernelTable {
 public:
  // Registers a kernel for an empty slot. A second kernel for the same slot is an InternalError:
  // two providers (oneDNN beside the reference loops) must not clobber each other silently.
  void add(opdefs::OpId op, DeviceType type, DType dtype, KernelFn fn);
  // Replaces the kernel in a filled slot: the explicit choice of a second provider.
  void replace(opdefs::OpId op, DeviceType type, DType dtype, KernelFn fn);
  KernelFn find(opdefs::OpId op, DeviceType type, DType dtype) const {
    return table_[static_cast<int>(op)][static_cast<int>(type)][static_cast<int>(dtype)];
  }
  bool has_any(opdefs::OpId op, DeviceType type) const;
  // "device='CPU'; T in [float32, float64]": for NotFoundError messages.
  std::string describe(opdefs::OpId op) const;
  // Where the kernels of `type` differ from the op table's column for it (Note [Op table]):
  // " Sum/bool(registered, not declared) ...", or "" when they agree.
  std::string differences_from_op_table(DeviceType type) const;

 private:
  KernelFn& slot(opdefs::OpId op, DeviceType type, DType dtype) {
    return table_[static_cast<int>(op)][static_cast<int>(type)][static_cast<int>(dtype)];
  }
  std::array<std::array<std::array<KernelFn, kNumDTypes>, kNumDeviceTypes>, opdefs::kNumOps>
      table_{};
};

}  // namespace eagle::runtime
