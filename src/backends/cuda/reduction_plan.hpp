// How a reduction over a set of axes runs on the GPU: every case is reduced to one of three
// kernels over a [outer, reduced, inner] view of the input, transposing first when the reduced
// axes are interleaved with kept ones. Host code only (no CUDA), unit-tested on any machine.
#pragma once

#include <cstdint>
#include <vector>

#include "eagle/shape.hpp"

namespace eagle::cuda {

struct ReductionPlan {
  enum class Kind {
    kNothingToWrite,  // the output has no elements
    kIdentity,        // some reduced axis is empty: every output is the reduction's identity
    kCopy,            // only size-1 axes are reduced: the output is the input's values
    kReduce,          // [outer, reduced, inner] -> [outer, inner]
  };
  Kind kind = Kind::kNothingToWrite;
  std::int64_t outer = 1;
  std::int64_t reduced = 1;
  std::int64_t inner = 1;
  // Non-empty when the input must first be transposed by `perm` (kept axes first, then the
  // reduced ones) to get the [outer, reduced, 1] view; `transposed` is that transposed shape.
  std::vector<int> perm;
  Shape transposed;
};

// axes: sorted, unique, in [0, rank).
ReductionPlan make_reduction_plan(const Shape& in, const std::vector<int>& axes);

}  // namespace eagle::cuda
