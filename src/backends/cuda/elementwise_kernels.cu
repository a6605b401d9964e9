// CUDA kernels of the elementwise binary and unary ops: the CPU's functors
// (kernels/elementwise_functors.hpp), over 16-byte vector loads and stores when the inputs are
// contiguous and alike or one is a row repeated over the other's rows, over a broadcast plan (no
// materialised broadcast) otherwise.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include <fmt/format.h>

#include "broadcast_plan.hpp"
#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "eagle/errors.hpp"
#include "kernel_launch.hpp"
#include "kernels/elementwise_functors.hpp"
#include "kernels/kernel_errors.hpp"
#include "kernels/registration.hpp"
#include "runtime/tensor_impl.hpp"
#include "vector_pack.cuh"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;
using runtime::KernelTable;

// ---- Kernels ------------------------------------------------------------------------------------

// Same-shape inputs, or one of them a single element (kScalarA/kScalarB): packs of 16 bytes of
// S per thread and iteration, then the tail element by element.
template <class S, class Out, class Fn, bool kScalarA, bool kScalarB>
__global__ void binary_contiguous(const S* __restrict__ a, const S* __restrict__ b,
                                  Out* __restrict__ out, std::int64_t n, const Fn fn) {
  constexpr int kWidth = kPackWidth<S>;
  using C = compute_of_t<S>;
  const std::int64_t start = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  C scalar_a{};
  C scalar_b{};
  if constexpr (kScalarA) scalar_a = load_value(a[0]);
  if constexpr (kScalarB) scalar_b = load_value(b[0]);
  const std::int64_t packs = n / kWidth;
  for (std::int64_t p = start; p < packs; p += stride) {
    Pack<S, kWidth> pa;
    Pack<S, kWidth> pb;
    if constexpr (!kScalarA) pa = load_pack<kWidth>(a, p);
    if constexpr (!kScalarB) pb = load_pack<kWidth>(b, p);
    Pack<Out, kWidth> po;
#pragma unroll
    for (int j = 0; j < kWidth; ++j) {
      const C x = kScalarA ? scalar_a : load_value(pa.v[j]);
      const C y = kScalarB ? scalar_b : load_value(pb.v[j]);
      po.v[j] = convert_value<Out>(fn(x, y));
    }
    store_pack<kWidth>(out, p, po);
  }
  for (std::int64_t i = packs * kWidth + start; i < n; i += stride) {
    const C x = kScalarA ? scalar_a : load_value(a[i]);
    const C y = kScalarB ? scalar_b : load_value(b[i]);
    out[i] = convert_value<Out>(fn(x, y));
  }
}

// A [rows, width] operand and a [width] row repeated over the rows (row_broadcast in
// broadcast_plan.hpp; kRowIsA: the row is the first operand), width a multiple of the pack: the
// full operand and the output in 16-byte packs as binary_contiguous does, the row's pack found
// with one division per pack instead of the plan's two per element.
template <class S, class Out, class Fn, bool kRowIsA>
__global__ void binary_row_broadcast(const S* __restrict__ full, const S* __restrict__ row,
                                     Out* __restrict__ out, std::int64_t packs,
                                     std::int64_t row_packs, const Fn fn) {
  constexpr int kWidth = kPackWidth<S>;
  using C = compute_of_t<S>;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t p = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; p < packs;
       p += stride) {
    const Pack<S, kWidth> pf = load_pack<kWidth>(full, p);
    const Pack<S, kWidth> pr = load_pack<kWidth>(row, p % row_packs);
    Pack<Out, kWidth> po;
#pragma unroll
    for (int j = 0; j < kWidth; ++j) {
      const C f = load_value(pf.v[j]);
      const C r = load_value(pr.v[j]);
      po.v[j] = convert_value<Out>(kRowIsA ? fn(r, f) : fn(f, r));
    }
    store_pack<kWidth>(out, p, po);
  }
}

// The plan with 32-bit arithmetic when every index fits (integer division is the cost here).
template <class Index>
struct DeviceBroadcastPlan {
  int rank;
  Index dims[Shape::kMaxRank];
  Index strides_a[Shape::kMaxRank];
  Index strides_b[Shape::kMaxRank];
};

template <class S, class Out, class Fn, class Index>
__global__ void binary_broadcast(const S* __restrict__ a, const S* __restrict__ b,
                                 Out* __restrict__ out, Index n, DeviceBroadcastPlan<Index> plan,
                                 const Fn fn) {
  const Index stride = Index{gridDim.x} * blockDim.x;
  for (Index i = Index{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    Index rest = i;
    Index offset_a = 0;
    Index offset_b = 0;
    for (int d = plan.rank - 1; d >= 0; --d) {
      const Index q = rest / plan.dims[d];
      const Index digit = rest - q * plan.dims[d];
      offset_a += digit * plan.strides_a[d];
      offset_b += digit * plan.strides_b[d];
      rest = q;
    }
    out[i] = convert_value<Out>(fn(load_value(a[offset_a]), load_value(b[offset_b])));
  }
}

// Sets *flag when some element is negative (kZero: is zero).
template <class S, bool kZero>
__global__ void flag_elements(const S* __restrict__ x, std::int64_t n, int* flag) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (kZero ? x[i] == 0 : x[i] < 0) *flag = 1;
  }
}

