// Softmax over the last axis on CUDA devices, with the CPU's semantics
// (src/backends/cpu/softmax.cpp): subtract the row's maximum (NaN ignored there, so a NaN makes the
// whole row NaN through its exp), exponentiate, multiply by the reciprocal of the sum. 16-bit
// floats compute in float32. Rows of up to 1024 elements get one warp each; longer rows one block
// each, the row kept in shared memory between the passes while it fits in 44 KB.
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>

#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "eagle/errors.hpp"
#include "kernel_launch.hpp"
#include "kernels/registration.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <class C>
__device__ __forceinline__ C greater_of(C a, C b) {  // NaN-ignoring, as the CPU's `x > m ? x : m`
  return b > a ? b : a;
}

template <class C>
__device__ __forceinline__ C warp_max(C v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    v = greater_of(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  return v;
}
template <class C>
__device__ __forceinline__ C warp_sum(C v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// One warp per row; every lane ends with the row's value.
template <class S>
__global__ void softmax_warp_rows(const S* __restrict__ in, S* __restrict__ out, std::int64_t rows,
                                  std::int64_t length) {
  using C = compute_of_t<S>;
  const int lane = threadIdx.x % 32;
  const std::int64_t warps = std::int64_t{gridDim.x} * (blockDim.x / 32);
  for (std::int64_t row = std::int64_t{blockIdx.x} * (blockDim.x / 32) + threadIdx.x / 32;
       row < rows; row += warps) {
    const S* x = in + row * length;
    S* y = out + row * length;
    C m = -std::numeric_limits<C>::infinity();
    for (std::int64_t i = lane; i < length; i += 32) m = greater_of(m, load_value(x[i]));
    m = warp_max(m);
    C sum = 0;
    for (std::int64_t i = lane; i < length; i += 32) sum += exp(load_value(x[i]) - m);
    sum = warp_sum(sum);
    const C inverse = C(1) / sum;
    for (std::int64_t i = lane; i < length; i += 32) {
      y[i] = convert_value<S>(exp(load_value(x[i]) - m) * inverse);
    }
  }
}

// The block's value in every thread.
template <class C, bool kMax>
__device__ C block_all_reduce(C v, C* scratch) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  v = kMax ? warp_max(v) : warp_sum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const int warps = blockDim.x / 32;
  C total = lane < warps ? scratch[lane] : (kMax ? -std::numeric_limits<C>::infinity() : C(0));
  total = kMax ? warp_max(total) : warp_sum(total);
  __syncthreads();  // scratch is reused by the next reduction
  return total;
}

// One block per row.
template <class S>
__global__ void softmax_block_rows(const S* __restrict__ in, S* __restrict__ out,
                                   std::int64_t length) {
  using C = compute_of_t<S>;
  __shared__ C scratch[32];
  const S* x = in + std::int64_t{blockIdx.x} * length;
  S* y = out + std::int64_t{blockIdx.x} * length;
  C m = -std::numeric_limits<C>::infinity();
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    m = greater_of(m, load_value(x[i]));
  }
  m = block_all_reduce<C, true>(m, scratch);
  C sum = 0;
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) sum += exp(load_value(x[i]) - m);
  sum = block_all_reduce<C, false>(sum, scratch);
  const C inverse = C(1) / sum;
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    y[i] = convert_value<S>(exp(load_value(x[i]) - m) * inverse);
  }
}

// One block per row, the row kept in shared memory (in the compute type) between the passes:
// one read of the input instead of softmax_block_rows' three, the same arithmetic (each exp
// computed once, from the same values), so the same results. Each thread touches only its own
// elements of the row, so the row needs no barrier of its own.
template <class S>
__global__ void softmax_block_rows_cached(const S* __restrict__ in, S* __restrict__ out,
                                          std::int64_t length) {
  using C = compute_of_t<S>;
  extern __shared__ unsigned char cached_row[];
  C* row = reinterpret_cast<C*>(cached_row);
  __shared__ C scratch[32];
  const S* x = in + std::int64_t{blockIdx.x} * length;
  S* y = out + std::int64_t{blockIdx.x} * length;
  C m = -std::numeric_limits<C>::infinity();
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    const C v = load_value(x[i]);
    row[i] = v;
    m = greater_of(m, v);
  }
  m = block_all_reduce<C, true>(m, scratch);
  C sum = 0;
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    const C e = exp(row[i] - m);
    row[i] = e;
    sum += e;
  }
  sum = block_all_reduce<C, false>(sum, scratch);
  const C inverse = C(1) / sum;
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    y[i] = convert_value<S>(row[i] * inverse);
  }
}

// The longest row softmax_block_rows_cached keeps: 44 KB, under the 48 KB of shared memory a
// block gets without opting in (its reduction scratch takes some).
constexpr std::int64_t kCachedRowBytes = 44 * 1024;

template <class T>
struct SoftmaxKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const Shape& shape = ctx.output_shape();
    const std::int64_t n = shape.num_elements();
    if (n == 0) return;
    const std::int64_t length = shape.rank() == 0 ? 1 : shape[shape.rank() - 1];
    const std::int64_t rows = n / length;
    const S* x = ctx.input(0).data<const S>();
    if (length <= 1024) {
      softmax_warp_rows<S><<<grid_size(rows * 32, scope.device()), kBlockSize, 0, scope.stream()>>>(
          x, out->data<S>(), rows, length);
      check_launch("softmax_warp_rows");
    } else {
      if (rows > 0x7fffffff) throw InternalError("softmax: more than 2^31 - 1 rows");
      using C = compute_of_t<S>;
      const std::int64_t row_bytes = length * static_cast<std::int64_t>(sizeof(C));
      if (row_bytes <= kCachedRowBytes) {
        softmax_block_rows_cached<S>
            <<<static_cast<unsigned>(rows), 512, static_cast<std::size_t>(row_bytes),
               scope.stream()>>>(x, out->data<S>(), length);
        check_launch("softmax_block_rows_cached");
      } else {
        softmax_block_rows<S>
            <<<static_cast<unsigned>(rows), 512, 0, scope.stream()>>>(x, out->data<S>(), length);
        check_launch("softmax_block_rows");
      }
    }
  }
};

}  // namespace

void register_softmax_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kSoftmax, DeviceType::kGPU, SoftmaxKernel>(table);
}

}  // namespace eagle::cuda
