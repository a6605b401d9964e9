// Transpose, slice and strided slice as one strided gather: out[i] = in[base + sum_d digit_d *
// strides[d]], digits of i in the mixed radix `dims` (row-major), reduced to the fewest dimensions.
// Host code only (no CUDA), unit-tested on any machine.
#pragma once

#include <cstdint>
#include <vector>

#include "eagle/shape.hpp"

namespace eagle::cuda {

struct GatherPlan {
  int rank = 0;  // 0: a single element
  std::int64_t base = 0;
  std::int64_t dims[Shape::kMaxRank] = {};
  std::int64_t strides[Shape::kMaxRank] = {};  // in elements of the input
  // The plan is a batch of 2-D transposes: in [batch, q, p] -> out [batch, p, q] (batch 1 when
  // rank is 2). Such gathers go through shared-memory tiles.
  bool is_batched_transpose() const;
};

// out dimension k is in dimension perm[k].
GatherPlan make_transpose_plan(const Shape& in, const std::vector<int>& perm);
// The box [begin, begin + size) of `in`.
GatherPlan make_slice_plan(const Shape& in, const std::vector<std::int64_t>& begin,
                           const Shape& size);

// out[j] = in[base + sum_d digit_d(j) * strides[d]] (strides of any sign, 0 included).
GatherPlan make_strided_plan(std::int64_t base, const std::vector<std::int64_t>& dims,
                             const std::vector<std::int64_t>& strides);

}  // namespace eagle::cuda
