// Sorting and selection ops: validation and shape inference; kernels in cpu/sort_kernels.cpp.
#include <fmt/format.h>

#include "eagle/ops.hpp"
#include "ops/op_support.hpp"

namespace eagle {

using ops::OpId;

TopK top_k(const Tensor& input, int k, bool sorted) {
  ops::check_defined(input, OpId::kTopKV2);
  const Shape& in = input.shape();
  if (k < 0) ops::throw_invalid(OpId::kTopKV2, fmt::format("Need k >= 0, got {}", k));
  if (in.rank() < 1) {
    ops::throw_invalid(
        OpId::kTopKV2,
        fmt::format("input must be at least 1-dimensional, got shape {}", in.to_string()));
  }
  const std::int64_t columns = in[in.rank() - 1];
  if (columns < k) {
    ops::throw_invalid(OpId::kTopKV2, fmt::format("input must have at least k columns. Had {}, "
                                                  "needed {}",
                                                  columns, k));
  }
  Shape out = in;
  out[in.rank() - 1] = k;
  const runtime::TensorSpec outputs[2] = {{out, input.dtype()}, {out, DType::kInt32}};
  const ops::OpAttrs attrs{ops::TopKAttrs{k, sorted}};
  Tensor results[2];
  runtime::execute({OpId::kTopKV2, input.dtype(), &input, 1, outputs, 2, attrs}, results);
  return TopK{std::move(results[0]), std::move(results[1])};
}

}  // namespace eagle
