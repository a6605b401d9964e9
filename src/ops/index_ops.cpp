// The indexing ops: gather (GatherV2), gather_nd (GatherNd), where (Where, SelectV2),
// boolean_mask (composed as TensorFlow composes it) and strided_slice (StridedSlice), with
// TensorFlow's validation order and texts; kernels in cpu/index_kernels.cpp and
// backends/cuda/index_kernels.cu.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "eagle/ops.hpp"
#include "opdefs/attrs.hpp"
#include "ops/op_support.hpp"

namespace eagle {

namespace {

bool is_index_dtype(DType d) { return d == DType::kInt32 || d == DType::kInt64; }

// Indices must be int32 or int64 (TensorFlow also has int16, which eagle does not).
void check_index_dtype(opdefs::OpId op, const Tensor& indices) {
  if (!is_index_dtype(indices.dtype())) {
    ops::throw_invalid(op, fmt::format("Value for attr 'Tindices' of {} is not in the list of "
                                       "allowed values: int32, int64",
                                       dtype_runtime_name(indices.dtype())));
  }
}

std::int64_t product(const Shape& s, int from, int to) {
  std::int64_t p = 1;
  for (int i = from; i < to; ++i) p *= s[i];
  return p;
}

}  // namespace

Tensor gather(const Tensor& params, const Tensor& indices, std::optional<int> axis_arg,
              int batch_dims) {
  ops::check_defined(params, opdefs::OpId::kGatherV2, 0);
  ops::check_defined(indices, opdefs::OpId::kGatherV2, 1);
  check_index_dtype(opdefs::OpId::kGatherV2, indices);
  // tf.gather: axis defaults to batch_dims, and an axis of exactly 0 takes the path that drops
  // batch_dims (params.sparse_read, then GatherV2 without it).
  int axis = axis_arg.value_or(batch_dims);
  if (axis == 0) batch_dims = 0;
  const Shape& p = params.shape();
  const Shape& ind = indices.shape();
  if (p.rank() < 1)
    ops::throw_invalid(opdefs::OpId::kGatherV2, "params must be at least 1 dimensional");
  if (axis < -p.rank() || axis >= p.rank()) {
    ops::throw_invalid(opdefs::OpId::kGatherV2,
                       fmt::format("Shape must be at least rank {} but is rank {}",
                                   axis < 0 ? -axis : axis + 1, p.rank()));
  }
  if (axis < 0) axis += p.rank();
  if (batch_dims != 0) {
    if (batch_dims < -ind.rank() || batch_dims > ind.rank()) {
      ops::throw_invalid(opdefs::OpId::kGatherV2,
                         fmt::format("Expected batch_dims in the range [{}, {}], but got {}",
                                     -ind.rank(), ind.rank(), batch_dims));
    }
    if (batch_dims < 0) batch_dims += ind.rank();
    if (batch_dims >= p.rank()) {
      ops::throw_invalid(opdefs::OpId::kGatherV2,
                         fmt::format("batch_dims ({}) must be less than rank(params) ({}).",
                                     batch_dims, p.rank()));
    }
    if (axis < batch_dims) {
      ops::throw_invalid(opdefs::OpId::kGatherV2,
                         fmt::format("batch_dims ({}) must be less than or equal to axis ({}).",
                                     batch_dims, axis));
    }
    for (int i = 0; i < batch_dims; ++i) {
      if (p[i] != ind[i]) {
        ops::throw_invalid(opdefs::OpId::kGatherV2,
                           fmt::format("params.shape[{}]: {} should be equal to indices.shape[{}]: "
                                       "{}",
                                       i, p[i], i, ind[i]));
      }
    }
  }
  Shape out;
  for (int i = 0; i < axis; ++i) out.push_back(p[i]);
  for (int i = batch_dims; i < ind.rank(); ++i) {
    if (out.rank() == Shape::kMaxRank) {
      ops::throw_invalid(opdefs::OpId::kGatherV2,
                         fmt::format("Shape rank exceeds the maximum of {}", Shape::kMaxRank));
    }
    out.push_back(ind[i]);
  }
  for (int i = axis + 1; i < p.rank(); ++i) {
    if (out.rank() == Shape::kMaxRank) {
      ops::throw_invalid(opdefs::OpId::kGatherV2,
                         fmt::format("Shape rank exceeds the maximum of {}", Shape::kMaxRank));
    }
    out.push_back(p[i]);
  }
  const Tensor inputs[2] = {params, indices};
  return runtime::execute1(opdefs::OpId::kGatherV2, params.dtype(), inputs, 2, out, params.dtype(),
                           opdefs::OpAttrs{opdefs::GatherAttrs{axis, batch_dims}});
}

// Note [gather_nd batches]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// tf.gather_nd with batch_dims > 0 is Python (batch_gather_nd): it flattens the batch dimensions of
// params to one, prepends each index row's batch number and runs GatherNd on that. eagle runs one
// GatherNd whose kernel does the same arithmetic, and reports what TensorFlow's composition
// reports: its Reshape's error when the batch sizes differ, and an out-of-range index in the
// flattened terms ("indices[1] = [1, 3] does not index into param shape [2,3]").
Tensor gather_nd(const Tensor& params, const Tensor& indices, int batch_dims) {
  ops::check_defined(params, opdefs::OpId::kGatherNd, 0);
  ops::check_defined(indices, opdefs::OpId::kGatherNd, 1);
  check_index_dtype(opdefs::OpId::kGatherNd, indices);
  const Shape& p = params.shape();
  const Shape& ind = indices.shape();
  if (batch_dims < 0)
    throw InvalidArgumentError("tf.gather_nd does not allow negative batch_dims.");
  if (batch_dims > 0) {
    if (batch_dims >= ind.rank()) {
      throw InvalidArgumentError(
          fmt::format("Argument `batch_dims` = {} must be less than rank(`indices`) = {}",
                      batch_dims, ind.rank()));
    }
    if (batch_dims >= p.rank()) {
      throw InvalidArgumentError(
          fmt::format("Argument `batch_dims` = {} must be less than rank(`params`) = {}",
                      batch_dims, p.rank()));
    }
    const std::int64_t batch = product(p, 0, batch_dims);
    const std::int64_t requested = batch * product(ind, batch_dims, ind.rank());
    if (requested != ind.num_elements()) {
      throw InvalidArgumentError(
          fmt::format("Input to reshape is a tensor with {} values, but the "
                      "requested shape has {} [Op:Reshape]",
                      ind.num_elements(), requested));
    }
  }
  if (p.rank() < 1) ops::throw_invalid(opdefs::OpId::kGatherNd, "params must be at least a vector");
  if (ind.rank() < 1)
    ops::throw_invalid(opdefs::OpId::kGatherNd, "indices must be at least a vector");
  const std::int64_t depth = ind[ind.rank() - 1];
  if (depth > p.rank() - batch_dims) {
    ops::throw_invalid(opdefs::OpId::kGatherNd,
                       fmt::format("index innermost dimension length must be <= params rank; "
                                   "saw: {} vs. {}",
                                   depth + (batch_dims > 0 ? 1 : 0),
                                   p.rank() - batch_dims + (batch_dims > 0 ? 1 : 0)));
  }
  // [batch (params'), indices' middle dims..., params dims after the indexed ones...]
  Shape out;
  for (int i = 0; i < batch_dims; ++i) out.push_back(p[i]);
  for (int i = batch_dims; i < ind.rank() - 1; ++i) out.push_back(ind[i]);
  for (int i = batch_dims + static_cast<int>(depth); i < p.rank(); ++i) {
    if (out.rank() == Shape::kMaxRank) {
      ops::throw_invalid(opdefs::OpId::kGatherNd,
                         fmt::format("Shape rank exceeds the maximum of {}", Shape::kMaxRank));
    }
    out.push_back(p[i]);
  }
  if (out.num_elements() > 0 && p.num_elements() == 0) {
    ops::throw_invalid(opdefs::OpId::kGatherNd,
                       fmt::format("Requested more than 0 entries, but params is empty.  Params "
                                   "shape: {}",
                                   p.to_string()));
  }
  const Tensor inputs[2] = {params, indices};
  return runtime::execute1(opdefs::OpId::kGatherNd, params.dtype(), inputs, 2, out, params.dtype(),
                           opdefs::OpAttrs{opdefs::GatherNdAttrs{batch_dims}});
}

namespace {

// The number of nonzero elements (NaN counts, -0.0 does not): Where's output has one row each,
// so its shape needs the values. Read on the host, as TensorFlow's GPU kernel reads the count.
std::int64_t count_nonzero(const Tensor& condition) {
  return visit_dtype(condition.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::int64_t n = 0;
    for (const auto v : condition.to_vector<T>()) {
      if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
        n += static_cast<float>(v) != 0.0f;
      } else {
        n += v != T{};
      }
    }
    return n;
  });
}

}  // namespace

