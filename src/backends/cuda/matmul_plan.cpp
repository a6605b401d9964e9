#include "matmul_plan.hpp"

#include <algorithm>

#include "broadcast_plan.hpp"

namespace eagle::cuda {
namespace {

Shape batch_part(const Shape& s) {
  return Shape(std::vector<std::int64_t>(s.begin(), s.end() - 2));
}

}  // namespace

MatmulPlan make_matmul_plan(const Shape& a, const Shape& b, bool transpose_a, bool transpose_b,
                            const Shape& out_shape) {
  MatmulPlan plan;
  const int ra = a.rank();
  const int rb = b.rank();
  const int ro = out_shape.rank();
  plan.m = out_shape[ro - 2];
  plan.n = out_shape[ro - 1];
  plan.k = transpose_a ? a[ra - 2] : a[ra - 1];
  plan.transpose_first = transpose_b;
  plan.transpose_second = transpose_a;
  plan.ld_first = std::max<std::int64_t>(1, transpose_b ? plan.k : plan.n);
  plan.ld_second = std::max<std::int64_t>(1, transpose_a ? plan.m : plan.k);
  plan.ld_out = std::max<std::int64_t>(1, plan.n);
  plan.stride_out = plan.m * plan.n;

  const Shape out_batch = batch_part(out_shape);
  plan.batch = out_batch.num_elements();
  const std::int64_t a_matrix = a[ra - 2] * a[ra - 1];
  const std::int64_t b_matrix = b[rb - 2] * b[rb - 1];
  const BroadcastPlan batches = make_broadcast_plan(batch_part(a), batch_part(b), out_batch);
  if (batches.rank == 0) {  // one matrix, or every batch dimension has size 1
    return plan;
  }
  if (batches.rank == 1) {
    plan.stride_a = batches.strides_a[0] * a_matrix;
    plan.stride_b = batches.strides_b[0] * b_matrix;
    return plan;
  }
  plan.strided = false;
  plan.offsets_a.resize(static_cast<std::size_t>(plan.batch));
  plan.offsets_b.resize(static_cast<std::size_t>(plan.batch));
  for (std::int64_t i = 0; i < plan.batch; ++i) {
    std::int64_t rest = i;
    std::int64_t off_a = 0;
    std::int64_t off_b = 0;
    for (int d = batches.rank - 1; d >= 0; --d) {
      const std::int64_t digit = rest % batches.dims[d];
      rest /= batches.dims[d];
      off_a += digit * batches.strides_a[d];
      off_b += digit * batches.strides_b[d];
    }
    plan.offsets_a[static_cast<std::size_t>(i)] = off_a * a_matrix;
    plan.offsets_b[static_cast<std::size_t>(i)] = off_b * b_matrix;
  }
  return plan;
}

}  // namespace eagle::cuda
