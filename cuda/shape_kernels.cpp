// Kernel-table entries of the shape ops on CUDA devices. Reshape, ExpandDims and Squeeze only
// relabel the bytes (tensors are immutable); Transpose, ConcatV2 and Slice move them
// (layout_kernels.cu).
#include "cpu/type_lists.hpp"
#include "cuda_kernels.hpp"
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
  static Tensor run(const KernelContext& ctx) {
    return Tensor(runtime::alias_tensor(ctx.input(0), ctx.output_shape));
  }
};

template <class T>
struct TransposeKernel {
  static Tensor run(const KernelContext& ctx) {
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    launch_transpose(scope, x.data(), x.shape(),
                     static_cast<const ops::TransposeAttrs*>(ctx.attrs)->perm, sizeof(T),
                     out->data());
    return Tensor(std::move(out));
  }
};

template <class T>
struct ConcatKernel {
  static Tensor run(const KernelContext& ctx) {
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    std::vector<const void*> data;
    std::vector<Shape> shapes;
    for (int i = 0; i < ctx.num_inputs; ++i) {
      data.push_back(ctx.input(i).data());
      shapes.push_back(ctx.input(i).shape());
    }
    launch_concat(scope, data, shapes, static_cast<const ops::AxisAttrs*>(ctx.attrs)->axis,
                  sizeof(T), out->data());
    return Tensor(std::move(out));
  }
};

template <class T>
struct SliceKernel {
  static Tensor run(const KernelContext& ctx) {
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    launch_slice(scope, x.data(), x.shape(), static_cast<const ops::SliceAttrs*>(ctx.attrs)->begin,
                 ctx.output_shape, sizeof(T), out->data());
    return Tensor(std::move(out));
  }
};

}  // namespace

void register_shape_kernels(runtime::KernelTable& table) {
  using cpu::add_kernels;
  using cpu::AllTypes;
  add_kernels<AliasKernel>(table, OpId::kReshape, AllTypes{}, DeviceType::kGPU);
  add_kernels<AliasKernel>(table, OpId::kExpandDims, AllTypes{}, DeviceType::kGPU);
  add_kernels<AliasKernel>(table, OpId::kSqueeze, AllTypes{}, DeviceType::kGPU);
  add_kernels<TransposeKernel>(table, OpId::kTranspose, AllTypes{}, DeviceType::kGPU);
  add_kernels<ConcatKernel>(table, OpId::kConcatV2, AllTypes{}, DeviceType::kGPU);
  add_kernels<SliceKernel>(table, OpId::kSlice, AllTypes{}, DeviceType::kGPU);
}

}  // namespace eagle::cuda
