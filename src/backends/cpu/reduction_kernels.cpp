// Kernel-table entries for Sum, Mean, Max, Min, Prod, Any, All, ArgMax and ArgMin (the loops are in
// reduce.cpp).
#include "cpu/reduce.hpp"
#include "cpu/register_kernels.hpp"
#include "kernels/registration.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
EAGLE_CPU_ISA_BEGIN
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <ReduceKind kKind>
struct Reduce {
  template <class T>
  struct Kernel {
    static void run(KernelContext& ctx) {
      auto out = ctx.allocate_output();
      const auto& attrs = ctx.attrs<opdefs::ReduceAttrs>();
      const runtime::TensorImpl& x = ctx.input(0);
      reduce<T>(kKind, x.data<const T>(), x.shape(), attrs.axes, out->data<T>());
    }
  };
};

template <class T>
struct ArgMinKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    argmin<T>(x.data<const T>(), x.shape(), ctx.attrs<opdefs::AxisAttrs>().axis,
              out->data<std::int64_t>());
  }
};

template <class T>
struct ArgMaxKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    argmax<T>(x.data<const T>(), x.shape(), ctx.attrs<opdefs::AxisAttrs>().axis,
              out->data<std::int64_t>());
  }
};

}  // namespace

void register_reduction_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kSum, DeviceType::kCPU, Reduce<ReduceKind::kSum>::Kernel>(
      table);
  kernels::register_op<opdefs::OpId::kMean, DeviceType::kCPU, Reduce<ReduceKind::kMean>::Kernel>(
      table);
  kernels::register_op<opdefs::OpId::kMax, DeviceType::kCPU, Reduce<ReduceKind::kMax>::Kernel>(
      table);
  kernels::register_op<opdefs::OpId::kMin, DeviceType::kCPU, Reduce<ReduceKind::kMin>::Kernel>(
      table);
  kernels::register_op<opdefs::OpId::kProd, DeviceType::kCPU, Reduce<ReduceKind::kProd>::Kernel>(
      table);
  kernels::register_op<opdefs::OpId::kAny, DeviceType::kCPU, Reduce<ReduceKind::kAny>::Kernel>(
      table);
  kernels::register_op<opdefs::OpId::kAll, DeviceType::kCPU, Reduce<ReduceKind::kAll>::Kernel>(
      table);
  kernels::register_op<opdefs::OpId::kArgMax, DeviceType::kCPU, ArgMaxKernel>(table);
  kernels::register_op<opdefs::OpId::kArgMin, DeviceType::kCPU, ArgMinKernel>(table);
}

EAGLE_CPU_ISA_END
}  // namespace eagle::cpu
