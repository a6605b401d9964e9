// CPU kernels of the indexing ops: GatherV2, GatherNd, Where, SelectV2, StridedSlice, and Einsum
// (strided copies and sums, then cpu::matmul). Shapes and plans come validated from the front-end
// (ops/index_ops.cpp, ops/einsum_op.cpp); only index values are checked here, as TensorFlow's CPU
// kernels check them.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cpu/matmul.hpp"
#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "kernels/numeric.hpp"
#include "kernels/registration.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

// TensorFlow's SliceDebugString: the coordinates of flat index `flat` in `shape`: "" for a scalar,
// "[5]" for a vector, "[1,2]" otherwise.
std::string coordinates(const std::vector<std::int64_t>& shape, std::int64_t flat) {
  if (shape.empty()) return "";
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    c[i] = shape[i] == 0 ? 0 : flat % shape[i];
    flat = shape[i] == 0 ? 0 : flat / shape[i];
  }
  return fmt::format("[{}]", fmt::join(c, ","));
}

// Calls fn(index type tag) for the indices' dtype (int32 or int64; the front-end allows no other).
template <class Fn>
void with_index_type(const runtime::TensorImpl& indices, Fn&& fn) {
  if (indices.dtype() == DType::kInt32) {
    fn(std::int32_t{});
  } else {
    fn(std::int64_t{});
  }
}

// out[j] = in[sum_d digit_d(j) * strides[d]] for j over the row-major `dims`.
template <class T>
void strided_copy(const T* in, const std::vector<std::int64_t>& dims,
                  const std::vector<std::int64_t>& strides, T* out) {
  std::int64_t total = 1;
  for (std::int64_t d : dims) total *= d;
  if (total == 0) return;
  const int rank = static_cast<int>(dims.size());
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  std::vector<std::int64_t> digit(dims.size(), 0);
  const std::int64_t inner = dims.back(), inner_stride = strides.back();
  std::int64_t offset = 0;
  for (std::int64_t j = 0; j < total; j += inner) {
    for (std::int64_t i = 0; i < inner; ++i) out[j + i] = in[offset + i * inner_stride];
    for (int d = rank - 2; d >= 0; --d) {  // odometer over the outer dimensions
      offset += strides[d];
      if (++digit[d] < dims[d]) break;
      offset -= strides[d] * dims[d];
      digit[d] = 0;
    }
  }
}

// ---- GatherV2 -----------------------------------------------------------------------------------

template <class T>
struct GatherKernel {
  static void run(KernelContext& ctx) {
    const auto& attrs = ctx.attrs<opdefs::GatherAttrs>();
    const runtime::TensorImpl& params = ctx.input(0);
    const runtime::TensorImpl& indices = ctx.input(1);
    const Shape& p = params.shape();
    std::int64_t batch = 1, outer = 1, inner = 1;
    for (int i = 0; i < attrs.batch_dims; ++i) batch *= p[i];
    for (int i = attrs.batch_dims; i < attrs.axis; ++i) outer *= p[i];
    for (int i = attrs.axis + 1; i < p.rank(); ++i) inner *= p[i];
    const std::int64_t limit = p[attrs.axis];
    const std::int64_t count = batch == 0 ? 0 : indices.shape().num_elements() / batch;
    with_index_type(indices, [&](auto tag) {
      using I = decltype(tag);
      const I* idx = indices.data<const I>();
      // TensorFlow's CPU kernel refuses an index out of range before writing anything.
      for (std::int64_t i = 0; i < indices.shape().num_elements(); ++i) {
        if (idx[i] < 0 || idx[i] >= limit) {
          throw InvalidArgumentError(fmt::format("indices{} = {} is not in [0, {}) [Op:GatherV2]",
                                                 coordinates(indices.shape().to_vector(), i),
                                                 idx[i], limit));
        }
      }
      T* out = ctx.allocate_output()->data<T>();
      const T* in = params.data<const T>();
      for (std::int64_t b = 0; b < batch; ++b) {
        for (std::int64_t o = 0; o < outer; ++o) {
          const T* src = in + (b * outer + o) * limit * inner;
          for (std::int64_t j = 0; j < count; ++j) {
            const T* row = src + static_cast<std::int64_t>(idx[b * count + j]) * inner;
            std::copy(row, row + inner, out);
            out += inner;
          }
        }
      }
    });
  }
};

// ---- GatherNd -----------------------------------------------------------------------------------

