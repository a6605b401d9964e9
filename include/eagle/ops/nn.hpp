// Convolution and pooling (tf.nn.conv2d, tf.nn.max_pool2d, tf.nn.avg_pool2d), NHWC, with the
// backward ops TensorFlow's gradients use. Other neural-network ops of eagle::nn live in
// nn_activations.hpp and nn_losses.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"

namespace eagle::nn {

struct Conv2DOptions {
  std::array<std::int64_t, 2> strides{1, 1};  // rows, columns
  std::string padding = "VALID";              // "VALID" or "SAME", as TensorFlow
  std::array<std::int64_t, 2> dilations{1, 1};
};

// Conv2D: input [batch, height, width, in_channels], filters [filter_height, filter_width,
// in_channels, out_channels] -> [batch, out_height, out_width, out_channels]. "SAME" pads as
// TensorFlow: out = ceil(in / stride), pad_total = max((out - 1) * stride + (k - 1) * dilation
// + 1 - in, 0), pad_before = pad_total / 2 (the extra row or column goes after).
Tensor conv2d(const Tensor& input, const Tensor& filters, const Conv2DOptions& options = {});
// _FusedConv2D: conv2d(input, filters, options) + bias, then relu when `activation` is kRelu, in
// one op: TensorFlow's graph optimizer makes this op of a Conv2D, BiasAdd and Relu, and
// keras::layers::Conv2D calls it for its "linear" and "relu" activations. The same values, bit
// for bit, as the three ops; bias is [out_channels]. Its gradient takes the three ops' gradients
// in fewer passes over memory.
enum class FusedActivation { kNone, kRelu };
Tensor fused_conv2d(const Tensor& input, const Tensor& filters, const Tensor& bias,
                    const Conv2DOptions& options = {},
                    FusedActivation activation = FusedActivation::kNone);
// Conv2DBackpropInput: the gradient of conv2d with respect to its input, of shape input_shape,
// given the filters and the gradient of conv2d's output.
Tensor conv2d_backprop_input(const Shape& input_shape, const Tensor& filters,
                             const Tensor& out_backprop, const Conv2DOptions& options = {});
// Conv2DBackpropFilter: the gradient with respect to the filters, of shape filter_shape.
Tensor conv2d_backprop_filter(const Tensor& input, const Shape& filter_shape,
                              const Tensor& out_backprop, const Conv2DOptions& options = {});

struct Pool2DOptions {
  std::array<std::int64_t, 2> ksize{2, 2};
  std::optional<std::array<std::int64_t, 2>> strides;  // default: ksize, as Keras
  std::string padding = "VALID";                       // "VALID" or "SAME"
};

// MaxPool and AvgPool over [batch, height, width, channels]. AvgPool with "SAME" divides each
// window's sum by the number of its elements inside the input (padding is not counted).
Tensor max_pool2d(const Tensor& input, const Pool2DOptions& options = {});
Tensor avg_pool2d(const Tensor& input, const Pool2DOptions& options = {});
// MaxPoolGrad: `grad` (of max_pool2d's output) routed to the first maximum of each window in
// row-major window order, as TensorFlow; orig_output is max_pool2d(orig_input, options).
Tensor max_pool_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                     const Pool2DOptions& options = {});
// AvgPoolGrad: `grad` spread evenly over each window's elements inside the input.
Tensor avg_pool_grad(const Shape& orig_input_shape, const Tensor& grad,
                     const Pool2DOptions& options = {});

}  // namespace eagle::nn
