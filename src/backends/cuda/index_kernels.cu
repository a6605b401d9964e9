// The indexing ops on CUDA devices: GatherV2, GatherNd, SelectV2 (one thread per output element,
// grid-stride), StridedSlice (the layout kernels' strided gather), Where (on the host: its output
// size is already known from the values, so the coordinates are computed where they were read),
// and the strided sum that Einsum's operands go through (backends/cuda/einsum_kernel.cpp).
// An index out of range gives zeros, as in TensorFlow's GPU kernels (the CPU raises).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "cuda_kernels.hpp"
#include "device_numeric.cuh"
#include "index_kernels.hpp"
#include "kernel_launch.hpp"
#include "kernels/numeric.hpp"
#include "kernels/registration.hpp"
#include "layout_kernels.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cuda {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

// Elements move as unsigned integers of their size: gathers never look at the values.
template <class T>
using bits_t = std::conditional_t<
    sizeof(T) == 1, std::uint8_t,
    std::conditional_t<sizeof(T) == 2, std::uint16_t,
                       std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

// ---- GatherV2 -----------------------------------------------------------------------------------

template <class U, class I>
__global__ void gather_v2(const U* __restrict__ params, const I* __restrict__ indices,
                          U* __restrict__ out, std::int64_t n, std::int64_t outer,
                          std::int64_t count, std::int64_t inner, std::int64_t limit) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t e = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < n; e += stride) {
    const std::int64_t i = e % inner;
    std::int64_t t = e / inner;
    const std::int64_t j = t % count;
    t /= count;
    const std::int64_t o = t % outer;
    const std::int64_t b = t / outer;
    const std::int64_t idx = static_cast<std::int64_t>(indices[b * count + j]);
    out[e] = idx >= 0 && idx < limit ? params[((b * outer + o) * limit + idx) * inner + i] : U{0};
  }
}

template <class T>
struct GatherKernel {
  static void run(KernelContext& ctx) {
    using U = bits_t<T>;
    const LaunchScope scope(ctx);
    const auto& attrs = ctx.attrs<opdefs::GatherAttrs>();
    const runtime::TensorImpl& params = ctx.input(0);
    const runtime::TensorImpl& indices = ctx.input(1);
    const Shape& p = params.shape();
    std::int64_t batch = 1, outer = 1, inner = 1;
    for (int i = 0; i < attrs.batch_dims; ++i) batch *= p[i];
    for (int i = attrs.batch_dims; i < attrs.axis; ++i) outer *= p[i];
    for (int i = attrs.axis + 1; i < p.rank(); ++i) inner *= p[i];
    const std::int64_t count = batch == 0 ? 0 : indices.shape().num_elements() / batch;
    auto out = ctx.allocate_output();
    const std::int64_t n = ctx.output_shape().num_elements();
    if (n == 0) return;
    const unsigned grid = grid_size(n, scope.device());
    if (indices.dtype() == DType::kInt32) {
      gather_v2<U, std::int32_t><<<grid, kBlockSize, 0, scope.stream()>>>(
          params.data<const U>(), indices.data<const std::int32_t>(), out->data<U>(), n, outer,
          count, inner, p[attrs.axis]);
    } else {
      gather_v2<U, std::int64_t><<<grid, kBlockSize, 0, scope.stream()>>>(
          params.data<const U>(), indices.data<const std::int64_t>(), out->data<U>(), n, outer,
          count, inner, p[attrs.axis]);
    }
    check_launch("gather_v2");
  }
};

// ---- GatherNd -----------------------------------------------------------------------------------

struct GatherNdPlan {
  int depth;
  std::int64_t dims[Shape::kMaxRank];  // the indexed dimensions of params
  std::int64_t slice;                  // elements per gathered slice
  std::int64_t rows_per_batch;         // index rows per batch entry
  std::int64_t batch_stride;           // params elements per batch entry
};

template <class U, class I>
__global__ void gather_nd(const U* __restrict__ params, const I* __restrict__ indices,
                          U* __restrict__ out, std::int64_t n, GatherNdPlan plan) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t e = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < n; e += stride) {
    const std::int64_t r = e / plan.slice;
    const std::int64_t i = e - r * plan.slice;
    std::int64_t offset = 0;
    bool ok = true;
    for (int d = 0; d < plan.depth; ++d) {
      const std::int64_t v = static_cast<std::int64_t>(indices[r * plan.depth + d]);
      ok = ok && v >= 0 && v < plan.dims[d];
      offset = offset * plan.dims[d] + v;
    }
    const std::int64_t base = (r / plan.rows_per_batch) * plan.batch_stride;
    out[e] = ok ? params[base + offset * plan.slice + i] : U{0};
  }
}

