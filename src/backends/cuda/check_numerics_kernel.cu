// CheckNumerics on CUDA devices: one pass sets a bit for each kind of non-finite value found
// (NaN, -Inf, +Inf), the 4-byte result is read back on the host, which raises or passes the
// input through as the output (no copy).
#include <cuda_runtime.h>

#include <cstdint>

#include <fmt/format.h>

#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "eagle/errors.hpp"
#include "kernel_launch.hpp"
#include "kernels/registration.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/non_finite.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

constexpr unsigned kNaN = 1, kNegativeInf = 2, kPositiveInf = 4;

template <class S>
__global__ void find_non_finite(const S* __restrict__ in, std::int64_t n, unsigned* found) {
  unsigned mine = 0;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t e = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < n; e += stride) {
    const auto v = load_value(in[e]);
    if (isnan(v)) {
      mine |= kNaN;
    } else if (isinf(v)) {
      mine |= v < 0 ? kNegativeInf : kPositiveInf;
    }
  }
  if (mine != 0) atomicOr(found, mine);
}

template <class T>
struct CheckNumericsKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    const runtime::TensorImpl& x = ctx.input(0);
    const std::int64_t n = x.shape().num_elements();
    unsigned found = 0;
    if (n > 0) {
      const auto flags = runtime::allocate_tensor(scope.device(), Shape{1}, DType::kInt32);
      EAGLE_CUDA_CHECK(cudaMemsetAsync(flags->data(), 0, sizeof(unsigned), scope.stream()));
      find_non_finite<S><<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(
          x.data<const S>(), n, flags->data<unsigned>());
      check_launch("find_non_finite");
      scope.device().copy_to_host(&found, flags->data(), sizeof(found));
    }
    if (found != 0) {
      runtime::NonFiniteCounts counts;
      counts.nan = (found & kNaN) != 0;
      counts.negative_inf = (found & kNegativeInf) != 0;
      counts.positive_inf = (found & kPositiveInf) != 0;
      runtime::throw_check_numerics(ctx.attrs<opdefs::CheckNumericsAttrs>().message, counts);
    }
    ctx.set_output(0, runtime::alias_tensor(ctx.input(0), ctx.output_shape()));
  }
};

}  // namespace

void register_check_numerics_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kCheckNumerics, DeviceType::kGPU, CheckNumericsKernel>(table);
}

}  // namespace eagle::cuda
