// Kernel-table entries for the shape ops. Reshape, ExpandDims and Squeeze only relabel the
// bytes (tensors are immutable, so sharing is safe); Transpose, ConcatV2 and Slice move data.
#include "cpu/layout.hpp"
#include "cpu/register_kernels.hpp"
#include "cpu/type_lists.hpp"
#include "ops/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

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
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    transpose(x.data(), x.shape(), static_cast<const ops::TransposeAttrs*>(ctx.attrs)->perm,
              sizeof(T), out->data());
    return Tensor(std::move(out));
  }
};

template <class T>
struct ConcatKernel {
  static Tensor run(const KernelContext& ctx) {
    auto out = ctx.allocate_output();
    std::vector<const void*> data;
    std::vector<Shape> shapes;
    for (int i = 0; i < ctx.num_inputs; ++i) {
      data.push_back(ctx.input(i).data());
      shapes.push_back(ctx.input(i).shape());
    }
    concat(data, shapes, static_cast<const ops::AxisAttrs*>(ctx.attrs)->axis, sizeof(T),
           out->data());
    return Tensor(std::move(out));
  }
};

template <class T>
struct SliceKernel {
  static Tensor run(const KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    slice(x.data(), x.shape(), static_cast<const ops::SliceAttrs*>(ctx.attrs)->begin,
          ctx.output_shape, sizeof(T), out->data());
    return Tensor(std::move(out));
  }
};

}  // namespace

void register_shape_kernels(runtime::KernelTable& table) {
  add_kernels<AliasKernel>(table, OpId::kReshape, AllTypes{});
  add_kernels<AliasKernel>(table, OpId::kExpandDims, AllTypes{});
  add_kernels<AliasKernel>(table, OpId::kSqueeze, AllTypes{});
  add_kernels<TransposeKernel>(table, OpId::kTranspose, AllTypes{});
  add_kernels<ConcatKernel>(table, OpId::kConcatV2, AllTypes{});
  add_kernels<SliceKernel>(table, OpId::kSlice, AllTypes{});
}

}  // namespace eagle::cpu
