// CPU kernels of the ResourceApply* ops: one pass over the variable, its slots and the gradient
// (kernels/optimizer_functors.hpp), in place. Compiled once per CPU variant (Note [CPU kernel
// variants] in cpu_variant.cpp): the update of a large variable is a streaming loop with a
// square root and a division per element, which AVX-512 runs several times faster than SSE2.
#include "cpu/intra_op_pool.hpp"
#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "kernels/optimizer_functors.hpp"
#include "kernels/registration.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
EAGLE_CPU_ISA_BEGIN
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <class T>
void apply_kernel(KernelContext& ctx) {
  using C = compute_t<T>;
  kernels::with_optimizer_step<C>(ctx.op(), ctx.attrs<opdefs::OptimizerAttrs>(), [&](auto step) {
    constexpr int R = decltype(step)::kResources;
    T* state[R];
    for (int r = 0; r < R; ++r) state[r] = ctx.mutable_input(r, /*keep_contents=*/true).data<T>();
    const T* grad = ctx.input(R).data<const T>();
    parallel_for(ctx.input(0).shape().num_elements(), (R + 1) * 2 * sizeof(T) + 16,
                 [&](std::int64_t b, std::int64_t e) {
                   for (std::int64_t i = b; i < e; ++i) {
                     C s[R];
                     for (int r = 0; r < R; ++r) s[r] = C(state[r][i]);
                     step(s, C(grad[i]));
                     for (int r = 0; r < R; ++r) state[r][i] = convert<T>(s[r]);
                   }
                 });
  });
}

template <opdefs::OpId kOp>
void add(runtime::KernelTable& table) {
  kernels::register_op<kOp, DeviceType::kCPU>(
      table, [](auto tag) -> runtime::KernelFn { return &apply_kernel<decltype(tag)>; });
}

}  // namespace

void register_optimizer_kernels(runtime::KernelTable& table) {
#define EAGLE_ADD_OPTIMIZER(op) add<opdefs::OpId::k##op>(table);
  EAGLE_OPTIMIZER_OPS(EAGLE_ADD_OPTIMIZER)
#undef EAGLE_ADD_OPTIMIZER
}

EAGLE_CPU_ISA_END
}  // namespace eagle::cpu
