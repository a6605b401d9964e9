// Conv2D, MaxPooling2D, AveragePooling2D (Keras 2, channels_last).
#include "eagle/keras/conv_layers.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
#include "eagle/ops/nn.hpp"
#include "eagle/ops/nn_activations.hpp"

namespace eagle::keras::layers {
namespace {

// Keras's conv_utils.normalize_padding: "valid" or "same", any case; true for "same".
bool is_same_padding(const std::string& padding) {
  std::string p = padding;
  std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return std::tolower(c); });
  if (p != "valid" && p != "same") {
    throw InvalidArgumentError(
        fmt::format("The `padding` argument must be a list/tuple or one of \"valid\", \"same\" (or "
                    "\"causal\", only for `Conv1D). Received: {}",
                    padding));
  }
  return p == "same";
}

void check_positive(const Size2& s, const char* what) {
  if (s.rows <= 0 || s.cols <= 0) {
    throw InvalidArgumentError(
        fmt::format("The `{}` argument must be a tuple of 2 integers, all strictly positive. "
                    "Received: ({}, {})",
                    what, s.rows, s.cols));
  }
}

// Keras's conv_output_length: the output size along one axis, unknown for an unknown input.
std::optional<std::int64_t> output_length(std::optional<std::int64_t> in, std::int64_t window,
                                          std::int64_t stride, std::int64_t dilation, bool same) {
  if (!in) return std::nullopt;
  if (same) return (*in + stride - 1) / stride;
  const std::int64_t dilated = (window - 1) * dilation + 1;
  return (*in - dilated + stride) / stride;
}

TensorShape output_shape_2d(const TensorShape& in, const Size2& window, const Size2& strides,
                            const Size2& dilation, bool same,
                            std::optional<std::int64_t> channels) {
  TensorShape out = in;
  out[1] = output_length(in[1], window.rows, strides.rows, dilation.rows, same);
  out[2] = output_length(in[2], window.cols, strides.cols, dilation.cols, same);
  out[3] = channels;
  return out;
}

std::string pad_name(bool same) { return same ? "SAME" : "VALID"; }

}  // namespace

// ---- Conv2D -------------------------------------------------------------------------------------

Conv2D::Conv2D(std::int64_t filters, Size2 kernel_size, activations::Activation activation,
               Conv2DOptions options)
    : Layer("Conv2D", options.name),
      filters_(filters),
      kernel_size_(kernel_size),
      activation_(std::move(activation)),
      options_(std::move(options)),
      same_(is_same_padding(options_.padding)) {
  if (filters_ <= 0) {
    throw InvalidArgumentError(fmt::format(
        "Invalid value for argument `filters`. Expected a strictly positive value. Received "
        "filters={}.",
        filters_));
  }
  if (options_.groups <= 0) {
    throw InvalidArgumentError(fmt::format(
        "The number of groups must be a positive integer. Received: groups={}.", options_.groups));
  }
  if (filters_ % options_.groups != 0) {
    throw InvalidArgumentError(
        fmt::format("The number of filters must be evenly divisible by the number of groups. "
                    "Received: groups={}, filters={}.",
                    options_.groups, filters_));
  }
  check_positive(kernel_size_, "kernel_size");
  check_positive(options_.strides, "strides");
  check_positive(options_.dilation_rate, "dilation_rate");
  if (options_.input_shape) set_input_shape(*options_.input_shape);
  set_input_spec({4, {}});
}

