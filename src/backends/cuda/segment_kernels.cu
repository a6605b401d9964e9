// UnsortedSegmentSum on CUDA devices: one thread per data element adds it into its segment with
// atomicAdd (float, double, int32, int64 as two's-complement unsigned long long). The 16-bit
// floats are summed into a float32 scratch buffer and rounded once at the end, so a long segment
// does not lose its small terms to half-precision additions. An id outside [0, num_segments)
// drops its row, as in TensorFlow's GPU kernel (the CPU raises). The order of the additions is
// not fixed, so float sums may differ from the CPU's in the last bits.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "kernel_launch.hpp"
#include "kernels/registration.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

__device__ __forceinline__ void atomic_add(float* to, float v) { atomicAdd(to, v); }
__device__ __forceinline__ void atomic_add(double* to, double v) { atomicAdd(to, v); }
__device__ __forceinline__ void atomic_add(std::int32_t* to, std::int32_t v) {
  atomicAdd(reinterpret_cast<int*>(to), static_cast<int>(v));
}
__device__ __forceinline__ void atomic_add(std::int64_t* to, std::int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(to), static_cast<unsigned long long>(v));
}

// sums[id * inner + i] += data[r * inner + i] for r = e / inner, i = e % inner.
template <class S, class A, class I>
__global__ void segment_sum(const S* __restrict__ data, const I* __restrict__ ids, A* sums,
                            std::int64_t n, std::int64_t inner, std::int64_t segments) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t e = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < n; e += stride) {
    const std::int64_t r = e / inner;
    const auto id = static_cast<std::int64_t>(ids[r]);
    if (id < 0 || id >= segments) continue;
    atomic_add(sums + id * inner + (e - r * inner), static_cast<A>(load_value(data[e])));
  }
}

template <class S>
__global__ void round_sums(const float* __restrict__ sums, S* __restrict__ out, std::int64_t n) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t e = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < n; e += stride) {
    out[e] = convert_value<S>(sums[e]);
  }
}

template <class T>
struct UnsortedSegmentSumKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    using A = compute_of_t<S>;  // what the atomics add: float for the 16-bit floats
    const LaunchScope scope(ctx);
    const std::int64_t segments = ctx.attrs<opdefs::SegmentAttrs>().num_segments;
    const runtime::TensorImpl& data = ctx.input(0);
    const runtime::TensorImpl& ids = ctx.input(1);
    auto out = ctx.allocate_output();
    const std::int64_t total = ctx.output_shape().num_elements();
    if (total == 0) return;
    const std::int64_t inner = total / segments;
    std::shared_ptr<runtime::TensorImpl> scratch;
    A* sums = nullptr;
    if constexpr (is_half_storage_v<S>) {
      scratch = runtime::allocate_tensor(scope.device(), Shape{total}, DType::kFloat32);
      sums = scratch->data<float>();
    } else {
      sums = out->data<A>();
    }
    EAGLE_CUDA_CHECK(
        cudaMemsetAsync(sums, 0, static_cast<std::size_t>(total) * sizeof(A), scope.stream()));
    const std::int64_t n = data.shape().num_elements();
    if (n > 0) {
      const unsigned grid = grid_size(n, scope.device());
      if (ids.dtype() == DType::kInt32) {
        segment_sum<S, A, std::int32_t><<<grid, kBlockSize, 0, scope.stream()>>>(
            data.data<const S>(), ids.data<const std::int32_t>(), sums, n, inner, segments);
      } else {
        segment_sum<S, A, std::int64_t><<<grid, kBlockSize, 0, scope.stream()>>>(
            data.data<const S>(), ids.data<const std::int64_t>(), sums, n, inner, segments);
      }
      check_launch("segment_sum");
    }
    if constexpr (is_half_storage_v<S>) {
      round_sums<S><<<grid_size(total, scope.device()), kBlockSize, 0, scope.stream()>>>(
          sums, out->data<S>(), total);
      check_launch("round_sums");
    }
  }
};

}  // namespace

void register_segment_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kUnsortedSegmentSum, DeviceType::kGPU,
                       UnsortedSegmentSumKernel>(table);
}

}  // namespace eagle::cuda
