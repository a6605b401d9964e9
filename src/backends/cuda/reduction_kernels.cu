// CUDA kernels of Sum, Mean, Max, Min over any set of axes, ArgMax, and BiasAddGrad (a column
// sum). The input is viewed as [outer, reduced, inner] (reduction_plan.hpp): inner == 1 reduces
// contiguous rows with a warp or a block per row; inner > 1 gives each thread one output column
// and walks the reduced axis, so that neighbouring threads read neighbouring addresses. When there
// are too few rows or columns to fill the GPU, the reduced axis is split over more blocks whose
// partial results a second pass combines.
//
// Accumulators: float32 and 16-bit floats in float32, float64 in float64, integers through their
// unsigned twins (wrapping, as on the CPU). Max/min propagate NaN. Results agree with the CPU's
// up to the order of float additions.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "eagle/errors.hpp"
#include "kernel_launch.hpp"
#include "kernels/registration.hpp"
#include "layout_kernels.hpp"
#include "opdefs/attrs.hpp"
#include "reduction_plan.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

// ---- Reduction operators over accumulators -----------------------------------------------------
template <class C>
using sum_acc_t =
    std::conditional_t<std::is_same_v<C, std::int32_t>, std::uint32_t,
                       std::conditional_t<std::is_same_v<C, std::int64_t>, std::uint64_t, C>>;

template <class C>
struct SumOp {
  using Acc = sum_acc_t<C>;
  static constexpr bool kMean = false;
  __device__ static Acc identity() { return Acc(0); }
  __device__ static Acc combine(Acc a, Acc b) { return a + b; }
};
template <class C>
struct MeanOp : SumOp<C> {
  static constexpr bool kMean = true;
};
template <class C>
struct MaxOp {
  using Acc = C;
  static constexpr bool kMean = false;
  __device__ static Acc identity() {
    if constexpr (std::is_floating_point_v<C>) {
      return -std::numeric_limits<C>::infinity();
    } else {
      return std::numeric_limits<C>::lowest();
    }
  }
  __device__ static Acc combine(Acc a, Acc b) { return nan_max(a, b); }
};
template <class C>
struct MinOp {
  using Acc = C;
  static constexpr bool kMean = false;
  __device__ static Acc identity() {
    if constexpr (std::is_floating_point_v<C>) {
      return std::numeric_limits<C>::infinity();
    } else {
      return std::numeric_limits<C>::max();
    }
  }
  __device__ static Acc combine(Acc a, Acc b) { return nan_min(a, b); }
};

// Products wrap for integers (through the unsigned twin), as on the CPU.
template <class C>
struct ProdOp {
  using Acc = sum_acc_t<C>;
  static constexpr bool kMean = false;
  __device__ static Acc identity() { return Acc(1); }
  __device__ static Acc combine(Acc a, Acc b) { return a * b; }
};
template <class C>
struct AnyOp {
  using Acc = bool;
  static constexpr bool kMean = false;
  __device__ static Acc identity() { return false; }
  __device__ static Acc combine(Acc a, Acc b) { return a || b; }
};
template <class C>
struct AllOp {
  using Acc = bool;
  static constexpr bool kMean = false;
  __device__ static Acc identity() { return true; }
  __device__ static Acc combine(Acc a, Acc b) { return a && b; }
};

// An input element (storage type, or an accumulator of a partial pass) as an accumulator.
template <class Op, class In>
__device__ __forceinline__ typename Op::Acc to_acc(In v) {
  return static_cast<typename Op::Acc>(load_value(v));
}

// The output value of `count` accumulated elements, with the CPU's rules (reduce.cpp finalize):
// integer sums wrap, integer means truncate, the mean of nothing is NaN (floats) or 0.
template <class Op, class S>
__device__ __forceinline__ S finish(typename Op::Acc acc, std::int64_t count) {
  using C = compute_of_t<S>;
  if constexpr (std::is_integral_v<C>) {
    const C v = static_cast<C>(acc);
    if constexpr (Op::kMean) return count == 0 ? C(0) : static_cast<C>(v / count);
    return v;
  } else {
    if constexpr (Op::kMean) {
      if (count == 0) return convert_value<S>(std::numeric_limits<C>::quiet_NaN());
      return convert_value<S>(static_cast<C>(acc / static_cast<C>(count)));
    }
    return convert_value<S>(static_cast<C>(acc));
  }
}