template <class T>
struct GatherNdKernel {
  static void run(KernelContext& ctx) {
    const int bd = ctx.attrs<opdefs::GatherNdAttrs>().batch_dims;
    const runtime::TensorImpl& params = ctx.input(0);
    const runtime::TensorImpl& indices = ctx.input(1);
    const Shape& p = params.shape();
    const Shape& ind = indices.shape();
    const int depth = static_cast<int>(ind[ind.rank() - 1]);
    std::int64_t batch = 1, slice = 1;
    for (int i = 0; i < bd; ++i) batch *= p[i];
    for (int i = bd + depth; i < p.rank(); ++i) slice *= p[i];
    std::int64_t batch_stride = 1;  // elements of params per batch entry
    for (int i = bd; i < p.rank(); ++i) batch_stride *= p[i];
    const std::int64_t rows = product_of(ind, 0, ind.rank() - 1);  // index rows
    const std::int64_t rows_per_batch = batch == 0 ? 0 : rows / batch;
    with_index_type(indices, [&](auto tag) {
      using I = decltype(tag);
      const I* idx = indices.data<const I>();
      std::vector<std::int64_t> offsets(static_cast<std::size_t>(rows));
      for (std::int64_t r = 0; r < rows; ++r) {
        const I* row = idx + r * depth;
        std::int64_t offset = 0;
        bool ok = true;
        for (int d = 0; d < depth; ++d) {
          const std::int64_t dim = p[bd + d];
          ok = ok && row[d] >= 0 && row[d] < dim;
          offset = offset * dim + static_cast<std::int64_t>(row[d]);
        }
        if (!ok) throw_out_of_range(p, ind, bd, row, depth, r, rows_per_batch);
        offsets[static_cast<std::size_t>(r)] =
            (r / std::max<std::int64_t>(rows_per_batch, 1)) * batch_stride + offset * slice;
      }
      T* out = ctx.allocate_output()->data<T>();
      const T* in = params.data<const T>();
      for (std::int64_t r = 0; r < rows; ++r) {
        std::copy(in + offsets[static_cast<std::size_t>(r)],
                  in + offsets[static_cast<std::size_t>(r)] + slice, out + r * slice);
      }
    });
  }

  static std::int64_t product_of(const Shape& s, int from, int to) {
    std::int64_t n = 1;
    for (int i = from; i < to; ++i) n *= s[i];
    return n;
  }

  // In TensorFlow's terms: with batch dimensions, those of tf.gather_nd's composition (Note
  // [gather_nd batches]): params [batch, ...], each index row prefixed with its batch number.
  template <class I>
  [[noreturn]] static void throw_out_of_range(const Shape& p, const Shape& ind, int bd,
                                              const I* row, int depth, std::int64_t r,
                                              std::int64_t rows_per_batch) {
    std::vector<std::int64_t> outer, values, param_shape;
    if (bd > 0) {
      outer.push_back(product_of(p, 0, bd));
      values.push_back(r / rows_per_batch);
      param_shape.push_back(product_of(p, 0, bd));
    }
    for (int i = bd; i < ind.rank() - 1; ++i) outer.push_back(ind[i]);
    for (int d = 0; d < depth; ++d) values.push_back(static_cast<std::int64_t>(row[d]));
    for (int i = bd; i < p.rank(); ++i) param_shape.push_back(p[i]);
    throw InvalidArgumentError(fmt::format(
        "indices{} = [{}] does not index into param shape {}, node name: GatherNd [Op:GatherNd]",
        coordinates(outer, r), fmt::join(values, ", "), Shape(param_shape).to_string()));
  }
};

// ---- Where, SelectV2 ----------------------------------------------------------------------------

template <class T>
struct WhereKernel {
  static void run(KernelContext& ctx) {
    if constexpr (std::is_same_v<T, float16>) {  // TensorFlow's CPU kernel refuses half too
      throw UnimplementedError(
          "No WhereOp available for float16/half type on CPU; dying in CPU WhereOp to avoid "
          "silently creating costly copies from device. [Op:Where]");
    }
    const runtime::TensorImpl& x = ctx.input(0);
    auto* out = ctx.allocate_output()->data<std::int64_t>();
    const Shape& s = x.shape();
    const int rank = s.rank();
    std::vector<std::int64_t> coord(static_cast<std::size_t>(rank), 0);
    const T* in = x.data<const T>();
    for (std::int64_t i = 0, n = s.num_elements(); i < n; ++i) {
      if (kernels::nonzero(in[i])) {
        for (int d = 0; d < rank; ++d) *out++ = coord[static_cast<std::size_t>(d)];
      }
      for (int d = rank - 1; d >= 0; --d) {
        if (++coord[static_cast<std::size_t>(d)] < s[d]) break;
        coord[static_cast<std::size_t>(d)] = 0;
      }
    }
  }
};

// Input strides over the output's dimensions: 0 where the input is broadcast.
std::vector<std::int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<std::int64_t> strides(static_cast<std::size_t>(out.rank()), 0);
  std::int64_t stride = 1;
  for (int i = in.rank() - 1, o = out.rank() - 1; i >= 0; --i, --o) {
    strides[static_cast<std::size_t>(o)] = in[i] == 1 ? 0 : stride;
    stride *= in[i];
  }
  return strides;
}

