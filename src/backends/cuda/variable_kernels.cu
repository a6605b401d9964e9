// CUDA kernels of the variable ops that write bytes: AssignVariableOp
// (kernels/variable_kernels.hpp) and the in-place AssignAdd/AssignSub, with the CPU's functors.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "kernel_launch.hpp"
#include "kernels/elementwise_functors.hpp"
#include "kernels/registration.hpp"
#include "kernels/variable_kernels.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <class S, class Fn>
__global__ void update_in_place(S* __restrict__ buffer, const S* __restrict__ delta,
                                std::int64_t n) {
  const Fn fn{};
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    buffer[i] = convert_value<S>(fn(load_value(buffer[i]), load_value(delta[i])));
  }
}

template <class T, class Fn>
void assign_update_kernel(KernelContext& ctx) {
  using S = storage_t<T>;
  LaunchScope scope(ctx);
  runtime::TensorImpl& buffer = ctx.mutable_input(0, /*keep_contents=*/true);
  const std::int64_t n = buffer.shape().num_elements();
  if (n == 0) return;
  update_in_place<S, Fn><<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(
      buffer.data<S>(), ctx.input(1).data<const S>(), n);
  check_launch("update_in_place");
}

template <opdefs::OpId kOp>
void add_generic(runtime::KernelTable& table, runtime::KernelFn kernel) {
  kernels::register_op<kOp, DeviceType::kGPU>(table, [kernel](auto) { return kernel; });
}

// AssignVariableOp's copy goes on the device's stream (CudaDevice::copy_to_device), ordered with
// the kernels around it.
void assign_variable(KernelContext& ctx) {
  LaunchScope scope(ctx);
  kernels::assign_variable_kernel(ctx);
}

}  // namespace

void register_variable_kernels(runtime::KernelTable& table) {
  add_generic<opdefs::OpId::kAssignVariableOp>(table, &assign_variable);
  kernels::register_op<opdefs::OpId::kAssignAddVariableOp, DeviceType::kGPU>(
      table, [](auto tag) -> runtime::KernelFn {
        return &assign_update_kernel<decltype(tag), kernels::AddFn>;
      });
  kernels::register_op<opdefs::OpId::kAssignSubVariableOp, DeviceType::kGPU>(
      table, [](auto tag) -> runtime::KernelFn {
        return &assign_update_kernel<decltype(tag), kernels::SubFn>;
      });
}

}  // namespace eagle::cuda
