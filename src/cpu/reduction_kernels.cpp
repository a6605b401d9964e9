// Kernel-table entries for Sum, Mean, Max, Min and ArgMax (the loops are in reduce.cpp).
#include "cpu/reduce.hpp"
#include "cpu/register_kernels.hpp"
#include "cpu/type_lists.hpp"
#include "ops/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

using runtime::KernelContext;
using runtime::OpId;

template <ReduceKind kKind>
struct Reduce {
  template <class T>
  struct Kernel {
    static Tensor run(const KernelContext& ctx) {
      auto out = ctx.allocate_output();
      const auto& attrs = *static_cast<const ops::ReduceAttrs*>(ctx.attrs);
      const runtime::TensorImpl& x = ctx.input(0);
      reduce<T>(kKind, x.data<const T>(), x.shape(), attrs.axes, out->data<T>());
      return Tensor(std::move(out));
    }
  };
};

template <class T>
struct ArgMaxKernel {
  static Tensor run(const KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    argmax<T>(x.data<const T>(), x.shape(), static_cast<const ops::AxisAttrs*>(ctx.attrs)->axis,
              out->data<std::int64_t>());
    return Tensor(std::move(out));
  }
};

}  // namespace

void register_reduction_kernels(runtime::KernelTable& table) {
  add_kernels<Reduce<ReduceKind::kSum>::Kernel>(table, OpId::kSum, NumericTypes{});
  add_kernels<Reduce<ReduceKind::kMean>::Kernel>(table, OpId::kMean, NumericTypes{});
  add_kernels<Reduce<ReduceKind::kMax>::Kernel>(table, OpId::kMax, NumericTypes{});
  add_kernels<Reduce<ReduceKind::kMin>::Kernel>(table, OpId::kMin, NumericTypes{});
  add_kernels<ArgMaxKernel>(table, OpId::kArgMax, NumericTypes{});
}

}  // namespace eagle::cpu