template <class T>
struct GatherNdKernel {
  static void run(KernelContext& ctx) {
    using U = bits_t<T>;
    const LaunchScope scope(ctx);
    const int bd = ctx.attrs<opdefs::GatherNdAttrs>().batch_dims;
    const runtime::TensorImpl& params = ctx.input(0);
    const runtime::TensorImpl& indices = ctx.input(1);
    const Shape& p = params.shape();
    const Shape& ind = indices.shape();
    GatherNdPlan plan{};
    plan.depth = static_cast<int>(ind[ind.rank() - 1]);
    std::int64_t batch = 1, rows = 1;
    for (int i = 0; i < bd; ++i) batch *= p[i];
    for (int i = 0; i < ind.rank() - 1; ++i) rows *= ind[i];
    for (int d = 0; d < plan.depth; ++d) plan.dims[d] = p[bd + d];
    plan.slice = 1;
    for (int i = bd + plan.depth; i < p.rank(); ++i) plan.slice *= p[i];
    plan.batch_stride = 1;
    for (int i = bd; i < p.rank(); ++i) plan.batch_stride *= p[i];
    plan.rows_per_batch = batch == 0 || rows / batch == 0 ? 1 : rows / batch;
    auto out = ctx.allocate_output();
    const std::int64_t n = ctx.output_shape().num_elements();
    if (n == 0) return;
    const unsigned grid = grid_size(n, scope.device());
    if (indices.dtype() == DType::kInt32) {
      gather_nd<U, std::int32_t><<<grid, kBlockSize, 0, scope.stream()>>>(
          params.data<const U>(), indices.data<const std::int32_t>(), out->data<U>(), n, plan);
    } else {
      gather_nd<U, std::int64_t><<<grid, kBlockSize, 0, scope.stream()>>>(
          params.data<const U>(), indices.data<const std::int64_t>(), out->data<U>(), n, plan);
    }
    check_launch("gather_nd");
  }
};

// ---- SelectV2 -----------------------------------------------------------------------------------

struct SelectPlan {
  int rank;
  std::int64_t dims[Shape::kMaxRank];
  std::int64_t strides[3][Shape::kMaxRank];  // condition, x, y; 0 where broadcast
};

template <class U>
__global__ void select_v2(const bool* __restrict__ c, const U* __restrict__ x,
                          const U* __restrict__ y, U* __restrict__ out, std::int64_t n,
                          SelectPlan plan) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t e = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < n; e += stride) {
    std::int64_t rest = e, oc = 0, ox = 0, oy = 0;
    for (int d = plan.rank - 1; d >= 0; --d) {
      const std::int64_t digit = rest % plan.dims[d];
      rest /= plan.dims[d];
      oc += digit * plan.strides[0][d];
      ox += digit * plan.strides[1][d];
      oy += digit * plan.strides[2][d];
    }
    out[e] = c[oc] ? x[ox] : y[oy];
  }
}

template <class T>
struct SelectKernel {
  static void run(KernelContext& ctx) {
    using U = bits_t<T>;
    const LaunchScope scope(ctx);
    const Shape& shape = ctx.output_shape();
    SelectPlan plan{};
    plan.rank = shape.rank();
    for (int d = 0; d < shape.rank(); ++d) plan.dims[d] = shape[d];
    for (int k = 0; k < 3; ++k) {
      const Shape& in = ctx.input(k).shape();
      std::int64_t stride = 1;
      for (int i = in.rank() - 1, o = shape.rank() - 1; i >= 0; --i, --o) {
        plan.strides[k][o] = in[i] == 1 ? 0 : stride;
        stride *= in[i];
      }
    }
    auto out = ctx.allocate_output();
    const std::int64_t n = shape.num_elements();
    if (n == 0) return;
    select_v2<U><<<grid_size(n, scope.device()), kBlockSize, 0, scope.stream()>>>(
        ctx.input(0).data<const bool>(), ctx.input(1).data<const U>(), ctx.input(2).data<const U>(),
        out->data<U>(), n, plan);
    check_launch("select_v2");
  }
};

// ---- StridedSlice, Where ------------------------------------------------------------------------

template <class T>
struct StridedSliceKernel {
  static void run(KernelContext& ctx) {
    const LaunchScope scope(ctx);
    const auto& a = ctx.attrs<opdefs::StridedSliceAttrs>();
    const runtime::TensorImpl& x = ctx.input(0);
    const Shape& s = x.shape();
    std::vector<std::int64_t> strides(a.step.size());
    std::int64_t base = 0, stride = 1;
    for (int d = s.rank() - 1; d >= 0; --d) {
      const auto u = static_cast<std::size_t>(d);
      strides[u] = a.step[u] * stride;
      base += a.start[u] * stride;
      stride *= s[d];
    }
    auto out = ctx.allocate_output();
    if (ctx.output_shape().num_elements() == 0) return;
    launch_strided_copy(scope, x.data(), s.num_elements(), base, a.size, strides, sizeof(T),
                        out->data());
  }
};

