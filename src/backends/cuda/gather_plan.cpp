#include "gather_plan.hpp"

namespace eagle::cuda {
namespace {

void row_major_strides(const Shape& shape, std::int64_t* strides) {
  std::int64_t stride = 1;
  for (int d = shape.rank() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape[d];
  }
}

// Appends output dimension (size, stride), merging it into the previous one when the two walk
// the input as one dimension would; size-1 dimensions are dropped.
void append(GatherPlan& plan, std::int64_t size, std::int64_t stride) {
  if (size == 1) return;
  const int last = plan.rank - 1;
  if (last >= 0 && plan.strides[last] == stride * size) {
    plan.dims[last] *= size;
    plan.strides[last] = stride;
    return;
  }
  plan.dims[plan.rank] = size;
  plan.strides[plan.rank] = stride;
  ++plan.rank;
}

}  // namespace

bool GatherPlan::is_batched_transpose() const {
  if (rank < 2 || rank > 3) return false;
  // out [batch, p, q] from in [batch, q, p]: out's p walks in's rows (stride 1), its q steps
  // over whole rows of p.
  const std::int64_t p = dims[rank - 2];
  const std::int64_t q = dims[rank - 1];
  if (strides[rank - 2] != 1 || strides[rank - 1] != p) return false;
  return rank == 2 || strides[0] == p * q;
}

GatherPlan make_transpose_plan(const Shape& in, const std::vector<int>& perm) {
  std::int64_t strides[Shape::kMaxRank];
  row_major_strides(in, strides);
  GatherPlan plan;
  for (int k = 0; k < static_cast<int>(perm.size()); ++k) {
    append(plan, in[perm[k]], strides[perm[k]]);
  }
  return plan;
}

GatherPlan make_slice_plan(const Shape& in, const std::vector<std::int64_t>& begin,
                           const Shape& size) {
  std::int64_t strides[Shape::kMaxRank];
  row_major_strides(in, strides);
  GatherPlan plan;
  for (int d = 0; d < in.rank(); ++d) {
    plan.base += begin[d] * strides[d];
    append(plan, size[d], strides[d]);
  }
  return plan;
}

GatherPlan make_strided_plan(std::int64_t base, const std::vector<std::int64_t>& dims,
                             const std::vector<std::int64_t>& strides) {
  GatherPlan plan;
  plan.base = base;
  for (std::size_t d = 0; d < dims.size(); ++d) append(plan, dims[d], strides[d]);
  return plan;
}

}  // namespace eagle::cuda