// The loop of a unary kernel, over packs then the tail. `x` and `out` may be the same array (an
// input forwarded to the output, Note [Kernel contract]): each element is read before it is
// written, by the same thread.
template <class S, class Out, class Fn, class In, class OutPtr>
__device__ __forceinline__ void unary_loop(In x, OutPtr out, std::int64_t n, const Fn& fn) {
  constexpr int kWidth = kPackWidth<S>;
  const std::int64_t start = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t packs = n / kWidth;
  for (std::int64_t p = start; p < packs; p += stride) {
    const Pack<S, kWidth> px = load_pack<kWidth>(x, p);
    Pack<Out, kWidth> po;
#pragma unroll
    for (int j = 0; j < kWidth; ++j) po.v[j] = convert_value<Out>(fn(load_value(px.v[j])));
    store_pack<kWidth>(out, p, po);
  }
  for (std::int64_t i = packs * kWidth + start; i < n; i += stride) {
    out[i] = convert_value<Out>(fn(load_value(x[i])));
  }
}

template <class S, class Out, class Fn>
__global__ void unary_contiguous(const S* __restrict__ x, Out* __restrict__ out, std::int64_t n,
                                 const Fn fn) {
  unary_loop<S, Out, Fn>(x, out, n, fn);
}

// In place, so without __restrict__ (which would let the compiler read through the
// non-coherent cache what this kernel writes).
template <class S, class Fn>
__global__ void unary_in_place(S* data, std::int64_t n, const Fn fn) {
  unary_loop<S, S, Fn>(static_cast<const S*>(data), data, n, fn);
}

// ---- Kernel functions ---------------------------------------------------------------------------

// Integers to negative integer powers, and integer division by zero (Note [Integer division by
// zero]), are errors, as on the CPU; finding one means reading a flag back, so only these integer
// ops wait for the device.
template <class S, bool kZero>
bool any_element(const LaunchScope& scope, const runtime::TensorImpl& x) {
  const std::int64_t n = x.shape().num_elements();
  if (n == 0) return false;
  auto flag = runtime::allocate_tensor(scope.device(), Shape{}, DType::kInt32);
  EAGLE_CUDA_CHECK(cudaMemsetAsync(flag->data(), 0, sizeof(int), scope.stream()));
  flag_elements<S, kZero><<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(
      x.data<const S>(), n, flag->data<int>());
  check_launch("flag_elements");
  int found = 0;
  scope.device().copy_to_host(&found, flag->data(), sizeof found);
  return found != 0;
}

template <class Index>
DeviceBroadcastPlan<Index> to_device_plan(const BroadcastPlan& plan) {
  DeviceBroadcastPlan<Index> out{};
  out.rank = plan.rank;
  for (int d = 0; d < plan.rank; ++d) {
    out.dims[d] = static_cast<Index>(plan.dims[d]);
    out.strides_a[d] = static_cast<Index>(plan.strides_a[d]);
    out.strides_b[d] = static_cast<Index>(plan.strides_b[d]);
  }
  return out;
}