template <class T>
struct SelectKernel {
  static void run(KernelContext& ctx) {
    const Shape& shape = ctx.output_shape();
    T* out = ctx.allocate_output()->data<T>();
    const bool* c = ctx.input(0).data<const bool>();
    const T* x = ctx.input(1).data<const T>();
    const T* y = ctx.input(2).data<const T>();
    const std::int64_t n = shape.num_elements();
    const Shape& cs = ctx.input(0).shape();
    if (cs == shape && ctx.input(1).shape() == shape && ctx.input(2).shape() == shape) {
      for (std::int64_t i = 0; i < n; ++i) out[i] = c[i] ? x[i] : y[i];
      return;
    }
    const auto sc = broadcast_strides(cs, shape);
    const auto sx = broadcast_strides(ctx.input(1).shape(), shape);
    const auto sy = broadcast_strides(ctx.input(2).shape(), shape);
    const int rank = shape.rank();
    std::vector<std::int64_t> coord(static_cast<std::size_t>(rank), 0);
    std::int64_t oc = 0, ox = 0, oy = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      out[i] = c[oc] ? x[ox] : y[oy];
      for (int d = rank - 1; d >= 0; --d) {
        const auto u = static_cast<std::size_t>(d);
        oc += sc[u];
        ox += sx[u];
        oy += sy[u];
        if (++coord[u] < shape[d]) break;
        oc -= sc[u] * shape[d];
        ox -= sx[u] * shape[d];
        oy -= sy[u] * shape[d];
        coord[u] = 0;
      }
    }
  }
};

// ---- StridedSlice -------------------------------------------------------------------------------

template <class T>
struct StridedSliceKernel {
  static void run(KernelContext& ctx) {
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
    T* out = ctx.allocate_output()->data<T>();
    if (ctx.output_shape().num_elements() == 0) return;
    strided_copy(x.data<const T>() + base, a.size, strides, out);
  }
};

// ---- Einsum -------------------------------------------------------------------------------------

template <class T>
struct EinsumKernel {
  static void run(KernelContext& ctx) {
    const auto& a = ctx.attrs<opdefs::EinsumAttrs>();
    if (a.operands.size() == 1) {
      const opdefs::EinsumOperand& v = a.operands[0];
      if (!v.copy) {
        ctx.set_output(0, runtime::alias_tensor(ctx.input(0), ctx.output_shape()));
        return;
      }
      T* out = ctx.allocate_output()->data<T>();
      reduce_view(ctx.input(0).data<const T>(), v, out, ctx.output_shape().num_elements());
      return;
    }
    std::vector<T> buffers[2];
    const T* data[2];
    for (int i = 0; i < 2; ++i) {
      const opdefs::EinsumOperand& v = a.operands[static_cast<std::size_t>(i)];
      if (!v.copy) {
        data[i] = ctx.input(i).data<const T>();
        continue;
      }
      const std::int64_t rows = Shape(i == 0 ? a.a_shape : a.b_shape).num_elements();
      buffers[i].resize(static_cast<std::size_t>(rows));
      reduce_view(ctx.input(i).data<const T>(), v, buffers[i].data(), rows);
      data[i] = buffers[i].data();
    }
    const Shape product(a.product_shape);
    T* out = ctx.allocate_output()->data<T>();
    if (!a.out_copy) {
      matmul<T>(data[0], Shape(a.a_shape), data[1], Shape(a.b_shape), a.transpose_a, a.transpose_b,
                out, product);
      return;
    }
    std::vector<T> result(static_cast<std::size_t>(product.num_elements()));
    matmul<T>(data[0], Shape(a.a_shape), data[1], Shape(a.b_shape), a.transpose_a, a.transpose_b,
              result.data(), product);
    strided_copy(result.data(), a.out_dims, a.out_strides, out);
  }

  // `rows` results: the view's elements, each run of v.reduce summed (zeros when it is empty).
  static void reduce_view(const T* in, const opdefs::EinsumOperand& v, T* out, std::int64_t rows) {
    if (v.reduce == 1) return strided_copy(in, v.dims, v.strides, out);
    using C = compute_t<T>;
    if (v.reduce == 0) {
      for (std::int64_t r = 0; r < rows; ++r) out[r] = T(C{});
      return;
    }
    std::vector<T> all(static_cast<std::size_t>(rows * v.reduce));
    strided_copy(in, v.dims, v.strides, all.data());
    for (std::int64_t r = 0; r < rows; ++r) {
      C sum{};
      for (std::int64_t j = 0; j < v.reduce; ++j) sum = wrap_add(sum, C(all[r * v.reduce + j]));
      out[r] = T(sum);
    }
  }
};

}  // namespace

void register_index_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kGatherV2, DeviceType::kCPU, GatherKernel>(table);
  kernels::register_op<opdefs::OpId::kGatherNd, DeviceType::kCPU, GatherNdKernel>(table);
  kernels::register_op<opdefs::OpId::kWhere, DeviceType::kCPU, WhereKernel>(table);
  kernels::register_op<opdefs::OpId::kSelectV2, DeviceType::kCPU, SelectKernel>(table);
  kernels::register_op<opdefs::OpId::kStridedSlice, DeviceType::kCPU, StridedSliceKernel>(table);
  kernels::register_op<opdefs::OpId::kEinsum, DeviceType::kCPU, EinsumKernel>(table);
}

}  // namespace eagle::cpu