void Conv2D::build(const TensorShape& input_shape) {
  if (input_shape.size() != 4 || !input_shape[3]) {
    throw InvalidArgumentError(fmt::format(
        "The channel dimension of the inputs should be defined. The input_shape received is {}, "
        "where axis -1 (0-based) is the channel dimension, which found to be `None`.",
        to_string(input_shape)));
  }
  const TensorShape out = compute_output_shape(input_shape);
  if ((out[1] && *out[1] <= 0) || (out[2] && *out[2] <= 0)) {
    throw InvalidArgumentError(fmt::format(
        "One of the dimensions in the output is <= 0 due to downsampling in {}. Consider "
        "increasing the input size. Received input shape {} which would produce output shape "
        "with a zero or negative value in a dimension.",
        name(), to_string(input_shape)));
  }
  const std::int64_t channels = *input_shape[3];
  if (channels % options_.groups != 0) {
    throw InvalidArgumentError(fmt::format(
        "The number of input channels must be evenly divisible by the number of groups. Received "
        "groups={}, but the input has {} channels (full input shape is {}).",
        options_.groups, channels, to_string(input_shape)));
  }
  kernel_ = add_weight(
      "kernel", Shape{kernel_size_.rows, kernel_size_.cols, channels / options_.groups, filters_},
      options_.kernel_initializer.get());
  if (options_.use_bias) {
    bias_ = add_weight("bias", Shape{filters_}, options_.bias_initializer.get());
  }
  set_input_spec({4, {{-1, channels}}});
  set_built();
}

Tensor Conv2D::call(const Tensor& inputs, bool /*training*/) {
  const Tensor x = inputs.dtype() == kFloat32 ? inputs : cast(inputs, kFloat32);
  const nn::Conv2DOptions conv{{options_.strides.rows, options_.strides.cols},
                               pad_name(same_),
                               {options_.dilation_rate.rows, options_.dilation_rate.cols}};
  // With a bias and no activation or Relu, one _FusedConv2D (Note [Fused convolutions]).
  if (options_.use_bias && (activation_.is_linear() || activation_.is(activations::relu))) {
    return nn::fused_conv2d(
        x, kernel_, bias_, conv,
        activation_.is_linear() ? nn::FusedActivation::kNone : nn::FusedActivation::kRelu);
  }
  Tensor y = nn::conv2d(x, kernel_, conv);
  if (options_.use_bias) y = nn::bias_add(y, bias_);
  return activation_(y);
}

TensorShape Conv2D::compute_output_shape(const TensorShape& input_shape) const {
  return output_shape_2d(input_shape, kernel_size_, options_.strides, options_.dilation_rate, same_,
                         filters_);
}

// ---- Pooling ------------------------------------------------------------------------------------

namespace {

// Keras's Pooling2D base: the arguments checked once for both layers.
void check_pooling(const Size2& pool_size, const Size2& strides) {
  check_positive(pool_size, "pool_size");
  check_positive(strides, "strides");
}

nn::Pool2DOptions pool_options(const Size2& pool_size, const Size2& strides, bool same) {
  return {{pool_size.rows, pool_size.cols},
          std::array<std::int64_t, 2>{strides.rows, strides.cols},
          pad_name(same)};
}

}  // namespace

Pooling2D::Pooling2D(const std::string& class_name, Size2 pool_size, Pooling2DOptions options)
    : Layer(class_name, options.name),
      pool_size_(pool_size),
      strides_(options.strides.value_or(pool_size)),
      same_(is_same_padding(options.padding)) {
  check_pooling(pool_size_, strides_);
  if (options.input_shape) set_input_shape(*options.input_shape);
  set_input_spec({4, {}});
}

Tensor Pooling2D::call(const Tensor& inputs, bool /*training*/) {
  return pool(inputs, pool_options(pool_size_, strides_, same_));
}

TensorShape Pooling2D::compute_output_shape(const TensorShape& input_shape) const {
  return output_shape_2d(input_shape, pool_size_, strides_, 1, same_, input_shape[3]);
}

MaxPooling2D::MaxPooling2D(Size2 pool_size, Pooling2DOptions options)
    : Pooling2D("MaxPooling2D", pool_size, std::move(options)) {}

Tensor MaxPooling2D::pool(const Tensor& inputs, const nn::Pool2DOptions& options) const {
  return nn::max_pool2d(inputs, options);
}

AveragePooling2D::AveragePooling2D(Size2 pool_size, Pooling2DOptions options)
    : Pooling2D("AveragePooling2D", pool_size, std::move(options)) {}

Tensor AveragePooling2D::pool(const Tensor& inputs, const nn::Pool2DOptions& options) const {
  return nn::avg_pool2d(inputs, options);
}

}  // namespace eagle::keras::layers