template <class Op>
__device__ __forceinline__ typename Op::Acc warp_reduce(typename Op::Acc v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    v = Op::combine(v, __shfl_down_sync(0xffffffffu, v, offset));
  }
  return v;
}

// The whole block's value, valid in thread 0. blockDim.x is a multiple of 32, at most 1024.
template <class Op>
__device__ typename Op::Acc block_reduce(typename Op::Acc v) {
  __shared__ typename Op::Acc partial[32];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  v = warp_reduce<Op>(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < static_cast<int>(blockDim.x / 32) ? partial[lane] : Op::identity();
    v = warp_reduce<Op>(v);
  }
  return v;
}

// Rows of `length` elements: block (x = row, y = split) folds its slice of the row. kFinal: the
// result is the output value (count elements in all), else an accumulator into partial[row *
// gridDim.y + split].
template <class Op, class In, class Out, bool kFinal>
__global__ void reduce_rows(const In* __restrict__ in, std::int64_t length, Out* __restrict__ out,
                            std::int64_t count) {
  using Acc = typename Op::Acc;
  const std::int64_t row = blockIdx.x;
  const std::int64_t per_split = (length + gridDim.y - 1) / gridDim.y;
  const std::int64_t begin = blockIdx.y * per_split;
  const std::int64_t end = min(length, begin + per_split);
  const In* x = in + row * length;
  Acc acc = Op::identity();
  for (std::int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    acc = Op::combine(acc, to_acc<Op>(x[i]));
  }
  acc = block_reduce<Op>(acc);
  if (threadIdx.x != 0) return;
  if constexpr (kFinal) {
    out[row] = finish<Op, Out>(acc, count);
  } else {
    out[row * gridDim.y + blockIdx.y] = acc;
  }
}

// Many short rows: one warp per row. `count`: the elements behind each output (more than
// `length` when the rows hold partial results).
template <class Op, class In, class Out>
__global__ void reduce_short_rows(const In* __restrict__ in, std::int64_t rows, std::int64_t length,
                                  Out* __restrict__ out, std::int64_t count) {
  using Acc = typename Op::Acc;
  const int lane = threadIdx.x % 32;
  const std::int64_t warps = std::int64_t{gridDim.x} * (blockDim.x / 32);
  for (std::int64_t row = std::int64_t{blockIdx.x} * (blockDim.x / 32) + threadIdx.x / 32;
       row < rows; row += warps) {
    const In* x = in + row * length;
    Acc acc = Op::identity();
    for (std::int64_t i = lane; i < length; i += 32) acc = Op::combine(acc, to_acc<Op>(x[i]));
    acc = warp_reduce<Op>(acc);
    if (lane == 0) out[row] = finish<Op, Out>(acc, count);
  }
}

// [outer, reduced, inner]: thread per (outer, inner) column, y-split of the reduced axis as in
// reduce_rows. Output (kFinal) [outer, inner]; partials [split, outer, inner].
template <class Op, class In, class Out, bool kFinal>
__global__ void reduce_columns(const In* __restrict__ in, std::int64_t outer, std::int64_t reduced,
                               std::int64_t inner, Out* __restrict__ out, std::int64_t count) {
  using Acc = typename Op::Acc;
  const std::int64_t columns = outer * inner;
  const std::int64_t per_split = (reduced + gridDim.y - 1) / gridDim.y;
  const std::int64_t begin = blockIdx.y * per_split;
  const std::int64_t end = min(reduced, begin + per_split);
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t c = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; c < columns;
       c += stride) {
    const std::int64_t o = c / inner;
    const std::int64_t i = c - o * inner;
    const In* x = in + o * reduced * inner + i;
    Acc acc = Op::identity();
#pragma unroll 4  // several loads in flight per thread
    for (std::int64_t r = begin; r < end; ++r) acc = Op::combine(acc, to_acc<Op>(x[r * inner]));
    if constexpr (kFinal) {
      out[c] = finish<Op, Out>(acc, count);
    } else {
      out[blockIdx.y * columns + c] = acc;
    }
  }
}

template <class Op, class S>
__global__ void fill_empty(S* __restrict__ out, std::int64_t n) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = finish<Op, S>(Op::identity(), 0);
  }
}

