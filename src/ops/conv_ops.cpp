// conv2d, max_pool2d, avg_pool2d and their backward ops: validation with TensorFlow's messages
// (conv_ops.cc, conv_grad_shape_utils.cc, pooling_ops_common.cc, kernel_shape_util.cc) and the
// geometry every kernel reads from its attributes.
#include <fmt/format.h>

#include <array>
#include <string>

#include "eagle/ops/nn.hpp"
#include "opdefs/attrs.hpp"
#include "ops/op_support.hpp"

namespace eagle::nn {
namespace {

struct Window {
  std::int64_t out, pad_before, pad_after;
};

// TensorFlow's GetWindowedOutputSizeVerbose: VALID keeps the windows that fit; SAME gives
// ceil(in / stride) windows and pads the rest, the odd row after.
Window windowed_output(opdefs::OpId op, std::int64_t in, std::int64_t k, std::int64_t dilation,
                       std::int64_t stride, bool same) {
  const std::int64_t effective = (k - 1) * dilation + 1;
  Window w{};
  if (same) {
    w.out = (in + stride - 1) / stride;
    const std::int64_t needed = std::max<std::int64_t>(0, (w.out - 1) * stride + effective - in);
    w.pad_before = needed / 2;
    w.pad_after = needed - w.pad_before;
  } else {
    w.out = (in - effective + stride) / stride;
  }
  if (w.out < 0) {
    ops::throw_invalid(op, fmt::format("Computed output size would be negative: {} [input_size: "
                                       "{}, effective_filter_size: {}, stride: {}]",
                                       w.out, in, effective, stride));
  }
  return w;
}

// "SAME" -> true, "VALID" -> false; the allowed lists are TensorFlow's for each op.
bool parse_padding(opdefs::OpId op, const std::string& padding) {
  if (padding == "SAME") return true;
  if (padding == "VALID") return false;
  const bool explicit_allowed = op != opdefs::OpId::kAvgPool && op != opdefs::OpId::kAvgPoolGrad;
  if (padding == "EXPLICIT" && explicit_allowed) {
    // TensorFlow's answer to EXPLICIT without explicit_paddings, which eagle's options lack.
    ops::throw_invalid(op, "explicit_paddings attribute must contain 8 values, but got: 0");
  }
  ops::throw_invalid(
      op, fmt::format("Value for attr 'padding' of \"{}\" is not in the list of allowed values: {}",
                      padding,
                      explicit_allowed ? R"("SAME", "VALID", "EXPLICIT")" : R"("SAME", "VALID")"));
}

opdefs::Conv2DAttrs conv_attrs(opdefs::OpId op, const Shape& input, const Shape& filter,
                               const Conv2DOptions& options) {
  const bool same = parse_padding(op, options.padding);
  if (options.strides[0] <= 0 || options.strides[1] <= 0) {
    ops::throw_invalid(op, "Row and column strides should be larger than 0.");
  }
  if (options.dilations[0] <= 0 || options.dilations[1] <= 0) {
    ops::throw_invalid(op, "Dilated rates should be larger than 0.");
  }
  const bool forward = op == opdefs::OpId::kConv2D || op == opdefs::OpId::k_FusedConv2D;
  const std::string label = forward ? ""
                            : op == opdefs::OpId::kConv2DBackpropInput
                                ? "Conv2DCustomBackpropInput: "
                                : "Conv2DCustomBackpropFilter: ";
  if (input.rank() != 4) {
    ops::throw_invalid(
        op, forward ? fmt::format("convolution input must be 4-dimensional: {}", input.to_string())
                    : label + "input must be 4-dimensional");
  }
  if (filter.rank() != 4) {
    ops::throw_invalid(op, forward ? fmt::format("convolution filter must be 4-dimensional: {}",
                                                 filter.to_string())
                                   : label + "filter must be 4-dimensional");
  }
  const std::int64_t in_depth = input[3], patch_depth = filter[2];
  if (patch_depth <= 0) {
    ops::throw_invalid(
        op, fmt::format("{}filter depth must be stricly positive, got {}", label, patch_depth));
  }
  if (in_depth % patch_depth != 0) {
    ops::throw_invalid(op, fmt::format("{}input depth must be evenly divisible by filter depth: "
                                       "{} vs {}",
                                       label, in_depth, patch_depth));
  }
  // Note [Grouped convolution]
  // ~~~~~~~~~~~~~~~~~~~~~~~~~~~
  // As TensorFlow's Conv2D, an input depth that is a multiple of the filter's makes a grouped
  // convolution: groups = input depth / filter depth, and group g's out_depth / groups filters
  // (HWIO's output channels [g * O/G, (g+1) * O/G)) see input channels [g * C/G, (g+1) * C/G)
  // only. Every kernel and provider takes Conv2DAttrs::groups (the reference loops over the
  // groups, oneDNN and cuDNN take a group count); keras::Conv2D(groups) makes such filters.
  if (in_depth == 0) {
    // Zero groups: TensorFlow's forward gives zeros and its backprops refuse it; eagle refuses
    // all three rather than carry a convolution without groups.
    throw UnimplementedError(
        fmt::format("{}An input of depth 0 with a filter of depth {} (zero "
                    "groups) is not supported [Op:{}]",
                    label, patch_depth, opdefs::op_name(op)));
  }
  const std::int64_t groups = in_depth / patch_depth;
  const std::int64_t out_depth = filter[3];
  if (out_depth % groups != 0) {
    // No label on the backprops: TensorFlow's oneDNN kernels, the CPU ones with grouped
    // backprops, say it so.
    ops::throw_invalid(op, fmt::format("output depth must be evenly divisible by number of "
                                       "groups: {} vs {}",
                                       out_depth, groups));
  }
  const Window rows =
      windowed_output(op, input[1], filter[0], options.dilations[0], options.strides[0], same);
  const Window cols =
      windowed_output(op, input[2], filter[1], options.dilations[1], options.strides[1], same);
  // After the output's shape, as TensorFlow: an empty output needs no filter elements.
  if (filter.num_elements() == 0 && input[0] * rows.out * cols.out * filter[3] != 0) {
    ops::throw_invalid(op, label +
                               "filter must not have zero elements (i.e. all dimensions must "
                               "be non-zero)");
  }
  return opdefs::Conv2DAttrs{input[0],
                             input[1],
                             input[2],
                             input[3],
                             filter[0],
                             filter[1],
                             filter[3],
                             rows.out,
                             cols.out,
                             options.strides[0],
                             options.strides[1],
                             options.dilations[0],
                             options.dilations[1],
                             rows.pad_before,
                             rows.pad_after,
                             cols.pad_before,
                             cols.pad_after,
                             same,
                             groups};
}

Shape conv_output_shape(const opdefs::Conv2DAttrs& a) {
  return Shape{a.batch, a.out_height, a.out_width, a.out_channels};
}

// The backprops' out_backprop must be what Conv2D gives: TensorFlow's
// ConvBackpropComputeDimensions.
void check_out_backprop(opdefs::OpId op, const opdefs::Conv2DAttrs& a, const Shape& out_backprop) {
  const std::string label = op == opdefs::OpId::kConv2DBackpropInput
                                ? "Conv2DCustomBackpropInput: "
                                : "Conv2DCustomBackpropFilter: ";
  if (out_backprop.rank() != 4) {
    ops::throw_invalid(op, label + "out_backprop must be 4-dimensional");
  }
  if (out_backprop[0] != a.batch) {
    ops::throw_invalid(op, fmt::format("{}input and out_backprop must have the same batch size. "
                                       "Got input batch size: {} out_backprop batch size: {}",
                                       label, a.batch, out_backprop[0]));
  }
  if (out_backprop[3] != a.out_channels) {
    ops::throw_invalid(op, label + "filter and out_backprop must have the same out_depth");
  }
  const std::int64_t computed[2] = {a.out_height, a.out_width};
  const std::int64_t input[2] = {a.in_height, a.in_width};
  const std::int64_t filter[2] = {a.filter_height, a.filter_width};
  const std::int64_t stride[2] = {a.stride_h, a.stride_w};
  const std::int64_t dilation[2] = {a.dilation_h, a.dilation_w};
  for (int d = 0; d < 2; ++d) {
    if (out_backprop[1 + d] != computed[d]) {
      ops::throw_invalid(op, fmt::format("{}Size of out_backprop doesn't match computed: actual = "
                                         "{}, computed = {} spatial_dim: {} input: {} filter: {} "
                                         "output: {} stride: {} dilation: {}",
                                         label, out_backprop[1 + d], computed[d], d + 1, input[d],
                                         filter[d], out_backprop[1 + d], stride[d], dilation[d]));
    }
  }
}

opdefs::Pool2DAttrs pool_attrs(opdefs::OpId op, const Shape& input, const Pool2DOptions& options) {
  const bool same = parse_padding(op, options.padding);
  const std::array<std::int64_t, 2> strides = options.strides.value_or(options.ksize);
  const bool max = op == opdefs::OpId::kMaxPool || op == opdefs::OpId::kMaxPoolGrad;
  if (input.rank() != 4) {
    ops::throw_invalid(
        op, fmt::format("tensor_in_shape must have 2 spatial dimensions. {} 0", input.rank()));
  }
  for (const std::int64_t k : options.ksize) {
    if (k > 0) continue;
    ops::throw_invalid(op, max ? fmt::format("Sliding window ksize must be positive. The "
                                             "specified or inferred ksize is: 1,{},{},1",
                                             options.ksize[0], options.ksize[1])
                               : fmt::format("ksize must be a positive int32 value, got:{}", k));
  }
  for (const std::int64_t s : strides) {
    if (s <= 0) ops::throw_invalid(op, fmt::format("Stride must be > 0, but got {}", s));
  }
  const Window rows = windowed_output(op, input[1], options.ksize[0], 1, strides[0], same);
  const Window cols = windowed_output(op, input[2], options.ksize[1], 1, strides[1], same);
  return opdefs::Pool2DAttrs{
      input[0],         input[1],       input[2],        input[3],       options.ksize[0],
      options.ksize[1], rows.out,       cols.out,        strides[0],     strides[1],
      rows.pad_before,  rows.pad_after, cols.pad_before, cols.pad_after, same};
}

Shape pool_output_shape(const opdefs::Pool2DAttrs& a) {
  return Shape{a.batch, a.out_height, a.out_width, a.channels};
}

void check_pool_grad(opdefs::OpId op, const opdefs::Pool2DAttrs& a, const Tensor& grad) {
  const Shape expected = pool_output_shape(a);
  if (grad.shape() != expected) {
    ops::throw_invalid(op, fmt::format("Expected grad shape to be {}, but got {}",
                                       expected.to_string(), grad.shape().to_string()));
  }
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& filters, const Conv2DOptions& options) {
  const Tensor inputs[2] = {input, filters};
  ops::check_same_dtype(opdefs::OpId::kConv2D, inputs, 2);
  const opdefs::Conv2DAttrs attrs =
      conv_attrs(opdefs::OpId::kConv2D, input.shape(), filters.shape(), options);
  return runtime::execute1(opdefs::OpId::kConv2D, input.dtype(), inputs, 2,
                           conv_output_shape(attrs), input.dtype(), opdefs::OpAttrs{attrs});
}

// Note [Fused convolutions]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// A convolution layer's Conv2D, BiasAdd and Relu each read and write the whole activation: on
// the seed CNN's first layer at batch 128 that is 11 MB three times, and the BiasAdd and Relu
// passes were 7% of the CPU training step. TensorFlow's graph optimizer (grappler's remapper)
// fuses them into _FusedConv2D; an eager library has no graph to rewrite, so the Keras layer asks
// for the fused op itself (keras::layers::Conv2D with use_bias and a "linear" or "relu"
// activation). Its kernels convolve as Conv2D's do and add the bias and clamp while the output is
// still in cache: per output row in the narrow kernels, per batch block after oneDNN (Note
// [Batch blocks]), in one pass after cuDNN. Each element is rounded as the unfused ops round it,
// so the values are theirs bit for bit on every backend (fused_conv_test checks it, and op_info
// compares every backend with the CPU). The gradient needs only the output: dz = ReluGrad(dy, y)
// (dy without Relu), then BiasAddGrad(dz) and the convolution's two backprops of dz, as
// TensorFlow's gradients of the three ops compute them.
Tensor fused_conv2d(const Tensor& input, const Tensor& filters, const Tensor& bias,
                    const Conv2DOptions& options, FusedActivation activation) {
  constexpr opdefs::OpId op = opdefs::OpId::k_FusedConv2D;
  const Tensor inputs[3] = {input, filters, bias};
  ops::check_same_dtype(op, inputs, 3);
  const opdefs::Conv2DAttrs conv = conv_attrs(op, input.shape(), filters.shape(), options);
  if (bias.rank() != 1) ops::throw_invalid(op, "Biases must be 1D: " + bias.shape().to_string());
  if (bias.shape()[0] != conv.out_channels) {
    ops::throw_invalid(op,
                       fmt::format("Must provide as many biases as the last dimension of the "
                                   "input tensor: {} vs. {}",
                                   bias.shape().to_string(), conv_output_shape(conv).to_string()));
  }
  const opdefs::FusedConv2DAttrs attrs{conv, activation == FusedActivation::kRelu};
  return runtime::execute1(op, input.dtype(), inputs, 3, conv_output_shape(conv), input.dtype(),
                           opdefs::OpAttrs{attrs});
}

Tensor conv2d_backprop_input(const Shape& input_shape, const Tensor& filters,
                             const Tensor& out_backprop, const Conv2DOptions& options) {
  const Tensor inputs[2] = {filters, out_backprop};
  ops::check_same_dtype(opdefs::OpId::kConv2DBackpropInput, inputs, 2);
  const opdefs::Conv2DAttrs attrs =
      conv_attrs(opdefs::OpId::kConv2DBackpropInput, input_shape, filters.shape(), options);
  check_out_backprop(opdefs::OpId::kConv2DBackpropInput, attrs, out_backprop.shape());
  return runtime::execute1(opdefs::OpId::kConv2DBackpropInput, filters.dtype(), inputs, 2,
                           input_shape, filters.dtype(), opdefs::OpAttrs{attrs});
}

Tensor conv2d_backprop_filter(const Tensor& input, const Shape& filter_shape,
                              const Tensor& out_backprop, const Conv2DOptions& options) {
  const Tensor inputs[2] = {input, out_backprop};
  ops::check_same_dtype(opdefs::OpId::kConv2DBackpropFilter, inputs, 2);
  const opdefs::Conv2DAttrs attrs =
      conv_attrs(opdefs::OpId::kConv2DBackpropFilter, input.shape(), filter_shape, options);
  check_out_backprop(opdefs::OpId::kConv2DBackpropFilter, attrs, out_backprop.shape());
  return runtime::execute1(opdefs::OpId::kConv2DBackpropFilter, input.dtype(), inputs, 2,
                           filter_shape, input.dtype(), opdefs::OpAttrs{attrs});
}

Tensor max_pool2d(const Tensor& input, const Pool2DOptions& options) {
  ops::check_defined(input, opdefs::OpId::kMaxPool);
  const opdefs::Pool2DAttrs attrs = pool_attrs(opdefs::OpId::kMaxPool, input.shape(), options);
  return ops::run_unary(opdefs::OpId::kMaxPool, input, pool_output_shape(attrs), input.dtype(),
                        opdefs::OpAttrs{attrs});
}

Tensor avg_pool2d(const Tensor& input, const Pool2DOptions& options) {
  ops::check_defined(input, opdefs::OpId::kAvgPool);
  const opdefs::Pool2DAttrs attrs = pool_attrs(opdefs::OpId::kAvgPool, input.shape(), options);
  return ops::run_unary(opdefs::OpId::kAvgPool, input, pool_output_shape(attrs), input.dtype(),
                        opdefs::OpAttrs{attrs});
}

Tensor max_pool_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                     const Pool2DOptions& options) {
  const Tensor inputs[3] = {orig_input, orig_output, grad};
  ops::check_same_dtype(opdefs::OpId::kMaxPoolGrad, inputs, 3);
  const opdefs::Pool2DAttrs attrs =
      pool_attrs(opdefs::OpId::kMaxPoolGrad, orig_input.shape(), options);
  const Shape expected = pool_output_shape(attrs);
  if (orig_output.shape() != expected) {
    ops::throw_invalid(opdefs::OpId::kMaxPoolGrad,
                       fmt::format("Expected orig_output shape to be {}, but got {}",
                                   expected.to_string(), orig_output.shape().to_string()));
  }
  check_pool_grad(opdefs::OpId::kMaxPoolGrad, attrs, grad);
  return runtime::execute1(opdefs::OpId::kMaxPoolGrad, orig_input.dtype(), inputs, 3,
                           orig_input.shape(), orig_input.dtype(), opdefs::OpAttrs{attrs});
}

Tensor avg_pool_grad(const Shape& orig_input_shape, const Tensor& grad,
                     const Pool2DOptions& options) {
  ops::check_defined(grad, opdefs::OpId::kAvgPoolGrad);
  const opdefs::Pool2DAttrs attrs =
      pool_attrs(opdefs::OpId::kAvgPoolGrad, orig_input_shape, options);
  check_pool_grad(opdefs::OpId::kAvgPoolGrad, attrs, grad);
  return ops::run_unary(opdefs::OpId::kAvgPoolGrad, grad, orig_input_shape, grad.dtype(),
                        opdefs::OpAttrs{attrs});
}

}  // namespace eagle::nn
