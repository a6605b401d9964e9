// CUDA kernels of Tile, Pad, PadV2, MirrorPad, ReverseV2 (Note [Index maps]: the index arithmetic
// is the CPU kernels' own function) and of the scans Cumsum and Cumprod (one thread per scan,
// sequential along the axis in the order and with the rounding of the CPU kernel).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "kernel_launch.hpp"
#include "kernels/index_map.hpp"
#include "kernels/index_map_kernels.hpp"
#include "kernels/numeric.hpp"
#include "kernels/registration.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <class S>
__global__ void index_map_gather(const S* __restrict__ in, S* __restrict__ out, std::int64_t n,
                                 kernels::IndexMap map, S fill) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::int64_t s = kernels::source_offset(map, i);
    out[i] = s < 0 ? fill : in[s];
  }
}

template <class T>
void run_index_map(KernelContext& ctx, const kernels::IndexMap& map, T host_fill) {
  using S = storage_t<T>;
  const LaunchScope scope(ctx);
  auto out = ctx.allocate_output();
  const std::int64_t n = ctx.output_shape().num_elements();
  if (n == 0) return;
  S fill;
  static_assert(sizeof(S) == sizeof(T));
  std::memcpy(static_cast<void*>(&fill), &host_fill, sizeof fill);
  index_map_gather<S><<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(
      ctx.input(0).data<const S>(), out->data<S>(), n, map, fill);
  check_launch("index_map_gather");
}

// Tile, Pad, MirrorPad and ReverseV2 (kernels/index_map_kernels.hpp) run their maps here.
struct CudaIndexMapRunner {
  template <class T>
  static void run(KernelContext& ctx, const kernels::IndexMap& map, T fill) {
    run_index_map<T>(ctx, map, fill);
  }
};

// One step of a scan, rounded to the storage type after each step as on the CPU.
template <class S, bool kProduct>
__device__ __forceinline__ S combine(S a, S b) {
  const auto x = load_value(a);
  const auto y = load_value(b);
  return convert_value<S>(kProduct ? kernels::wrap_mul(x, y) : kernels::wrap_add(x, y));
}

// Scan (outer, inner) of `scans` = outer * inner: n elements, inner apart.
template <class S, bool kProduct>
__global__ void scan_lines(const S* __restrict__ in, S* __restrict__ out, std::int64_t scans,
                           std::int64_t n, std::int64_t inner, bool exclusive, bool reverse,
                           S identity) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t t = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; t < scans;
       t += stride) {
    const std::int64_t o = t / inner;
    const std::int64_t i = t - o * inner;
    S acc = identity;
    for (std::int64_t s = 0; s < n; ++s) {
      const std::int64_t k = reverse ? n - 1 - s : s;
      const std::int64_t at = (o * n + k) * inner + i;
      const S v = in[at];
      if (exclusive) {
        out[at] = acc;
        acc = combine<S, kProduct>(acc, v);
      } else {
        acc = combine<S, kProduct>(acc, v);
        out[at] = acc;
      }
    }
  }
}

template <class T, bool kProduct>
struct ScanKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    const auto& attrs = ctx.attrs<opdefs::ScanAttrs>();
    const runtime::TensorImpl& x = ctx.input(0);
    auto out = ctx.allocate_output();
    const Shape& shape = x.shape();
    if (shape.num_elements() == 0) return;
    std::int64_t outer = 1, inner = 1;
    for (int d = 0; d < attrs.axis; ++d) outer *= shape[d];
    for (int d = attrs.axis + 1; d < shape.rank(); ++d) inner *= shape[d];
    const T host_identity = kernels::convert<T>(kProduct ? 1.0 : 0.0);
    S identity;
    static_assert(sizeof(S) == sizeof(T));
    std::memcpy(static_cast<void*>(&identity), &host_identity, sizeof identity);
    const std::int64_t scans = outer * inner;
    scan_lines<S, kProduct><<<grid_size(scans, scope.device()), kBlockSize, 0, scope.stream()>>>(
        x.data<const S>(), out->data<S>(), scans, shape[attrs.axis], inner, attrs.exclusive,
        attrs.reverse, identity);
    check_launch("scan_lines");
  }
};

template <class T>
using CumsumKernel = ScanKernel<T, false>;
template <class T>
using CumprodKernel = ScanKernel<T, true>;

}  // namespace

void register_array_kernels(runtime::KernelTable& table) {
  kernels::IndexMapKernels<CudaIndexMapRunner>::register_kernels<DeviceType::kGPU>(table);
  kernels::register_op<opdefs::OpId::kCumsum, DeviceType::kGPU, CumsumKernel>(table);
  kernels::register_op<opdefs::OpId::kCumprod, DeviceType::kGPU, CumprodKernel>(table);
}

}  // namespace eagle::cuda
