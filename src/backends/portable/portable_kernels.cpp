#include "portable/portable_kernels.hpp"

#include "kernels/registration.hpp"
#include "runtime/kernel_context.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::portable {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

// Identity, StopGradient, Reshape, ExpandDims, Squeeze: the input's bytes under the output's
// shape.
template <class T>
struct AliasKernel {
  static void run(KernelContext& ctx) {
    ctx.set_output(0, runtime::alias_tensor(ctx.input(0), ctx.output_shape()));
  }
};

// IdentityN: each output aliases its input, whatever their dtypes.
template <class T>
struct IdentityNKernel {
  static void run(KernelContext& ctx) {
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      ctx.set_output(i, runtime::alias_tensor(ctx.input(i), ctx.output_shape(i)));
    }
  }
};

// VarHandleOp: the variable's buffer, on the device the op was placed on; AssignVariableOp fills
// it before anyone reads it (Note [Variable storage] in variables/variable.cpp).
template <class T>
struct VarHandleKernel {
  static void run(KernelContext& ctx) { ctx.allocate_output(0); }
};

// ReadVariableOp: the value as it is now. It shares the buffer's bytes; an update that finds them
// shared writes fresh bytes instead (KernelContext::mutable_input's copy on write), so the value
// read never changes.
template <class T>
struct ReadVariableKernel {
  static void run(KernelContext& ctx) {
    ctx.set_output(0, runtime::alias_tensor(ctx.input(0), ctx.output_shape(0)));
  }
};

template <DeviceType kType>
void register_for(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kIdentity, kType, AliasKernel>(table);
  kernels::register_op<opdefs::OpId::kStopGradient, kType, AliasKernel>(table);
  kernels::register_op<opdefs::OpId::kReshape, kType, AliasKernel>(table);
  kernels::register_op<opdefs::OpId::kExpandDims, kType, AliasKernel>(table);
  kernels::register_op<opdefs::OpId::kSqueeze, kType, AliasKernel>(table);
  kernels::register_op<opdefs::OpId::kIdentityN, kType, IdentityNKernel>(table);
  kernels::register_op<opdefs::OpId::kVarHandleOp, kType, VarHandleKernel>(table);
  kernels::register_op<opdefs::OpId::kReadVariableOp, kType, ReadVariableKernel>(table);
}

}  // namespace

void register_portable_kernels(runtime::KernelTable& table, runtime::DeviceType type) {
  if (type == DeviceType::kCPU) {
    register_for<DeviceType::kCPU>(table);
  } else {
    register_for<DeviceType::kGPU>(table);
  }
}

}  // namespace eagle::portable
