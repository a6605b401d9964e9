// Reductions (Sum, Mean, Max, Min) over any axes, ArgMax and ArgMin.
#include <algorithm>

#include <fmt/format.h>

#include "eagle/ops.hpp"
#include "ops/attrs.hpp"
#include "ops/op_support.hpp"

namespace eagle {
namespace {

using ops::OpId;

Tensor reduce(OpId op, const Tensor& x, const Axes& axes, bool keepdims) {
  ops::check_defined(x, op);
  const Shape& in = x.shape();
  ops::ReduceAttrs attrs;
  if (axes.reduces_all()) {
    for (int i = 0; i < in.rank(); ++i) attrs.axes.push_back(i);
  } else {
    for (int axis : axes.list()) {
      if (axis < -in.rank() || axis >= in.rank()) {
        ops::throw_invalid(op, fmt::format("Invalid reduction dimension ({} for input with {} "
                                           "dimension(s)",
                                           axis, in.rank()));
      }
      attrs.axes.push_back(axis < 0 ? axis + in.rank() : axis);
    }
    std::sort(attrs.axes.begin(), attrs.axes.end());
    auto dup = std::adjacent_find(attrs.axes.begin(), attrs.axes.end());
    if (dup != attrs.axes.end()) {
      ops::throw_invalid(op, fmt::format("Invalid reduction arguments: Axes contains duplicate "
                                         "dimension: {}",
                                         *dup));
    }
  }
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    const bool reduced = std::binary_search(attrs.axes.begin(), attrs.axes.end(), i);
    if (!reduced) {
      out.push_back(in[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return ops::run_unary(op, x, out, x.dtype(), ops::OpAttrs{std::move(attrs)});
}

}  // namespace

Tensor reduce_sum(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(OpId::kSum, x, axes, keepdims);
}
Tensor reduce_mean(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(OpId::kMean, x, axes, keepdims);
}
Tensor reduce_max(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(OpId::kMax, x, axes, keepdims);
}
Tensor reduce_min(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(OpId::kMin, x, axes, keepdims);
}

namespace {

Tensor arg_reduce(OpId op, const Tensor& x, int axis) {
  ops::check_defined(x, op);
  const Shape& in = x.shape();
  const ops::AxisAttrs attrs{ops::normalize_axis(op, axis, in.rank())};
  if (in[attrs.axis] == 0) {
    ops::throw_invalid(
        op, fmt::format("Reduction axis {} is empty in shape {}", attrs.axis, in.to_string()));
  }
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (i != attrs.axis) out.push_back(in[i]);
  }
  return ops::run_unary(op, x, out, DType::kInt64, ops::OpAttrs{attrs});
}

}  // namespace

Tensor argmax(const Tensor& x, int axis) { return arg_reduce(OpId::kArgMax, x, axis); }
Tensor argmin(const Tensor& x, int axis) { return arg_reduce(OpId::kArgMin, x, axis); }

}  // namespace eagle
