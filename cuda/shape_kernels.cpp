// Kernel-table entries of the shape ops on CUDA devices. Reshape, ExpandDims and Squeeze only
// relabel the bytes (tensors are immutable); Transpose, ConcatV2 and Slice move them
// (layout_kernels.cu).
#include "cuda_kernels.hpp"
#include "kernels/registration.hpp"
#include "layout_kernels.hpp"
#include "ops/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;
using runtime::OpId;

template <class T>
struct AliasKernel {
  static void run(KernelContext& ctx) {
    ctx.set_output(0, runtime::alias_tensor(ctx.input(0), ctx.output_shape()));
  }
};

template <class T>
struct TransposeKernel {
  static void run(KernelContext& ctx) {
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    launch_transpose(scope, x.data(), x.shape(), ctx.attrs<ops::TransposeAttrs>().perm, sizeof(T),
                     out->data());
  }
};

template <class T>
struct ConcatKernel {
  static void run(KernelContext& ctx) {
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    std::vector<const void*> data;
    std::vector<Shape> shapes;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      data.push_back(ctx.input(i).data());
      shapes.push_back(ctx.input(i).shape());
    }
    launch_concat(scope, data, shapes, ctx.attrs<ops::AxisAttrs>().axis, sizeof(T), out->data());
  }
};

template <class T>
struct SliceKernel {
  static void run(KernelContext& ctx) {
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    launch_slice(scope, x.data(), x.shape(), ctx.attrs<ops::SliceAttrs>().begin, ctx.output_shape(),
                 sizeof(T), out->data());
  }
};

}  // namespace

void register_shape_kernels(runtime::KernelTable& table) {
  kernels::register_op<OpId::kReshape, DeviceType::kGPU, AliasKernel>(table);
  kernels::register_op<OpId::kExpandDims, DeviceType::kGPU, AliasKernel>(table);
  kernels::register_op<OpId::kSqueeze, DeviceType::kGPU, AliasKernel>(table);
  kernels::register_op<OpId::kTranspose, DeviceType::kGPU, TransposeKernel>(table);
  kernels::register_op<OpId::kConcatV2, DeviceType::kGPU, ConcatKernel>(table);
  kernels::register_op<OpId::kSlice, DeviceType::kGPU, SliceKernel>(table);
}

}  // namespace eagle::cuda