// Splits of the reduced axis so that about `target` blocks run, each split still covering at
// least `min_per_split` positions of the reduced axis (else the second pass costs more than it
// saves).
std::int64_t split_count(std::int64_t work_units, std::int64_t reduced, std::int64_t target,
                         std::int64_t min_per_split) {
  if (work_units >= target) return 1;
  std::int64_t splits = (target + work_units - 1) / work_units;
  splits = std::min<std::int64_t>(splits, (reduced + min_per_split - 1) / min_per_split);
  return std::max<std::int64_t>(1, std::min<std::int64_t>(splits, 65535));
}

template <class Op, class S>
void reduce_view(const LaunchScope& scope, const S* in, std::int64_t outer, std::int64_t reduced,
                 std::int64_t inner, S* out) {
  using Acc = typename Op::Acc;
  cudaStream_t stream = scope.stream();
  CudaDevice& device = scope.device();
  const std::int64_t target_blocks = std::int64_t{device.multiprocessor_count()} * 4;
  if (inner == 1) {
    if (reduced <= 512) {
      reduce_short_rows<Op, S, S><<<grid_size(outer * 32, device), kBlockSize, 0, stream>>>(
          in, outer, reduced, out, reduced);
      check_launch("reduce_short_rows");
      return;
    }
    // A block of 512 threads per split: at least 8 elements per thread.
    const std::int64_t splits = split_count(outer, reduced, target_blocks, 4096);
    if (outer > 0x7fffffff) throw InternalError("reduction: more than 2^31 - 1 rows");
    if (splits == 1) {
      reduce_rows<Op, S, S, true>
          <<<dim3(static_cast<unsigned>(outer)), 512, 0, stream>>>(in, reduced, out, reduced);
      check_launch("reduce_rows");
      return;
    }
    auto partial = runtime::allocate_tensor(
        device, Shape{static_cast<std::int64_t>(outer * splits * sizeof(Acc))}, DType::kBool);
    Acc* p = partial->data<Acc>();
    reduce_rows<Op, S, Acc, false>
        <<<dim3(static_cast<unsigned>(outer), static_cast<unsigned>(splits)), 512, 0, stream>>>(
            in, reduced, p, reduced);
    check_launch("reduce_rows (partial)");
    reduce_short_rows<Op, Acc, S>
        <<<grid_size(outer * 32, device), kBlockSize, 0, stream>>>(p, outer, splits, out, reduced);
    check_launch("reduce_short_rows (partials)");
    return;
  }
  const std::int64_t columns = outer * inner;
  const unsigned int grid = grid_size(columns, device);
  // A thread per column per split: at least 32 rows each.
  const std::int64_t splits = split_count(grid, reduced, target_blocks, 32);
  if (splits == 1) {
    reduce_columns<Op, S, S, true>
        <<<grid, kBlockSize, 0, stream>>>(in, outer, reduced, inner, out, reduced);
    check_launch("reduce_columns");
    return;
  }
  auto partial = runtime::allocate_tensor(
      device, Shape{static_cast<std::int64_t>(columns * splits * sizeof(Acc))}, DType::kBool);
  Acc* p = partial->data<Acc>();
  reduce_columns<Op, S, Acc, false>
      <<<dim3(grid, static_cast<unsigned>(splits)), kBlockSize, 0, stream>>>(in, outer, reduced,
                                                                             inner, p, reduced);
  check_launch("reduce_columns (partial)");
  reduce_columns<Op, Acc, S, true>
      <<<grid, kBlockSize, 0, stream>>>(p, 1, splits, columns, out, reduced);
  check_launch("reduce_columns (partials)");
}

// ---- ArgMax / ArgMin ------------------------------------------------------------------------

// The CPU's rule (Note [ArgMax and NaN] in src/backends/cpu/reduce.cpp): an element counts only
// when it is strictly beyond the type's lowest (highest) value, so NaN never counts; among those
// that do, the most extreme wins, the first on ties; nothing counting gives index 0. As a pair
// (value, index) with index -1 for "nothing yet", combining is associative and commutative, so
// threads and warps may combine in any order.
template <class C>
struct Best {
  C value;
  std::int64_t index;
};

template <class S, bool kMax>
__device__ __forceinline__ compute_of_t<S> arg_start() {
  using C = compute_of_t<S>;
  if constexpr (std::is_same_v<S, __half>) {
    return kMax ? -65504.0f : 65504.0f;
  } else if constexpr (std::is_same_v<S, __nv_bfloat16>) {
    return kMax ? -3.38953139e38f : 3.38953139e38f;
  } else if constexpr (kMax) {
    return std::numeric_limits<C>::lowest();
  } else {
    return std::numeric_limits<C>::max();
  }
}

