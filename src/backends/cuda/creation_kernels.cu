// CUDA kernels that make tensors: Const, Fill, Range, RandomUniform, RandomStandardNormal, Cast,
// Identity. Values equal the CPU's (src/backends/cpu/creation_kernels.cpp): the same Philox stream
// with the same element mapping, and double arithmetic written with explicit round-to-nearest
// operations so that the compiler's multiply-add contraction cannot change a single bit.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "kernel_launch.hpp"
#include "kernels/numeric.hpp"
#include "kernels/philox.hpp"
#include "kernels/registration.hpp"
#include "kernels/truncated_normal.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <class S>
__global__ void fill_values(S* __restrict__ out, std::int64_t n, S value) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = value;
  }
}

template <class S>
__global__ void range_values(S* __restrict__ out, std::int64_t n, double start, double delta) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = convert_value<S>(__dadd_rn(start, __dmul_rn(static_cast<double>(i), delta)));
  }
}

// The CPU's below_maxval: a value rounded up onto maxval steps down to the largest value below.
template <class S>
__device__ S below_maxval(S v, double minval, double maxval) {
  if (!(minval < maxval)) return v;
  while (static_cast<double>(static_cast<float>(load_value(v))) >= maxval) {
    if constexpr (std::is_same_v<S, float>) {
      v = nextafterf(v, -INFINITY);
    } else {
      std::uint16_t bits;
      if constexpr (std::is_same_v<S, __half>) {
        bits = __half_as_ushort(v);
      } else {
        bits = __bfloat16_as_ushort(v);
      }
      const bool negative = (bits & 0x8000u) != 0;
      const bool zero = (bits & 0x7fffu) == 0;
      bits = static_cast<std::uint16_t>(zero ? 0x8001u : negative ? bits + 1u : bits - 1u);
      if constexpr (std::is_same_v<S, __half>) {
        v = __ushort_as_half(bits);
      } else {
        v = __ushort_as_bfloat16(bits);
      }
    }
  }
  return v;
}

// One thread per Philox block: 4 values of 32-bit types, 2 of 64-bit ones (element i of the
// tensor depends only on (seed, i), exactly as on the CPU).
template <class S>
__global__ void uniform_values(S* __restrict__ out, std::int64_t n, std::uint64_t seed,
                               double minval, double maxval) {
  constexpr bool kWide = sizeof(S) == 8;
  constexpr int kPerBlock = kWide ? 2 : 4;
  const std::int64_t blocks = (n + kPerBlock - 1) / kPerBlock;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t b = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; b < blocks;
       b += stride) {
    const random::Block r = random::philox4x32_10(static_cast<std::uint64_t>(b), seed);
    for (int j = 0; j < kPerBlock && b * kPerBlock + j < n; ++j) {
      S value;
      if constexpr (std::is_same_v<S, double>) {
        const double u = random::uniform_double(r[2 * j], r[2 * j + 1]);
        value = __dadd_rn(minval, __dmul_rn(u, __dsub_rn(maxval, minval)));
      } else if constexpr (std::is_same_v<S, std::int64_t>) {
        const auto lo = static_cast<std::int64_t>(minval);
        const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(maxval)) -
                          static_cast<std::uint64_t>(lo);
        const std::uint64_t bits = (std::uint64_t{r[2 * j]} << 32) | r[2 * j + 1];
        value = static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + bits % span);
      } else if constexpr (std::is_same_v<S, std::int32_t>) {
        const auto lo = static_cast<std::int64_t>(minval);
        const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(maxval) - lo);
        value = static_cast<std::int32_t>(lo + static_cast<std::int64_t>(r[j] % span));
      } else {
        const float u = random::uniform_float(r[j]);
        const double scaled =
            __dadd_rn(minval, __dmul_rn(static_cast<double>(u), __dsub_rn(maxval, minval)));
        value = below_maxval(convert_value<S>(static_cast<float>(scaled)), minval, maxval);
      }
      out[b * kPerBlock + j] = value;
    }
  }
}

// Box-Muller on pairs of uniforms, in double as on the CPU.
template <class S>
__device__ void normal_pair(S* out, std::int64_t n, std::int64_t at, double u1, double u2,
                            double mean, double stddev) {
  constexpr double kTwoPi = 6.283185307179586;
  const double r = sqrt(__dmul_rn(-2.0, log(__dsub_rn(1.0, u1))));
  const double angle = __dmul_rn(kTwoPi, u2);
  const double scale = __dmul_rn(stddev, r);
  if (at < n) out[at] = convert_value<S>(__dadd_rn(mean, __dmul_rn(scale, cos(angle))));
  if (at + 1 < n) out[at + 1] = convert_value<S>(__dadd_rn(mean, __dmul_rn(scale, sin(angle))));
}

