#include "ops/op_support.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace eagle::ops {

void throw_invalid(opdefs::OpId op, const std::string& message) {
  throw InvalidArgumentError(fmt::format("{} [Op:{}]", message, opdefs::op_name(op)));
}

void check_defined(const Tensor& x, opdefs::OpId op, int index) {
  if (!x.defined()) throw_invalid(op, fmt::format("input #{} is an undefined tensor", index));
}

void check_same_dtype(opdefs::OpId op, const Tensor* inputs, int n) {
  for (int i = 0; i < n; ++i) check_defined(inputs[i], op, i);
  for (int i = 1; i < n; ++i) {
    if (inputs[i].dtype() != inputs[0].dtype()) {
      throw_invalid(op, fmt::format("cannot compute {} as input #{}(zero-based) was expected to be "
                                    "a {} tensor but is a {} tensor",
                                    opdefs::op_name(op), i, dtype_runtime_name(inputs[0].dtype()),
                                    dtype_runtime_name(inputs[i].dtype())));
    }
  }
}

Shape broadcast_shapes(opdefs::OpId op, const Shape& a, const Shape& b) {
  if (a == b) return a;
  const int rank = std::max(a.rank(), b.rank());
  std::vector<std::int64_t> dims(static_cast<std::size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i;
    const int ib = b.rank() - rank + i;
    const std::int64_t da = ia >= 0 ? a[ia] : 1;
    const std::int64_t db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      throw_invalid(op,
                    fmt::format("Incompatible shapes: {} vs. {}", a.to_string(), b.to_string()));
    }
    dims[static_cast<std::size_t>(i)] = da == 1 ? db : da;
  }
  return Shape(dims);
}

int normalize_axis(opdefs::OpId op, int axis, int rank) {
  if (axis < -rank || axis >= rank) {
    throw_invalid(
        op, fmt::format("{}Expected {} in the range [{}, {}), but got {}",
                        op == opdefs::OpId::kConcatV2 ? "ConcatOp : " : "",
                        op == opdefs::OpId::kConcatV2 ? "concatenating dimensions" : "dimension",
                        -rank, rank, axis));
  }
  return axis < 0 ? axis + rank : axis;
}

Tensor run_unary(opdefs::OpId op, const Tensor& x, const Shape& out_shape, DType out_dtype,
                 const opdefs::OpAttrs& attrs) {
  return runtime::execute1(op, x.dtype(), &x, 1, out_shape, out_dtype, attrs);
}

// The axes `axes` names in a tensor of `in`'s rank: sorted, unique, in [0, rank).
std::vector<int> normalized_axes(opdefs::OpId op, const Shape& in, const Axes& axes) {
  std::vector<int> out;
  if (axes.reduces_all()) {
    for (int i = 0; i < in.rank(); ++i) out.push_back(i);
    return out;
  }
  for (int axis : axes.list()) {
    if (axis < -in.rank() || axis >= in.rank()) {
      throw_invalid(op, fmt::format("Invalid reduction dimension ({} for input with {} "
                                    "dimension(s)",
                                    axis, in.rank()));
    }
    out.push_back(axis < 0 ? axis + in.rank() : axis);
  }
  std::sort(out.begin(), out.end());
  auto dup = std::adjacent_find(out.begin(), out.end());
  if (dup != out.end()) {
    throw_invalid(op, fmt::format("Invalid reduction arguments: Axes contains duplicate "
                                  "dimension: {}",
                                  *dup));
  }
  return out;
}

Shape reduced_shape(const Shape& in, const std::vector<int>& axes, bool keepdims) {
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), i);
    if (!reduced) {
      out.push_back(in[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

}  // namespace eagle::ops
