// CUDA kernels of the ResourceApply* ops: the CPU's functors (kernels/optimizer_functors.hpp),
// one thread per element, in place.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "kernel_launch.hpp"
#include "kernels/optimizer_functors.hpp"
#include "kernels/registration.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <class S, int R>
struct StatePointers {
  S* p[R];
};

template <class S, class Step>
__global__ void apply_step(StatePointers<S, Step::kResources> state, const S* __restrict__ grad,
                           std::int64_t n, Step step) {
  constexpr int R = Step::kResources;
  using C = compute_of_t<S>;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    C s[R];
#pragma unroll
    for (int r = 0; r < R; ++r) s[r] = load_value(state.p[r][i]);
    step(s, load_value(grad[i]));
#pragma unroll
    for (int r = 0; r < R; ++r) state.p[r][i] = convert_value<S>(s[r]);
  }
}

template <class T>
void apply_kernel(KernelContext& ctx) {
  using S = storage_t<T>;
  using C = compute_of_t<S>;
  LaunchScope scope(ctx);
  kernels::with_optimizer_step<C>(ctx.op(), ctx.attrs<opdefs::OptimizerAttrs>(), [&](auto step) {
    using Step = decltype(step);
    constexpr int R = Step::kResources;
    StatePointers<S, R> state;
    for (int r = 0; r < R; ++r) state.p[r] = ctx.mutable_input(r, true).data<S>();
    const std::int64_t n = ctx.input(0).shape().num_elements();
    if (n == 0) return;
    apply_step<S, Step><<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(
        state, ctx.input(R).data<const S>(), n, step);
    check_launch("apply_step");
  });
}

template <opdefs::OpId kOp>
void add(runtime::KernelTable& table) {
  kernels::register_op<kOp, DeviceType::kGPU>(
      table, [](auto tag) -> runtime::KernelFn { return &apply_kernel<decltype(tag)>; });
}

}  // namespace

void register_optimizer_kernels(runtime::KernelTable& table) {
#define EAGLE_ADD_OPTIMIZER(op) add<opdefs::OpId::k##op>(table);
  EAGLE_OPTIMIZER_OPS(EAGLE_ADD_OPTIMIZER)
#undef EAGLE_ADD_OPTIMIZER
}

}  // namespace eagle::cuda
