// How a broadcasting binary op walks its inputs: NumPy broadcasting reduced to the fewest
// dimensions that describe it. Host code only (no CUDA), so it is unit-tested on any machine.
#pragma once

#include <cstdint>

#include "eagle/shape.hpp"

namespace eagle::cuda {

// out[i] = f(a[offset_a(i)], b[offset_b(i)]) where, writing i in the mixed radix `dims`
// (row-major), offset_x(i) = sum_d digit_d * strides_x[d]. A stride is 0 along a broadcast
// dimension. Adjacent dimensions that both inputs traverse alike are merged and size-1
// dimensions dropped, so [4096, 4096] + [4096] has rank 2 and same-shape inputs rank 1.
struct BroadcastPlan {
  int rank = 0;  // 0: a single element
  std::int64_t dims[Shape::kMaxRank] = {};
  std::int64_t strides_a[Shape::kMaxRank] = {};
  std::int64_t strides_b[Shape::kMaxRank] = {};
};

// a and b broadcast to out (the caller validated the shapes).
BroadcastPlan make_broadcast_plan(const Shape& a, const Shape& b, const Shape& out);

// The commonest broadcast, a [rows, width] operand and a [width] row added to every row (a bias,
// in either operand), which the CUDA kernels run over 16-byte packs without the plan's
// per-element divisions: width > 0 when `plan` is that, with which operand is the row.
struct RowBroadcast {
  std::int64_t width = 0;  // 0: not a row broadcast
  bool row_is_a = false;
};
RowBroadcast row_broadcast(const BroadcastPlan& plan);

}  // namespace eagle::cuda
