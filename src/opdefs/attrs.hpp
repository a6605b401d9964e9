// The attribute structs of the ops, and OpAttrs, the one owned, typed value that carries them
// from an op's front-end to its kernels and to anything that records the op (a gradient tape).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace eagle {
class Tensor;
}

namespace eagle::opdefs {

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

// GatherV2: params viewed as [batch, outer, axis, inner] and indices as [batch, count], both
// products of the validated shapes; the output is [batch, outer, count, inner].
struct GatherAttrs {
  int axis;        // normalized to [0, params rank)
  int batch_dims;  // normalized to [0, indices rank]
};
// GatherNd: indices [batch, ..., depth] index params [batch, P_0 .. P_{depth-1}, slice...].
// batch_dims > 0 is tf.gather_nd's batch_gather_nd, done in the kernel (Note [gather_nd batches]).
struct GatherNdAttrs {
  int batch_dims;
};
// StridedSlice: the call as TensorFlow takes it (for a tape), and the dense form its validation
// computes (one entry per input dimension): element j of dimension d is start[d] + j * step[d],
// for j < size[d]. Kernels read only the dense form.
struct StridedSliceAttrs {
  std::vector<std::int64_t> begin, end, strides;
  int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
  std::vector<std::int64_t> start, step, size;
};
// One operand of an Einsum: a strided view of it (dims, strides in its elements) in the order the
// contraction wants, whose last `reduce` elements of each row are summed; copy false when the
// operand already is that layout and nothing is summed (it is used as it is).
struct EinsumOperand {
  std::vector<std::int64_t> dims, strides;
  std::int64_t reduce = 1;
  bool copy = true;
};
// Einsum: each operand is gathered (transposes and diagonals in one strided copy) and reduced;
// two operands are then multiplied as [batch..., m, k] x [batch..., k, n] (batch dimensions
// broadcast) and the product is permuted to the output by a last strided copy (out_dims /
// out_strides; out_copy false when it already is the output).
struct EinsumAttrs {
  std::string equation;
  // The equation resolved (implicit output made explicit, "..." written as '0'): its gradient
  // builds the transposed equations from these.
  std::vector<std::string> input_subscripts;
  std::string output_subscripts;
  std::vector<EinsumOperand> operands;
  std::vector<std::int64_t> a_shape, b_shape, product_shape;
  bool transpose_a = false, transpose_b = false;
  std::vector<std::int64_t> out_dims, out_strides;
  bool out_copy = false;
};

// The ResourceApply* ops: the hyperparameters of one optimizer step, already evaluated for this
// step (a learning-rate schedule, Adam's beta powers). TensorFlow passes them as scalar tensors;
// here they are values, so a step launches one kernel per variable and nothing else.
struct OptimizerAttrs {
  double lr = 0;
  double beta1 = 0, beta2 = 0, beta1_power = 0, beta2_power = 0;  // Adam
  double momentum = 0;                                            // SGD, RMSprop
  double rho = 0;                                                 // RMSprop
  double epsilon = 0;
  bool nesterov = false;  // SGD
  std::int64_t step = 0;  // 1-based: Keras 3's Adam takes its beta powers in the variable's dtype
  double u_product = 0;   // Keras 3's Nadam: the product of its momentum schedule up to `step`
};

// Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter: the whole geometry, validated and resolved
// by the front-end (TensorFlow's SAME rule already applied), so kernels derive nothing. Input
// [batch, in_height, in_width, in_channels], filter [filter_height, filter_width, in_channels,
// out_channels], output [batch, out_height, out_width, out_channels]. A grouped convolution
// (groups = in_channels / filter in-channels > 1) has the filter [filter_height, filter_width,
// in_channels / groups, out_channels]: output channels [g * O/G, (g+1) * O/G) see input channels
// [g * C/G, (g+1) * C/G) only (Note [Grouped convolution] in src/ops/conv_ops.cpp).
struct Conv2DAttrs {
  std::int64_t batch, in_height, in_width, in_channels;
  std::int64_t filter_height, filter_width, out_channels;
  std::int64_t out_height, out_width;
  std::int64_t stride_h, stride_w, dilation_h, dilation_w;
  std::int64_t pad_top, pad_bottom, pad_left, pad_right;
  bool same;  // padding "SAME" (else "VALID"): for the gradients, which call the ops again
  std::int64_t groups = 1;
  std::int64_t group_in_channels() const { return in_channels / groups; }  // the filter's depth
  std::int64_t group_out_channels() const { return out_channels / groups; }
};
// _FusedConv2D (Note [Fused convolutions] in src/ops/conv_ops.cpp): Conv2D's geometry, then
// BiasAdd, then Relu when `relu`.
struct FusedConv2DAttrs {
  Conv2DAttrs conv;
  bool relu;
};
// MaxPool, MaxPoolGrad, AvgPool, AvgPoolGrad: input [batch, in_height, in_width, channels],
// output [batch, out_height, out_width, channels].
struct Pool2DAttrs {
  std::int64_t batch, in_height, in_width, channels;
  std::int64_t window_h, window_w, out_height, out_width;
  std::int64_t stride_h, stride_w;
  std::int64_t pad_top, pad_bottom, pad_left, pad_right;
  bool same;
};
// LeakyRelu, LeakyReluGrad.
struct LeakyReluAttrs {
  double alpha;
};
// OneHot: TensorFlow's on_value / off_value inputs as values (converted to the output dtype).
struct OneHotAttrs {
  std::int64_t depth;
  int axis;  // normalized to [0, output rank)
  double on_value;
  double off_value;
};
// FusedBatchNormV3, FusedBatchNormGradV3 (NHWC).
struct FusedBatchNormAttrs {
  double epsilon;
  double exponential_avg_factor;
  bool is_training;
};
// UnsortedSegmentSum: data [ids..., inner...] summed into [num_segments, inner...] by the ids.
// TensorFlow passes num_segments as a scalar tensor; here it is a value (the output shape needs
// it before the kernel runs).
struct SegmentAttrs {
  std::int64_t num_segments;
};
// CheckNumerics: the caller's message, the prefix of the error it raises.
struct CheckNumericsAttrs {
  std::string message;
};

// StringJoin: the separator between the joined elements.
struct StringJoinAttrs {
  std::string separator;
};
// StringLength: unit "BYTE" (false) or "UTF8_CHAR" (true).
struct StringLengthAttrs {
  bool utf8_chars;
};
// AsString: TensorFlow's attributes, checked by the front-end; -1 for "not given".
struct AsStringAttrs {
  int precision;
  bool scientific;
  bool shortest;
  int width;
  std::string fill;  // "" or one of " +-0#"
};
// ReduceJoin: the axes joined (normalized, ascending, distinct), as ReduceAttrs's.
struct ReduceJoinAttrs {
  std::vector<int> axes;
  bool keep_dims;
  std::string separator;
};

// Note [Op attributes]
// ~~~~~~~~~~~~~~~~~~~~
// Every op's attributes are one alternative of this variant, named by the op's row in the op
// table (opdefs/op_defs.hpp). The value is owned (a tape copies it to run the gradient later) and
// typed: a kernel reads it with KernelContext::attrs<T>(), which checks the alternative, and the
// dispatcher checks that a call carries the alternative its op's row names.
// IdentityN: its outputs are its inputs. eagle::custom_gradient records one over (inputs...,
// outputs...) whose gradient is `grad_fn`'s (Note [Custom gradients] in
// autodiff/custom_gradient.cpp): it maps the gradients of the last num_outputs outputs to those of
// the first (num_inputs - num_outputs) inputs. Without grad_fn, IdentityN's gradient is the
// identity.
using CustomGradientFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
struct IdentityNAttrs {
  std::shared_ptr<const CustomGradientFn> grad_fn;
  int num_outputs = 0;  // with grad_fn: how many of the trailing outputs are the function's
};
using OpAttrs = std::variant<
    NoAttrs, ReduceAttrs, AxisAttrs, MatMulAttrs, TransposeAttrs, SliceAttrs, ConstAttrs, FillAttrs,
    RangeAttrs, RandomAttrs, TopKAttrs, TileAttrs, PadAttrs, ReverseAttrs, ScanAttrs, GatherAttrs,
    GatherNdAttrs, StridedSliceAttrs, EinsumAttrs, OptimizerAttrs, Conv2DAttrs, FusedConv2DAttrs,
    Pool2DAttrs, LeakyReluAttrs, OneHotAttrs, FusedBatchNormAttrs, SegmentAttrs, CheckNumericsAttrs,
    IdentityNAttrs, StringJoinAttrs, StringLengthAttrs, AsStringAttrs, ReduceJoinAttrs>;

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

}  // namespace eagle::opdefs
