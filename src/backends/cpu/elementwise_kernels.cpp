// CPU kernels of the elementwise binary and unary ops; their math is
// kernels/elementwise_functors.hpp.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cpu/broadcast_loop.hpp"
#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "eagle/errors.hpp"
#include "kernels/elementwise_functors.hpp"
#include "kernels/kernel_errors.hpp"
#include "kernels/registration.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
EAGLE_CPU_ISA_BEGIN
namespace {

using runtime::DeviceType;
using runtime::KernelContext;
using runtime::KernelTable;

template <class T, class Fn>
void binary_kernel(KernelContext& ctx) {
  using C = compute_t<T>;
  using R = decltype(Fn{}(C{}, C{}));
  using Out = std::conditional_t<std::is_same_v<R, bool>, bool, T>;
  const runtime::TensorImpl& x = ctx.input(0);
  const runtime::TensorImpl& y = ctx.input(1);
  if constexpr (std::is_same_v<Fn, kernels::PowFn> && std::is_integral_v<T>) {
    const T* e = y.data<const T>();
    if (std::any_of(e, e + y.shape().num_elements(), [](T v) { return v < 0; })) {
      kernels::throw_negative_integer_power();
    }
  }
  if constexpr (kernels::is_integer_division_v<Fn> && std::is_integral_v<T>) {
    const T* d = y.data<const T>();
    if (std::any_of(d, d + y.shape().num_elements(), [](T v) { return v == 0; })) {
      kernels::throw_integer_division_by_zero(opdefs::op_name(ctx.op()));
    }
  }
  auto out = ctx.allocate_output();
  broadcast_apply<T, Out>(x.data<const T>(), x.shape(), y.data<const T>(), y.shape(),
                          out->data<Out>(), ctx.output_shape(), kernels::make_functor<Fn>(ctx));
}

template <class T, class Fn>
void unary_kernel(KernelContext& ctx) {
  using C = compute_t<T>;
  using Out = std::conditional_t<std::is_same_v<decltype(Fn{}(C{})), bool>, bool, T>;
  const runtime::TensorImpl& x = ctx.input(0);
  // A donated input's bytes become the output's (Note [Kernel contract]): `in` and `o` may be
  // the same array, read and written at the same index, so neither is __restrict.
  auto out = ctx.forward_input_or_allocate_output(0);
  const T* in = x.data<const T>();
  Out* o = out->data<Out>();
  const std::int64_t n = ctx.output_shape().num_elements();
  const Fn f = kernels::make_functor<Fn>(ctx);
  parallel_for(
      n, 2 * sizeof(T) * functor_cost<Fn>::value,
      [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) o[i] = convert<Out>(f(C(in[i])));
      },
      64);
}

// ---- Registration
// ---------------------------------------------------------------------------------
template <opdefs::OpId kOp, class Fn>
void add_binary(KernelTable& table) {
  kernels::register_op<kOp, DeviceType::kCPU>(
      table, [](auto tag) -> runtime::KernelFn { return &binary_kernel<decltype(tag), Fn>; });
}
template <opdefs::OpId kOp, class Fn>
void add_unary(KernelTable& table) {
  kernels::register_op<kOp, DeviceType::kCPU>(
      table, [](auto tag) -> runtime::KernelFn { return &unary_kernel<decltype(tag), Fn>; });
}

}  // namespace

void register_elementwise_kernels(KernelTable& table) {
#define EAGLE_ADD_BINARY(op, fn) add_binary<opdefs::OpId::k##op, kernels::fn>(table);
#define EAGLE_ADD_UNARY(op, fn) add_unary<opdefs::OpId::k##op, kernels::fn>(table);
  EAGLE_ELEMENTWISE_OPS(EAGLE_ADD_BINARY, EAGLE_ADD_UNARY)
#undef EAGLE_ADD_BINARY
#undef EAGLE_ADD_UNARY
}

EAGLE_CPU_ISA_END
}  // namespace eagle::cpu
