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

}  // namespace eagle::cuda
