// CPU kernels of Tile, Pad, PadV2, MirrorPad, ReverseV2 (Note [Index maps]) and of the scans
// Cumsum and Cumprod.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "kernels/index_map.hpp"
#include "kernels/index_map_kernels.hpp"
#include "kernels/numeric.hpp"
#include "kernels/registration.hpp"
#include "kernels/scalar_math.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <class T>
void run_index_map(KernelContext& ctx, const kernels::IndexMap& map, T fill) {
  T* out = ctx.allocate_output()->template data<T>();
  const T* in = ctx.input(0).template data<const T>();
  const std::int64_t n = ctx.output_shape().num_elements();
  if (map.rank == 0) {  // a scalar: the plan has no dimension to divide by
    if (n == 1) out[0] = in[0];
    return;
  }
  // Outputs are walked a row (the last dimension) at a time: the row's source offsets differ from
  // the first element's only through the last dimension.
  const std::int64_t row = map.out_dims[map.rank - 1];
  if (row == 0) return;
  std::vector<std::int64_t> last(static_cast<std::size_t>(row));
  kernels::IndexMap last_only = map;
  for (int d = 0; d < map.rank - 1; ++d) {
    last_only.out_dims[d] = 1;
    last_only.in_dims[d] = 1;
    last_only.mode[d] = kernels::kCopy;
    last_only.before[d] = 0;
  }
  for (std::int64_t j = 0; j < row; ++j) {
    last[static_cast<std::size_t>(j)] = kernels::source_offset(last_only, j);
  }
  kernels::IndexMap outer = map;
  outer.out_dims[map.rank - 1] = 1;
  outer.in_dims[map.rank - 1] = 1;
  outer.mode[map.rank - 1] = kernels::kCopy;
  outer.before[map.rank - 1] = 0;
  for (std::int64_t r = 0; r < n / row; ++r) {
    T* dst = out + r * row;
    const std::int64_t base = kernels::source_offset(outer, r);
    if (base < 0) {
      for (std::int64_t j = 0; j < row; ++j) dst[j] = fill;
      continue;
    }
    for (std::int64_t j = 0; j < row; ++j) {
      const std::int64_t s = last[static_cast<std::size_t>(j)];
      dst[j] = s < 0 ? fill : in[base + s];
    }
  }
}

// Tile, Pad, MirrorPad and ReverseV2 (kernels/index_map_kernels.hpp) run their maps here.
struct CpuIndexMapRunner {
  template <class T>
  static void run(KernelContext& ctx, const kernels::IndexMap& map, T fill) {
    run_index_map<T>(ctx, map, fill);
  }
};

// One step of a scan, rounded to T as TensorFlow's Eigen scan does (its accumulator is a T, so
// 16-bit floats round after every step); integers wrap.
template <class T, bool kProduct>
T combine(T a, T b) {
  using C = compute_t<T>;
  return static_cast<T>(kProduct ? kernels::wrap_mul(C(a), C(b)) : kernels::wrap_add(C(a), C(b)));
}

template <class T, bool kProduct>
struct ScanKernel {
  static void run(KernelContext& ctx) {
    const auto& attrs = ctx.attrs<opdefs::ScanAttrs>();
    const runtime::TensorImpl& x = ctx.input(0);
    T* out = ctx.allocate_output()->template data<T>();
    const T* in = x.data<const T>();
    const Shape& shape = x.shape();
    std::int64_t outer = 1, inner = 1;
    for (int d = 0; d < attrs.axis; ++d) outer *= shape[d];
    for (int d = attrs.axis + 1; d < shape.rank(); ++d) inner *= shape[d];
    const std::int64_t n = shape[attrs.axis];
    if (outer * n * inner == 0) return;
    const T identity = kernels::convert<T>(kProduct ? 1.0 : 0.0);
    // Each of the `inner` scans of a block is sequential along the axis; they advance together so
    // that every step reads and writes one contiguous row.
    std::vector<T> acc(static_cast<std::size_t>(inner));
    for (std::int64_t o = 0; o < outer; ++o) {
      std::fill(acc.begin(), acc.end(), identity);
      for (std::int64_t s = 0; s < n; ++s) {
        const std::int64_t k = attrs.reverse ? n - 1 - s : s;
        const T* src = in + (o * n + k) * inner;
        T* dst = out + (o * n + k) * inner;
        for (std::int64_t i = 0; i < inner; ++i) {
          T& a = acc[static_cast<std::size_t>(i)];
          if (attrs.exclusive) {
            const T v = src[i];
            dst[i] = a;
            a = combine<T, kProduct>(a, v);
          } else {
            a = combine<T, kProduct>(a, src[i]);
            dst[i] = a;
          }
        }
      }
    }
  }
};

template <class T>
using CumsumKernel = ScanKernel<T, false>;
template <class T>
using CumprodKernel = ScanKernel<T, true>;

}  // namespace

void register_array_kernels(runtime::KernelTable& table) {
  kernels::IndexMapKernels<CpuIndexMapRunner>::register_kernels<DeviceType::kCPU>(table);
  kernels::register_op<opdefs::OpId::kCumsum, DeviceType::kCPU, CumsumKernel>(table);
  kernels::register_op<opdefs::OpId::kCumprod, DeviceType::kCPU, CumprodKernel>(table);
}

}  // namespace eagle::cpu
