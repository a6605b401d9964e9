// Sorting and selection ops: validation and shape inference; kernels in cpu/sort_kernels.cpp and
// backends/cuda/sort_kernels.cu. sort and argsort are composites on top_k, as in TensorFlow.
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "eagle/ops.hpp"
#include "ops/op_support.hpp"

namespace eagle {

TopK top_k(const Tensor& input, int k, bool sorted) {
  ops::check_defined(input, opdefs::OpId::kTopKV2);
  const Shape& in = input.shape();
  if (k < 0) ops::throw_invalid(opdefs::OpId::kTopKV2, fmt::format("Need k >= 0, got {}", k));
  if (in.rank() < 1) {
    ops::throw_invalid(
        opdefs::OpId::kTopKV2,
        fmt::format("input must be at least 1-dimensional, got shape {}", in.to_string()));
  }
  const std::int64_t columns = in[in.rank() - 1];
  if (columns < k) {
    ops::throw_invalid(opdefs::OpId::kTopKV2,
                       fmt::format("input must have at least k columns. Had {}, "
                                   "needed {}",
                                   columns, k));
  }
  Shape out = in;
  out[in.rank() - 1] = k;
  const runtime::TensorSpec outputs[2] = {{out, input.dtype()}, {out, DType::kInt32}};
  const opdefs::OpAttrs attrs{opdefs::TopKAttrs{k, sorted}};
  Tensor results[2];
  runtime::execute({opdefs::OpId::kTopKV2, input.dtype(), &input, 1, outputs, 2, attrs}, results);
  return TopK{std::move(results[0]), std::move(results[1])};
}

namespace {

// tf.sort's _sort_or_argsort: Neg (and Sub for integers) before TopKV2 for an ascending sort,
// a Transpose either side of it when the axis is not the last, Neg (and Sub) after it for values.
Tensor sort_or_argsort(const Tensor& values, int axis, const std::string& direction,
                       bool return_argsort) {
  const bool ascending = direction == "ASCENDING";
  if (!ascending && direction != "DESCENDING") {
    throw InvalidArgumentError(
        fmt::format("Argument `direction` should be one of ASCENDING, "
                    "DESCENDING. Received: direction={}",
                    direction));
  }
  ops::check_defined(values, opdefs::OpId::kTopKV2);
  const bool integer = values.dtype() == DType::kInt32 || values.dtype() == DType::kInt64;
  // -x - 1 maps the integers' minimum to their maximum (int32 arithmetic wraps as in TensorFlow).
  Tensor input = values;
  if (ascending) input = integer ? negative(values) - 1 : negative(values);
  // k = shape(values)[axis]: TensorFlow's StridedSlice reports an axis out of range, after adding
  // the rank to a negative one.
  const int rank = values.rank();
  if (axis < -rank || axis >= rank) {
    throw InvalidArgumentError(
        fmt::format("slice index {} of dimension 0 out of bounds. "
                    "[Op:StridedSlice]",
                    axis < 0 ? axis + rank : axis));
  }
  const int a = axis < 0 ? axis + rank : axis;
  std::vector<int> perm;
  if (a != rank - 1) {
    for (int i = 0; i < rank; ++i) perm.push_back(i);
    std::swap(perm[static_cast<std::size_t>(a)], perm.back());
    input = transpose(input, perm);
  }
  const std::int64_t k = values.shape()[a];
  if (k > std::numeric_limits<int>::max()) {
    ops::throw_invalid(opdefs::OpId::kTopKV2,
                       fmt::format("Cannot sort {} values along one axis", k));
  }
  TopK top = top_k(input, static_cast<int>(k), true);
  Tensor out = return_argsort ? top.indices : top.values;
  if (!perm.empty()) out = transpose(out, perm);  // a swap of two axes is its own inverse
  if (ascending && !return_argsort) out = integer ? negative(out) - 1 : negative(out);
  return out;
}

}  // namespace

Tensor sort(const Tensor& values, int axis, const std::string& direction) {
  return sort_or_argsort(values, axis, direction, false);
}

Tensor argsort(const Tensor& values, int axis, const std::string& direction) {
  return sort_or_argsort(values, axis, direction, true);
}

}  // namespace eagle
