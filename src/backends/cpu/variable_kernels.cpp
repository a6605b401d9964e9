// CPU kernels of the variable ops that write bytes: AssignVariableOp (kernels/variable_kernels.hpp)
// and the in-place updates.
#include "kernels/variable_kernels.hpp"
#include "cpu/intra_op_pool.hpp"
#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "kernels/elementwise_functors.hpp"
#include "kernels/registration.hpp"

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

// AssignAddVariableOp / AssignSubVariableOp: buffer = buffer (+|-) delta, in place.
template <class T, class Fn>
void assign_update_kernel(KernelContext& ctx) {
  using C = compute_t<T>;
  runtime::TensorImpl& buffer = ctx.mutable_input(0, /*keep_contents=*/true);
  T* out = buffer.data<T>();
  const T* delta = ctx.input(1).data<const T>();
  const Fn f{};
  parallel_for(buffer.shape().num_elements(), 3 * sizeof(T), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) out[i] = convert<T>(f(C(out[i]), C(delta[i])));
  });
}

template <opdefs::OpId kOp>
void add_generic(runtime::KernelTable& table, runtime::KernelFn kernel) {
  kernels::register_op<kOp, DeviceType::kCPU>(table, [kernel](auto) { return kernel; });
}

}  // namespace

void register_variable_kernels(runtime::KernelTable& table) {
  add_generic<opdefs::OpId::kAssignVariableOp>(table, &kernels::assign_variable_kernel);
  kernels::register_op<opdefs::OpId::kAssignAddVariableOp, DeviceType::kCPU>(
      table, [](auto tag) -> runtime::KernelFn {
        return &assign_update_kernel<decltype(tag), kernels::AddFn>;
      });
  kernels::register_op<opdefs::OpId::kAssignSubVariableOp, DeviceType::kCPU>(
      table, [](auto tag) -> runtime::KernelFn {
        return &assign_update_kernel<decltype(tag), kernels::SubFn>;
      });
}

}  // namespace eagle::cpu
