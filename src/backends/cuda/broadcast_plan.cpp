#include "broadcast_plan.hpp"

namespace eagle::cuda {
namespace {

// Row-major strides of `shape` seen through the output's rank: leading missing dimensions and
// size-1 dimensions the output broadcasts get stride 0.
void broadcast_strides(const Shape& shape, const Shape& out, std::int64_t* strides) {
  const int offset = out.rank() - shape.rank();
  std::int64_t stride = 1;
  for (int d = out.rank() - 1; d >= 0; --d) {
    const int own = d - offset;
    if (own < 0 || (shape[own] == 1 && out[d] != 1)) {
      strides[d] = 0;
    } else {
      strides[d] = stride;
      stride *= shape[own];
    }
  }
}

}  // namespace

BroadcastPlan make_broadcast_plan(const Shape& a, const Shape& b, const Shape& out) {
  std::int64_t sa[Shape::kMaxRank];
  std::int64_t sb[Shape::kMaxRank];
  broadcast_strides(a, out, sa);
  broadcast_strides(b, out, sb);
  BroadcastPlan plan;
  for (int d = 0; d < out.rank(); ++d) {
    if (out[d] == 1) continue;  // contributes nothing to any offset
    const int last = plan.rank - 1;
    // Dimension d continues the previous kept one when both inputs step through the pair as
    // through one dimension: stride[prev] == stride[d] * size[d] (0 == 0 for broadcasts).
    if (last >= 0 && plan.strides_a[last] == sa[d] * out[d] &&
        plan.strides_b[last] == sb[d] * out[d]) {
      plan.dims[last] *= out[d];
      plan.strides_a[last] = sa[d];
      plan.strides_b[last] = sb[d];
      continue;
    }
    plan.dims[plan.rank] = out[d];
    plan.strides_a[plan.rank] = sa[d];
    plan.strides_b[plan.rank] = sb[d];
    ++plan.rank;
  }
  return plan;
}

RowBroadcast row_broadcast(const BroadcastPlan& plan) {
  if (plan.rank != 2) return {};
  const std::int64_t width = plan.dims[1];
  const bool a_full = plan.strides_a[0] == width && plan.strides_a[1] == 1;
  const bool b_full = plan.strides_b[0] == width && plan.strides_b[1] == 1;
  const bool a_row = plan.strides_a[0] == 0 && plan.strides_a[1] == 1;
  const bool b_row = plan.strides_b[0] == 0 && plan.strides_b[1] == 1;
  if (a_full && b_row) return {width, false};
  if (a_row && b_full) return {width, true};
  return {};
}

}  // namespace eagle::cuda