Tensor where(const Tensor& condition) {
  ops::check_defined(condition, opdefs::OpId::kWhere);
  if (condition.rank() == 0) {
    ops::throw_invalid(opdefs::OpId::kWhere, "WhereOp : Unhandled input dimensions: 0");
  }
  const Shape out{count_nonzero(condition), condition.rank()};
  return ops::run_unary(opdefs::OpId::kWhere, condition, out, DType::kInt64);
}

Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y) {
  const Tensor inputs[3] = {condition, x, y};
  for (int i = 0; i < 3; ++i) ops::check_defined(inputs[i], opdefs::OpId::kSelectV2, i);
  const auto dtype_error = [](int i, DType want, DType got) {
    ops::throw_invalid(opdefs::OpId::kSelectV2,
                       fmt::format("cannot compute SelectV2 as input #{}(zero-based) was expected "
                                   "to be a {} tensor but is a {} tensor",
                                   i, dtype_runtime_name(want), dtype_runtime_name(got)));
  };
  if (condition.dtype() != DType::kBool) dtype_error(0, DType::kBool, condition.dtype());
  if (y.dtype() != x.dtype()) dtype_error(2, x.dtype(), y.dtype());
  const auto broadcast = [](const Shape& a, const Shape& b, Shape& out) {
    const int rank = std::max(a.rank(), b.rank());
    Shape s;
    for (int i = 0; i < rank; ++i) {
      const int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
      const std::int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
      if (da != db && da != 1 && db != 1) return false;
      s.push_back(da == 1 ? db : da);
    }
    out = s;
    return true;
  };
  Shape xy, out;
  if (!broadcast(x.shape(), y.shape(), xy) || !broadcast(condition.shape(), xy, out)) {
    ops::throw_invalid(
        opdefs::OpId::kSelectV2,
        fmt::format("condition {}, then {}, and else {} must be broadcastable",
                    condition.shape().to_string(), x.shape().to_string(), y.shape().to_string()));
  }
  return runtime::execute1(opdefs::OpId::kSelectV2, x.dtype(), inputs, 3, out, x.dtype());
}

