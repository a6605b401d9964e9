// Which device types implement which op for which dtype, and the functions that do it.
#pragma once

#include <array>
#include <string>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"
#include "runtime/device.hpp"
#include "runtime/op_id.hpp"

namespace eagle::runtime {

// Everything a kernel needs. Inputs already live on `device`; the output shape and dtype were
// inferred (and validated) by the op before placement.
struct KernelContext {
  Device& device;
  const Tensor* inputs;
  int num_inputs;
  const Shape& output_shape;
  DType output_dtype;
  const void* attrs;  // the op's attribute struct, or nullptr

  const TensorImpl& input(int i) const { return *inputs[i].impl(); }
  std::shared_ptr<TensorImpl> allocate_output() const;
};

using KernelFn = Tensor (*)(const KernelContext&);

// A dense table indexed by (op, device type, dtype): a lookup is three array indexings.
// Filled once at runtime initialization, read-only afterwards (no locks on the op path).
class KernelTable {
 public:
  void add(OpId op, DeviceType type, DType dtype, KernelFn fn) { slot(op, type, dtype) = fn; }
  KernelFn find(OpId op, DeviceType type, DType dtype) const {
    return table_[static_cast<int>(op)][static_cast<int>(type)][static_cast<int>(dtype)];
  }
  bool has_any(OpId op, DeviceType type) const;
  // "device='CPU'; T in [float32, float64]": for NotFoundError messages.
  std::string describe(OpId op) const;

 private:
  KernelFn& slot(OpId op, DeviceType type, DType dtype) {
    return table_[static_cast<int>(op)][static_cast<int>(type)][static_cast<int>(dtype)];
  }
  std::array<std::array<std::array<KernelFn, kNumDTypes>, kNumDeviceTypes>, kNumOps> table_{};
};

}  // namespace eagle::runtime
