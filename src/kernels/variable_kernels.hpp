// The kernels of the variable ops that need no arithmetic, the same on every device: a handle's
// buffer, a read, an assignment. Each backend registers them (cpu/variable_kernels.cpp,
// cuda/variable_kernels.cu) beside its own AssignAdd/AssignSub.
#pragma once

#include <cstring>

#include "runtime/kernel_context.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::kernels {

// Copies `bytes` between two buffers of one device.
inline void copy_on_device(runtime::Device& device, void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0 || dst == src) return;
  if (device.host_accessible()) {
    std::memcpy(dst, src, bytes);
  } else if (!device.copy_to_device(device, dst, src, bytes)) {
    throw InternalError("A device could not copy within its own memory");
  }
}

// VarHandleOp: the variable's buffer, on the device the op was placed on; AssignVariableOp
// fills it before anyone reads it (Note [Variable storage] in variables/variable.cpp).
inline void var_handle_kernel(runtime::KernelContext& ctx) { ctx.allocate_output(0); }

// ReadVariableOp: the value as it is now. It shares the buffer's bytes; an update that finds
// them shared writes fresh bytes instead (mutable_input's copy on write), so the value read
// never changes.
inline void read_variable_kernel(runtime::KernelContext& ctx) {
  ctx.set_output(0, runtime::alias_tensor(ctx.input(0), ctx.output_shape(0)));
}

// AssignVariableOp(resource, value).
inline void assign_variable_kernel(runtime::KernelContext& ctx) {
  runtime::TensorImpl& buffer = ctx.mutable_input(0, /*keep_contents=*/false);
  copy_on_device(ctx.device(), buffer.data(), ctx.input(1).data(), buffer.bytes());
}

}  // namespace eagle::kernels