template <bool kMax, class C>
__device__ __forceinline__ bool beyond(C a, C b) {
  if constexpr (kMax) {
    return a > b;
  } else {
    return a < b;
  }
}

template <bool kMax, class C>
__device__ __forceinline__ bool beats(const Best<C>& a, const Best<C>& b) {  // a before b?
  if (a.index < 0) return false;
  if (b.index < 0) return true;
  if (a.value != b.value) return beyond<kMax>(a.value, b.value);
  return a.index < b.index;
}

template <bool kMax, class C>
__device__ __forceinline__ Best<C> warp_best(Best<C> v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    Best<C> other;
    other.value = static_cast<C>(__shfl_down_sync(0xffffffffu, v.value, offset));
    other.index = __shfl_down_sync(0xffffffffu, v.index, offset);
    if (beats<kMax>(other, v)) v = other;
  }
  return v;
}

// inner == 1: one block per row.
template <class S, bool kMax>
__global__ void arg_rows(const S* __restrict__ in, std::int64_t length,
                         std::int64_t* __restrict__ out) {
  using C = compute_of_t<S>;
  __shared__ Best<C> partial[32];
  const S* x = in + std::int64_t{blockIdx.x} * length;
  const C start = arg_start<S, kMax>();
  Best<C> best{C{}, -1};
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    const C v = load_value(x[i]);
    if (!beyond<kMax>(v, start)) continue;  // NaN and the limit itself never count
    const Best<C> candidate{v, i};
    if (beats<kMax>(candidate, best)) best = candidate;
  }
  best = warp_best<kMax>(best);
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = best;
  __syncthreads();
  if (warp == 0) {
    best = lane < static_cast<int>(blockDim.x / 32) ? partial[lane] : Best<C>{C{}, -1};
    best = warp_best<kMax>(best);
    if (lane == 0) out[blockIdx.x] = best.index < 0 ? 0 : best.index;
  }
}

// inner > 1: one thread per output column, walking the axis in order.
template <class S, bool kMax>
__global__ void arg_columns(const S* __restrict__ in, std::int64_t outer, std::int64_t length,
                            std::int64_t inner, std::int64_t* __restrict__ out) {
  using C = compute_of_t<S>;
  const std::int64_t columns = outer * inner;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t c = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; c < columns;
       c += stride) {
    const std::int64_t o = c / inner;
    const std::int64_t i = c - o * inner;
    const S* x = in + o * length * inner + i;
    C best = arg_start<S, kMax>();
    std::int64_t best_index = 0;
    for (std::int64_t r = 0; r < length; ++r) {
      const C v = load_value(x[r * inner]);
      if (beyond<kMax>(v, best)) {
        best = v;
        best_index = r;
      }
    }
    out[c] = best_index;
  }
}

// ---- Kernel functions ---------------------------------------------------------------------------

// Op over `axes` of x into out, whatever the plan (reduction_plan.hpp).
template <class Op, class S>
void reduce_axes(const LaunchScope& scope, const runtime::TensorImpl& x,
                 const std::vector<int>& axes, runtime::TensorImpl& out) {
  const ReductionPlan plan = make_reduction_plan(x.shape(), axes);
  S* o = out.data<S>();
  switch (plan.kind) {
    case ReductionPlan::Kind::kNothingToWrite:
      break;
    case ReductionPlan::Kind::kIdentity: {
      const std::int64_t n = out.shape().num_elements();
      fill_empty<Op, S><<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(o, n);
      check_launch("fill_empty");
      break;
    }
    case ReductionPlan::Kind::kCopy:
      EAGLE_CUDA_CHECK(
          cudaMemcpyAsync(o, x.data(), out.bytes(), cudaMemcpyDeviceToDevice, scope.stream()));
      break;
    case ReductionPlan::Kind::kReduce:
      if (plan.perm.empty()) {
        reduce_view<Op, S>(scope, x.data<const S>(), plan.outer, plan.reduced, plan.inner, o);
      } else {
        // Interleaved axes: kept axes first, then the reduced ones, in a scratch tensor
        // freed (stream-ordered, Note [Stream ordering]) when this function returns.
        auto moved = runtime::allocate_tensor(scope.device(), plan.transposed, x.dtype());
        launch_transpose(scope, x.data(), x.shape(), plan.perm, sizeof(S), moved->data());
        reduce_view<Op, S>(scope, moved->data<const S>(), plan.outer, plan.reduced, 1, o);
      }
      break;
  }
}

