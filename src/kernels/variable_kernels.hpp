// AssignVariableOp's kernel, the same on every device: a copy of the value into the variable's
// buffer. Each backend registers it (cpu/variable_kernels.cpp, backends/cuda/variable_kernels.cu)
// beside its own AssignAdd/AssignSub; VarHandleOp and ReadVariableOp touch no bytes and are
// registered once for every backend (portable/portable_kernels.cpp).
#pragma once

#include "runtime/kernel_context.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::kernels {

// AssignVariableOp(resource, value).
inline void assign_variable_kernel(runtime::KernelContext& ctx) {
  runtime::TensorImpl& buffer = ctx.mutable_input(0, /*keep_contents=*/false);
  ctx.device().copy_within(buffer.data(), ctx.input(1).data(), buffer.bytes());
}

}  // namespace eagle::kernels
