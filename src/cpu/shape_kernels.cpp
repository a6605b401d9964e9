// Kernel-table entries for the shape ops. Reshape, ExpandDims and Squeeze only relabel the
// bytes (tensors are immutable, so sharing is safe); Transpose, ConcatV2 and Slice move data.
#include "cpu/layout.hpp"
#include "cpu/register_kernels.hpp"
#include "kernels/registration.hpp"
#include "ops/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
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
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    transpose(x.data(), x.shape(), ctx.attrs<ops::TransposeAttrs>().perm, sizeof(T), out->data());
  }
};

template <class T>
struct ConcatKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    std::vector<const void*> data;
    std::vector<Shape> shapes;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      data.push_back(ctx.input(i).data());
      shapes.push_back(ctx.input(i).shape());
    }
    concat(data, shapes, ctx.attrs<ops::AxisAttrs>().axis, sizeof(T), out->data());
  }
};

template <class T>
struct SliceKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    slice(x.data(), x.shape(), ctx.attrs<ops::SliceAttrs>().begin, ctx.output_shape(), sizeof(T),
          out->data());
  }
};

}  // namespace

void register_shape_kernels(runtime::KernelTable& table) {
  kernels::register_op<OpId::kReshape, DeviceType::kCPU, AliasKernel>(table);
  kernels::register_op<OpId::kExpandDims, DeviceType::kCPU, AliasKernel>(table);
  kernels::register_op<OpId::kSqueeze, DeviceType::kCPU, AliasKernel>(table);
  kernels::register_op<OpId::kTranspose, DeviceType::kCPU, TransposeKernel>(table);
  kernels::register_op<OpId::kConcatV2, DeviceType::kCPU, ConcatKernel>(table);
  kernels::register_op<OpId::kSlice, DeviceType::kCPU, SliceKernel>(table);
}

}  // namespace eagle::cpu