template <template <class> class OpOf>
struct Reduce {
  template <class T>
  struct Kernel {
    static void run(KernelContext& ctx) {
      using S = storage_t<T>;
      const LaunchScope scope(ctx);
      auto out = ctx.allocate_output();
      reduce_axes<OpOf<compute_of_t<S>>, S>(scope, ctx.input(0),
                                            ctx.attrs<opdefs::ReduceAttrs>().axes, *out);
    }
  };
};

// BiasAddGrad: Sum over every axis but the last, so its column kernels run it (many threads per
// channel, the rows split over blocks when the channels are few). One thread per channel walking
// every row was a single warp for the seed CNN's first layer: 86,528 dependent steps at batch 128.
template <class T>
struct BiasAddGradKernel {
  static void run(KernelContext& ctx) {
    using S = storage_t<T>;
    const LaunchScope scope(ctx);
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    std::vector<int> axes(static_cast<std::size_t>(std::max(0, x.shape().rank() - 1)));
    for (std::size_t a = 0; a < axes.size(); ++a) axes[a] = static_cast<int>(a);
    reduce_axes<SumOp<compute_of_t<S>>, S>(scope, x, axes, *out);
  }
};

template <bool kMax>
struct Arg {
  template <class T>
  struct Kernel {
    static void run(KernelContext& ctx) {
      using S = storage_t<T>;
      const LaunchScope scope(ctx);
      auto out = ctx.allocate_output();
      const runtime::TensorImpl& x = ctx.input(0);
      const int axis = ctx.attrs<opdefs::AxisAttrs>().axis;
      std::int64_t outer = 1;
      std::int64_t inner = 1;
      for (int a = 0; a < axis; ++a) outer *= x.shape()[a];
      for (int a = axis + 1; a < x.shape().rank(); ++a) inner *= x.shape()[a];
      const std::int64_t length = x.shape()[axis];  // > 0: the op refuses an empty axis
      if (outer * inner == 0) return;
      std::int64_t* o = out->data<std::int64_t>();
      if (inner == 1) {
        if (outer > 0x7fffffff) throw InternalError("argmax: more than 2^31 - 1 rows");
        const int threads = length >= 1024 ? 512 : length >= 128 ? 128 : 32;
        arg_rows<S, kMax><<<static_cast<unsigned>(outer), threads, 0, scope.stream()>>>(
            x.data<const S>(), length, o);
        check_launch("arg_rows");
      } else {
        arg_columns<S, kMax>
            <<<grid_size(outer * inner, scope.device()), kBlockSize, 0, scope.stream()>>>(
                x.data<const S>(), outer, length, inner, o);
        check_launch("arg_columns");
      }
    }
  };
};

}  // namespace

void register_reduction_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kSum, DeviceType::kGPU, Reduce<SumOp>::Kernel>(table);
  kernels::register_op<opdefs::OpId::kMean, DeviceType::kGPU, Reduce<MeanOp>::Kernel>(table);
  kernels::register_op<opdefs::OpId::kProd, DeviceType::kGPU, Reduce<ProdOp>::Kernel>(table);
  kernels::register_op<opdefs::OpId::kAny, DeviceType::kGPU, Reduce<AnyOp>::Kernel>(table);
  kernels::register_op<opdefs::OpId::kAll, DeviceType::kGPU, Reduce<AllOp>::Kernel>(table);
  kernels::register_op<opdefs::OpId::kMax, DeviceType::kGPU, Reduce<MaxOp>::Kernel>(table);
  kernels::register_op<opdefs::OpId::kMin, DeviceType::kGPU, Reduce<MinOp>::Kernel>(table);
  kernels::register_op<opdefs::OpId::kArgMax, DeviceType::kGPU, Arg<true>::Kernel>(table);
  kernels::register_op<opdefs::OpId::kArgMin, DeviceType::kGPU, Arg<false>::Kernel>(table);
  kernels::register_op<opdefs::OpId::kBiasAddGrad, DeviceType::kGPU, BiasAddGradKernel>(table);
}

}  // namespace eagle::cuda
