// AddN on CUDA devices: the element-wise sum of up to kInputsPerLaunch inputs per launch, their
// pointers passed by value in the kernel's parameters. 16-bit floats sum in float32 and round
// once (as on the CPU) for up to kInputsPerLaunch inputs; beyond that each launch adds the
// previous launch's rounded output as its first input.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "kernel_launch.hpp"
#include "kernels/registration.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

constexpr int kInputsPerLaunch = 64;

template <class S>
struct InputPointers {
  const S* data[kInputsPerLaunch];
  int count;
};

template <class S>
__global__ void add_inputs(InputPointers<S> inputs, S* out, std::int64_t n) {
  using C = compute_of_t<S>;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    C sum = load_value(inputs.data[0][i]);
    for (int k = 1; k < inputs.count; ++k) sum = wrap_add(sum, load_value(inputs.data[k][i]));
    out[i] = convert_value<S>(sum);
  }
}

template <class T>
struct AddNKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const std::int64_t n = ctx.output_shape().num_elements();
    if (n == 0) return;
    S* o = out->data<S>();
    const unsigned int grid = grid_size(n, scope.device());
    int next = 0;
    while (next < ctx.num_inputs()) {
      InputPointers<S> batch{};
      if (next > 0) batch.data[batch.count++] = o;  // the running sum; read and written per i
      while (batch.count < kInputsPerLaunch && next < ctx.num_inputs()) {
        batch.data[batch.count++] = ctx.input(next++).data<const S>();
      }
      add_inputs<S><<<grid, kBlockSize, 0, scope.stream()>>>(batch, o, n);
      check_launch("add_inputs");
    }
  }
};

}  // namespace

void register_add_n_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kAddN, DeviceType::kGPU, AddNKernel>(table);
}

}  // namespace eagle::cuda
