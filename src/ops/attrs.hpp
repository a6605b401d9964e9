// The attribute structs of the ops, and OpAttrs, the one owned, typed value that carries them
// from an op's front-end to its kernels and to anything that records the op (a gradient tape).
#pragma once

#include <cstdint>
#include <type_traits>
#include <variant>
#include <vector>

namespace eagle::ops {

struct NoAttrs {};
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
// Const is never recorded (it has no inputs to differentiate), so it may point at the caller's
// buffer instead of owning a copy: the kernel copies from it before execute() returns.
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

struct TopKAttrs {
  int k;
  bool sorted;
};
struct TileAttrs {
  std::vector<std::int64_t> multiples;  // one per dimension, >= 0
};
// Pad, PadV2 and MirrorPad: what goes before and after each dimension.
struct PadAttrs {
  std::vector<std::int64_t> before;
  std::vector<std::int64_t> after;
  double constant_value;  // Pad: 0; PadV2: the fill (converted to the dtype); MirrorPad: unused
  bool symmetric;         // MirrorPad: SYMMETRIC repeats the edge, REFLECT does not
};
struct ReverseAttrs {
  std::vector<int> axes;  // sorted, unique, in [0, rank)
};
// Cumsum, Cumprod.
struct ScanAttrs {
  int axis;  // normalized to [0, rank)
  bool exclusive;
  bool reverse;
};

// Note [Op attributes]
// ~~~~~~~~~~~~~~~~~~~~
// Every op's attributes are one alternative of this variant, named by the op's row in the op
// table (ops/op_defs.hpp). The value is owned (a tape copies it to run the gradient later) and
// typed: a kernel reads it with KernelContext::attrs<T>(), which checks the alternative, and the
// dispatcher checks that a call carries the alternative its op's row names.
using OpAttrs = std::variant<NoAttrs, ReduceAttrs, AxisAttrs, MatMulAttrs, TransposeAttrs,
                             SliceAttrs, ConstAttrs, FillAttrs, RangeAttrs, RandomAttrs, TopKAttrs,
                             TileAttrs, PadAttrs, ReverseAttrs, ScanAttrs>;

// The index of attribute struct T in OpAttrs (a compile error for a type that is not in it).
template <class T, std::size_t I = 0>
constexpr std::size_t attrs_index() {
  static_assert(I < std::variant_size_v<OpAttrs>, "not an alternative of OpAttrs");
  if constexpr (std::is_same_v<std::variant_alternative_t<I, OpAttrs>, T>) {
    return I;
  } else {
    return attrs_index<T, I + 1>();
  }
}

}  // namespace eagle::ops