template <class T>
struct WhereKernel {
  static void run(KernelContext& ctx) {
    const LaunchScope scope(ctx);
    const runtime::TensorImpl& x = ctx.input(0);
    const Shape& s = x.shape();
    auto out = ctx.allocate_output();
    if (s.num_elements() == 0 || ctx.output_shape().num_elements() == 0) return;
    std::vector<std::uint8_t> bytes(x.bytes());
    scope.device().copy_to_host(bytes.data(), x.data(), bytes.size());
    const T* in = reinterpret_cast<const T*>(bytes.data());
    std::vector<std::int64_t> coords;
    coords.reserve(static_cast<std::size_t>(ctx.output_shape().num_elements()));
    std::vector<std::int64_t> coord(static_cast<std::size_t>(s.rank()), 0);
    for (std::int64_t i = 0, n = s.num_elements(); i < n; ++i) {
      if (kernels::nonzero(in[i])) coords.insert(coords.end(), coord.begin(), coord.end());
      for (int d = s.rank() - 1; d >= 0; --d) {
        if (++coord[static_cast<std::size_t>(d)] < s[d]) break;
        coord[static_cast<std::size_t>(d)] = 0;
      }
    }
    scope.device().copy_from_host(out->data(), coords.data(), coords.size() * sizeof(coords[0]));
  }
};

// ---- Einsum's strided sums ----------------------------------------------------------------------

template <class S>
__global__ void sum_rows(const S* __restrict__ in, S* __restrict__ out, std::int64_t rows,
                         std::int64_t length) {
  using C = compute_of_t<S>;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t r = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; r < rows;
       r += stride) {
    C sum = C(0);
    for (std::int64_t j = 0; j < length; ++j) sum = wrap_add(sum, load_value(in[r * length + j]));
    out[r] = convert_value<S>(sum);
  }
}

}  // namespace

template <class T>
void launch_strided_sum(const LaunchScope& scope, const void* in, std::int64_t in_elements,
                        const std::vector<std::int64_t>& dims,
                        const std::vector<std::int64_t>& strides, std::int64_t reduce,
                        std::int64_t rows, void* out) {
  using S = storage_t<T>;
  std::int64_t total = 1;
  for (std::int64_t d : dims) total *= d;
  if (rows == 0) return;
  if (reduce == 1) {
    launch_strided_copy(scope, in, in_elements, 0, dims, strides, sizeof(T), out);
    return;
  }
  if (reduce == 0) {  // a sum over nothing
    EAGLE_CUDA_CHECK(
        cudaMemsetAsync(out, 0, static_cast<std::size_t>(rows) * sizeof(T), scope.stream()));
    return;
  }
  const std::shared_ptr<runtime::TensorImpl> all =
      runtime::allocate_tensor(scope.device(), Shape{total}, dtype_of_v<T>);
  if (total > 0) {
    launch_strided_copy(scope, in, in_elements, 0, dims, strides, sizeof(T), all->data());
  }
  sum_rows<S><<<grid_size(rows, scope.device()), kBlockSize, 0, scope.stream()>>>(
      all->data<const S>(), static_cast<S*>(out), rows, reduce);
  check_launch("sum_rows");
}

template void launch_strided_sum<float>(const LaunchScope&, const void*, std::int64_t,
                                        const std::vector<std::int64_t>&,
                                        const std::vector<std::int64_t>&, std::int64_t,
                                        std::int64_t, void*);
template void launch_strided_sum<double>(const LaunchScope&, const void*, std::int64_t,
                                         const std::vector<std::int64_t>&,
                                         const std::vector<std::int64_t>&, std::int64_t,
                                         std::int64_t, void*);
template void launch_strided_sum<float16>(const LaunchScope&, const void*, std::int64_t,
                                          const std::vector<std::int64_t>&,
                                          const std::vector<std::int64_t>&, std::int64_t,
                                          std::int64_t, void*);
template void launch_strided_sum<bfloat16>(const LaunchScope&, const void*, std::int64_t,
                                           const std::vector<std::int64_t>&,
                                           const std::vector<std::int64_t>&, std::int64_t,
                                           std::int64_t, void*);

void register_index_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kGatherV2, DeviceType::kGPU, GatherKernel>(table);
  kernels::register_op<opdefs::OpId::kGatherNd, DeviceType::kGPU, GatherNdKernel>(table);
  kernels::register_op<opdefs::OpId::kSelectV2, DeviceType::kGPU, SelectKernel>(table);
  kernels::register_op<opdefs::OpId::kStridedSlice, DeviceType::kGPU, StridedSliceKernel>(table);
  kernels::register_op<opdefs::OpId::kWhere, DeviceType::kGPU, WhereKernel>(table);
}

}  // namespace eagle::cuda