template <class S>
__global__ void normal_values(S* __restrict__ out, std::int64_t n, std::uint64_t seed, double mean,
                              double stddev) {
  constexpr bool kWide = sizeof(S) == 8;
  constexpr int kPerBlock = kWide ? 2 : 4;
  const std::int64_t blocks = (n + kPerBlock - 1) / kPerBlock;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t b = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; b < blocks;
       b += stride) {
    const random::Block r = random::philox4x32_10(static_cast<std::uint64_t>(b), seed);
    if constexpr (kWide) {
      normal_pair(out, n, b * 2, random::uniform_double(r[0], r[1]),
                  random::uniform_double(r[2], r[3]), mean, stddev);
    } else {
      normal_pair(out, n, b * 4, random::uniform_float(r[0]), random::uniform_float(r[1]), mean,
                  stddev);
      normal_pair(out, n, b * 4 + 2, random::uniform_float(r[2]), random::uniform_float(r[3]), mean,
                  stddev);
    }
  }
}

template <class From, class To>
__global__ void cast_values(const From* __restrict__ in, To* __restrict__ out, std::int64_t n) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = convert_value<To>(in[i]);
  }
}

// ---- Kernel functions ---------------------------------------------------------------------------

template <class T>
struct ConstKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const auto& attrs = ctx.attrs<opdefs::ConstAttrs>();
    // Through pinned staging on the device's stream: returns before the copy has landed.
    ctx.device().copy_from_host(out->data(), attrs.host_data, out->bytes());
  }
};

template <class T>
struct FillKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const std::int64_t n = ctx.output_shape().num_elements();
    if (n == 0) return;
    // The value is converted on the host with the CPU's rules, then its bits are broadcast.
    const T host_value = kernels::convert<T>(ctx.attrs<opdefs::FillAttrs>().value);
    S value;
    static_assert(sizeof(S) == sizeof(T));
    std::memcpy(static_cast<void*>(&value), &host_value, sizeof value);
    fill_values<S>
        <<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(out->data<S>(), n, value);
    check_launch("fill_values");
  }
};

template <class T>
struct RangeKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const std::int64_t n = ctx.output_shape().num_elements();
    if (n == 0) return;
    const auto& attrs = ctx.attrs<opdefs::RangeAttrs>();
    range_values<S><<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(
        out->data<S>(), n, attrs.start, attrs.delta);
    check_launch("range_values");
  }
};

// One thread per Philox block of 4 (2 for 64-bit types) elements.
template <bool kNormal>
struct Random {
  template <class T>
  struct Kernel {
    static void run(KernelContext& ctx) {
      using S = storage_t<T>;
      const LaunchScope scope(ctx);
      auto out = ctx.allocate_output();
      const std::int64_t n = ctx.output_shape().num_elements();
      if (n == 0) return;
      const auto& attrs = ctx.attrs<opdefs::RandomAttrs>();
      const unsigned int grid = grid_size((n + 3) / 4, scope.device());
      if constexpr (kNormal) {
        normal_values<S><<<grid, kBlockSize, 0, scope.stream()>>>(out->data<S>(), n, attrs.seed,
                                                                  attrs.a, attrs.b);
      } else {
        uniform_values<S><<<grid, kBlockSize, 0, scope.stream()>>>(out->data<S>(), n, attrs.seed,
                                                                   attrs.a, attrs.b);
      }
      check_launch(kNormal ? "normal_values" : "uniform_values");
    }
  };
};

template <class S>
__global__ void truncated_normal_values(S* __restrict__ out, std::int64_t n, std::uint64_t seed,
                                        double mean, double stddev) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double z = kernels::truncated_standard_normal(seed, static_cast<std::uint64_t>(i));
    out[i] = convert_value<S>(__dadd_rn(mean, __dmul_rn(stddev, z)));
  }
}

template <class T>
struct TruncatedNormalKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const std::int64_t n = ctx.output_shape().num_elements();
    if (n == 0) return;
    const auto& attrs = ctx.attrs<opdefs::RandomAttrs>();
    truncated_normal_values<S><<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(
        out->data<S>(), n, attrs.seed, attrs.a, attrs.b);
    check_launch("truncated_normal_values");
  }
};

template <class From>
struct CastKernel {
  static void run(KernelContext& ctx) {
    using SFrom = storage_t<From>;
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const std::int64_t n = ctx.output_shape().num_elements();
    if (n == 0) return;
    const SFrom* in = ctx.input(0).data<const SFrom>();
    visit_dtype(ctx.output_dtype(), [&](auto tag) {
      using STo = storage_t<decltype(tag)>;
      cast_values<SFrom, STo><<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(
          in, out->data<STo>(), n);
      return 0;
    });
    check_launch("cast_values");
  }
};

}  // namespace

void register_creation_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kConst, DeviceType::kGPU, ConstKernel>(table);
  kernels::register_op<opdefs::OpId::kFill, DeviceType::kGPU, FillKernel>(table);
  kernels::register_op<opdefs::OpId::kRange, DeviceType::kGPU, RangeKernel>(table);
  kernels::register_op<opdefs::OpId::kRandomUniform, DeviceType::kGPU, Random<false>::Kernel>(
      table);
  kernels::register_op<opdefs::OpId::kRandomStandardNormal, DeviceType::kGPU, Random<true>::Kernel>(
      table);
  kernels::register_op<opdefs::OpId::kTruncatedNormal, DeviceType::kGPU, TruncatedNormalKernel>(
      table);
  kernels::register_op<opdefs::OpId::kCast, DeviceType::kGPU, CastKernel>(table);
}

}  // namespace eagle::cuda