template <class T, class Fn>
void binary_kernel(KernelContext& ctx) {
  using S = storage_t<T>;
  using Out = std::conditional_t<kernels::is_predicate_v<Fn>, bool, S>;
  const LaunchScope scope(ctx);
  const runtime::TensorImpl& x = ctx.input(0);
  const runtime::TensorImpl& y = ctx.input(1);
  if constexpr (std::is_same_v<Fn, kernels::PowFn> && std::is_integral_v<T>) {
    if (any_element<S, false>(scope, y)) {
      kernels::throw_negative_integer_power();
    }
  }
  if constexpr (kernels::is_integer_division_v<Fn> && std::is_integral_v<T>) {
    if (any_element<S, true>(scope, y)) {
      kernels::throw_integer_division_by_zero(opdefs::op_name(ctx.op()));
    }
  }
  auto out = ctx.allocate_output();
  const std::int64_t n = ctx.output_shape().num_elements();
  if (n == 0) return;
  const Fn fn = kernels::make_functor<Fn>(ctx);
  const S* a = x.data<const S>();
  const S* b = y.data<const S>();
  Out* o = out->data<Out>();
  const std::int64_t na = x.shape().num_elements();
  const std::int64_t nb = y.shape().num_elements();
  const bool aligned = is_pack_aligned(a) && is_pack_aligned(b) && is_pack_aligned(o);
  const unsigned int packed_grid =
      grid_size((n + kPackWidth<S> - 1) / kPackWidth<S>, scope.device());
  cudaStream_t stream = scope.stream();
  if (aligned && na == n && nb == n) {
    binary_contiguous<S, Out, Fn, false, false>
        <<<packed_grid, kBlockSize, 0, stream>>>(a, b, o, n, fn);
  } else if (aligned && na == 1 && nb == n) {
    binary_contiguous<S, Out, Fn, true, false>
        <<<packed_grid, kBlockSize, 0, stream>>>(a, b, o, n, fn);
  } else if (aligned && na == n && nb == 1) {
    binary_contiguous<S, Out, Fn, false, true>
        <<<packed_grid, kBlockSize, 0, stream>>>(a, b, o, n, fn);
  } else {
    const BroadcastPlan plan = make_broadcast_plan(x.shape(), y.shape(), ctx.output_shape());
    const RowBroadcast rows = row_broadcast(plan);
    const unsigned int grid = grid_size(n, scope.device());
    if (aligned && rows.width > 0 && rows.width % kPackWidth<S> == 0) {
      const std::int64_t packs = n / kPackWidth<S>;
      const std::int64_t row_packs = rows.width / kPackWidth<S>;
      if (rows.row_is_a) {
        binary_row_broadcast<S, Out, Fn, true>
            <<<packed_grid, kBlockSize, 0, stream>>>(b, a, o, packs, row_packs, fn);
      } else {
        binary_row_broadcast<S, Out, Fn, false>
            <<<packed_grid, kBlockSize, 0, stream>>>(a, b, o, packs, row_packs, fn);
      }
    } else if (n + std::int64_t{grid} * kBlockSize < (std::int64_t{1} << 32)) {
      // 32-bit indices when i + grid stride cannot overflow them.
      binary_broadcast<S, Out, Fn, std::uint32_t><<<grid, kBlockSize, 0, stream>>>(
          a, b, o, static_cast<std::uint32_t>(n), to_device_plan<std::uint32_t>(plan), fn);
    } else {
      binary_broadcast<S, Out, Fn, std::uint64_t><<<grid, kBlockSize, 0, stream>>>(
          a, b, o, static_cast<std::uint64_t>(n), to_device_plan<std::uint64_t>(plan), fn);
    }
  }
  check_launch("binary elementwise kernel");
}

template <class T, class Fn>
void unary_kernel(KernelContext& ctx) {
  using S = storage_t<T>;
  using Out = std::conditional_t<std::is_same_v<decltype(Fn{}(compute_of_t<S>{})), bool>, bool, S>;
  const LaunchScope scope(ctx);
  const runtime::TensorImpl& x = ctx.input(0);
  // A donated input's bytes become the output's when the types agree, as on the CPU (TF's input
  // forwarding: `x = relu(std::move(x))` allocates nothing).
  runtime::TensorImpl* out =
      std::is_same_v<Out, S> ? ctx.forward_input_or_allocate_output(0) : ctx.allocate_output();
  const std::int64_t n = ctx.output_shape().num_elements();
  if (n == 0) return;
  // Storage is 256-byte aligned (BfcAllocator), so packs always apply to whole tensors.
  const unsigned int grid = grid_size((n + kPackWidth<S> - 1) / kPackWidth<S>, scope.device());
  const Fn fn = kernels::make_functor<Fn>(ctx);
  if constexpr (std::is_same_v<Out, S>) {
    if (out->data() == x.data()) {
      unary_in_place<S, Fn><<<grid, kBlockSize, 0, scope.stream()>>>(out->data<S>(), n, fn);
      check_launch("unary elementwise kernel (in place)");
      return;
    }
  }
  unary_contiguous<S, Out, Fn>
      <<<grid, kBlockSize, 0, scope.stream()>>>(x.data<const S>(), out->data<Out>(), n, fn);
  check_launch("unary elementwise kernel");
}

template <opdefs::OpId kOp, class Fn>
void add_binary(KernelTable& table) {
  kernels::register_op<kOp, DeviceType::kGPU>(
      table, [](auto tag) -> runtime::KernelFn { return &binary_kernel<decltype(tag), Fn>; });
}
template <opdefs::OpId kOp, class Fn>
void add_unary(KernelTable& table) {
  kernels::register_op<kOp, DeviceType::kGPU>(
      table, [](auto tag) -> runtime::KernelFn { return &unary_kernel<decltype(tag), Fn>; });
}

}  // namespace

void register_elementwise_kernels(KernelTable& table) {
#define EAGLE_ADD_BINARY(op, fn) add_binary<opdefs::OpId::k##op, kernels::fn>(table);
#define EAGLE_ADD_UNARY(op, fn) add_unary<opdefs::OpId::k##op, kernels::fn>(table);
  EAGLE_ELEMENTWISE_OPS(EAGLE_ADD_BINARY, EAGLE_ADD_UNARY)
#undef EAGLE_ADD_BINARY
#undef EAGLE_ADD_UNARY
}

}  // namespace eagle::cuda
