// Attribute structs passed from an op to its kernels through KernelContext::attrs.
#pragma once

#include <cstdint>
#include <vector>

namespace eagle::ops {

struct ReduceAttrs {
  std::vector<int> axes;  // sorted, unique, in [0, rank)
};
struct AxisAttrs {
  int axis;  // normalized to [0, rank)
};
struct MatMulAttrs {
  bool transpose_a;
  bool transpose_b;
};
struct TransposeAttrs {
  std::vector<int> perm;
};
struct SliceAttrs {
  std::vector<std::int64_t> begin;
};
struct ConstAttrs {
  const void* host_data;  // output_shape.num_elements() values of the output dtype
};
struct FillAttrs {
  double value;
};
struct RangeAttrs {
  double start;
  double delta;
};
struct RandomAttrs {
  std::uint64_t seed;
  double a;  // uniform: minval; normal: mean
  double b;  // uniform: maxval; normal: stddev
};

}  // namespace eagle::ops