namespace {

// Python's TensorShape printing: (), (3,), (2, 3).
std::string python_shape(const std::vector<std::int64_t>& dims) {
  if (dims.size() == 1) return fmt::format("({},)", dims[0]);
  return fmt::format("({})", fmt::join(dims, ", "));
}

}  // namespace

Tensor boolean_mask(const Tensor& tensor, const Tensor& mask, int axis) {
  ops::check_defined(tensor, opdefs::OpId::kGatherV2, 0);
  ops::check_defined(mask, opdefs::OpId::kWhere, 0);
  const Shape& s = tensor.shape();
  const int n = mask.rank();
  if (n == 0) throw InvalidArgumentError("mask cannot be scalar.");
  // shape[axis:axis + n] with Python's slice rules (a negative bound counts from the end).
  const int r = s.rank();
  const auto bound = [r](int b) { return b < 0 ? std::max(b + r, 0) : std::min(b, r); };
  const int from = bound(axis), to = bound(axis + n);
  std::vector<std::int64_t> covered;
  for (int i = from; i < to; ++i) covered.push_back(s[i]);
  if (covered != mask.shape().to_vector()) {
    throw InvalidArgumentError(fmt::format("Shapes {} and {} are incompatible",
                                           python_shape(covered),
                                           python_shape(mask.shape().to_vector())));
  }
  const int a = from;  // the axis, now in [0, r - n]
  // TensorFlow also runs Shape, StridedSlice, Prod, Pack and ConcatV2 to compute the new shape;
  // eagle computes shapes on the host (as eagle::shape), so the log shows the ops that move data.
  std::vector<std::int64_t> dims;
  for (int i = 0; i < a; ++i) dims.push_back(s[i]);
  dims.push_back(product(s, a, a + n));
  for (int i = a + n; i < r; ++i) dims.push_back(s[i]);
  const Tensor flat = reshape(tensor, dims);
  const Tensor indices = squeeze(where(reshape(mask, {-1})), {1});
  return gather(flat, indices, axis);
}

// ---- strided_slice ------------------------------------------------------------------------------

namespace {

// TensorFlow's ValidateStridedSliceOp (strided_slice_op.cc): the sparse spec (what the caller
// wrote, with one ellipsis) is made dense (one entry per input dimension), each range is made
// canonical, and the final shape drops shrunk dimensions and adds new ones.
struct DenseSlice {
  opdefs::StridedSliceAttrs attrs;
  Shape final_shape;
};

DenseSlice validate_strided_slice(const Shape& in, opdefs::StridedSliceAttrs a) {
  const opdefs::OpId op = opdefs::OpId::kStridedSlice;
  if (a.begin.size() != a.end.size() || a.begin.size() != a.strides.size()) {
    ops::throw_invalid(op, fmt::format("Expected begin, end, and strides to be 1D equal size "
                                       "tensors, but got shapes [{}], [{}], and [{}] instead.",
                                       a.begin.size(), a.end.size(), a.strides.size()));
  }
  if (a.ellipsis_mask != 0 && (a.ellipsis_mask & (a.ellipsis_mask - 1)) != 0) {
    ops::throw_invalid(op, "Multiple ellipses in slice spec not allowed");
  }
  // Step 1: the sparse spec; an ellipsis is implied after the last entry when there is none.
  int sparse_dims = static_cast<int>(a.begin.size());
  int ellipsis_mask = a.ellipsis_mask;
  int new_axis_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int i = 0; i < sparse_dims; ++i) {
    if (ellipsis_seen && ((1 << i) & a.new_axis_mask) != 0) ++new_axis_after_ellipsis;
    if ((1 << i) & ellipsis_mask) ellipsis_seen = true;
  }
  if (!ellipsis_seen) {
    ellipsis_mask |= 1 << sparse_dims;
    ++sparse_dims;
  }
  // Step 2: the dense spec. final_gather holds, per output dimension, the dense dimension it comes
  // from, or kNewAxis; shrunk dimensions are left out.
  constexpr int kNewAxis = -1;
  const int dims = in.rank();
  std::vector<std::int64_t> begin(dims, 0), end(dims, 0), strides(dims, 1);
  int begin_mask = 0, end_mask = 0, shrink_mask = 0;
  std::vector<int> final_gather;
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if ((1 << i) & ellipsis_mask) {
      const int next = std::min(dims - (sparse_dims - i) + 1 + new_axis_after_ellipsis, dims);
      for (; full < next; ++full) {
        begin[full] = end[full] = 0;
        strides[full] = 1;
        begin_mask |= 1 << full;
        end_mask |= 1 << full;
        final_gather.push_back(full);
      }
    } else if ((1 << i) & a.new_axis_mask) {
      final_gather.push_back(kNewAxis);
    } else {
      if (full == dims) {
        if (dims == 0) ops::throw_invalid(op, "Attempting to slice scalar input.");
        ops::throw_invalid(op, fmt::format("Index out of range using input dim {}; input has only "
                                           "{} dims",
                                           full, dims));
      }
      begin[full] = a.begin[i];
      end[full] = a.end[i];
      strides[full] = a.strides[i];
      if (a.begin_mask & (1 << i)) begin_mask |= 1 << full;
      if (a.end_mask & (1 << i)) end_mask |= 1 << full;
      if (a.shrink_axis_mask & (1 << i)) {
        shrink_mask |= 1 << full;
      } else {
        final_gather.push_back(full);
      }
      ++full;
    }
  }
  // Step 3: canonical ranges and the processing shape.
  a.start.assign(dims, 0);
  a.step.assign(dims, 1);
  a.size.assign(dims, 0);
  for (int i = 0; i < dims; ++i) {
    const std::int64_t stride = strides[i];
    const std::int64_t dim = in[i];
    if (stride == 0) ops::throw_invalid(op, fmt::format("strides[{}] must be non-zero", i));
    const bool masks[2] = {(begin_mask & (1 << i)) != 0, (end_mask & (1 << i)) != 0};
    const std::int64_t valid[2] = {stride > 0 ? 0 : -1, stride > 0 ? dim : dim - 1};
    const auto canonical = [&](std::int64_t x, int c) {
      if (masks[c]) return stride > 0 ? valid[c] : valid[(c + 1) & 1];
      const std::int64_t fwd = x < 0 ? dim + x : x;
      return fwd < valid[0] ? valid[0] : fwd > valid[1] ? valid[1] : fwd;
    };
    const bool shrink = (shrink_mask & (1 << i)) != 0;
    std::int64_t b, e;
    if (shrink) {
      if (stride <= 0) ops::throw_invalid(op, "only stride 1 allowed on non-range indexing.");
      const std::int64_t fwd = begin[i] < 0 ? dim + begin[i] : begin[i];
      if (fwd < 0 || fwd >= dim) {
        ops::throw_invalid(op,
                           fmt::format("slice index {} of dimension {} out of bounds.", fwd, i));
      }
      b = fwd;
      e = fwd + 1;
    } else {
      b = canonical(begin[i], 0);
      e = canonical(end[i], 1);
    }
    const std::int64_t interval = e - b;
    std::int64_t size = 0;
    if (interval != 0 && (interval < 0) == (stride < 0)) {
      size = interval / stride + (interval % stride != 0 ? 1 : 0);
    }
    a.start[i] = b;
    a.step[i] = stride;
    a.size[i] = size;
  }
  // Step 4: the final shape.
  Shape final_shape;
  for (int g : final_gather) {
    if (final_shape.rank() == Shape::kMaxRank) {
      ops::throw_invalid(op, fmt::format("Shape rank exceeds the maximum of {}", Shape::kMaxRank));
    }
    final_shape.push_back(g == kNewAxis ? 1 : a.size[g]);
  }
  return {std::move(a), final_shape};
}

}  // namespace

Tensor strided_slice(const Tensor& x, const std::vector<std::int64_t>& begin,
                     const std::vector<std::int64_t>& end, const std::vector<std::int64_t>& strides,
                     int begin_mask, int end_mask, int ellipsis_mask, int new_axis_mask,
                     int shrink_axis_mask) {
  ops::check_defined(x, opdefs::OpId::kStridedSlice);
  DenseSlice dense = validate_strided_slice(x.shape(), opdefs::StridedSliceAttrs{begin,
                                                                                 end,
                                                                                 strides,
                                                                                 begin_mask,
                                                                                 end_mask,
                                                                                 ellipsis_mask,
                                                                                 new_axis_mask,
                                                                                 shrink_axis_mask,
                                                                                 {},
                                                                                 {},
                                                                                 {}});
  return ops::run_unary(opdefs::OpId::kStridedSlice, x, dense.final_shape, x.dtype(),
                        opdefs::OpAttrs{std::move(dense.attrs)});
}

}  // namespace eagle
