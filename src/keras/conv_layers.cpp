// Conv2D, MaxPooling2D, AveragePooling2D (Keras 2, channels_last).
#include "eagle/keras/conv_layers.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/keras/layer_config.hpp"
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
      options_.kernel_initializer.get(), true, VariableAggregation::kNone,
      options_.kernel_regularizer.get());
  if (options_.use_bias) {
    bias_ = add_weight("bias", Shape{filters_}, options_.bias_initializer.get(), true,
                       VariableAggregation::kNone, options_.bias_regularizer.get());
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

// ---- configs (Note [Layer registry]) ---------------------------------------------------------

using eagle::io::Json;

Json Conv2D::get_config() const {
  return Layer::get_config()
      .set("filters", filters_)
      .set("kernel_size", serialization::size2(kernel_size_))
      .set("strides", serialization::size2(options_.strides))
      .set("padding", same_ ? "same" : "valid")
      .set("data_format", "channels_last")
      .set("dilation_rate", serialization::size2(options_.dilation_rate))
      .set("groups", options_.groups)
      .set("activation", serialization::activation_name(*this, activation_))
      .set("use_bias", options_.use_bias)
      .set("kernel_initializer", serialization::initializer("GlorotUniform"))
      .set("bias_initializer", serialization::initializer("Zeros"))
      .set("kernel_regularizer", serialization::regularizer(options_.kernel_regularizer.get()))
      .set("bias_regularizer", serialization::regularizer(options_.bias_regularizer.get()));
}

std::shared_ptr<Layer> Conv2D::from_config(const LayerConfig& c) {
  c.require_channels_last();
  Conv2DOptions o;
  o.name = c.name();
  o.kernel_regularizer = c.regularizer("kernel_regularizer");
  o.bias_regularizer = c.regularizer("bias_regularizer");
  o.strides = c.size2("strides", 1);
  o.padding = c.string("padding", "valid");
  o.dilation_rate = c.size2("dilation_rate", 1);
  o.use_bias = c.boolean("use_bias", true);
  o.groups = c.integer("groups", 1);
  const std::int64_t filters = c.integer("filters", -1);
  if (filters <= 0) c.invalid(fmt::format("filters must be a positive integer, got {}", filters));
  return std::make_shared<Conv2D>(filters, c.size2("kernel_size", 0), c.activation("activation"),
                                  o);
}

Json Pooling2D::get_config() const {
  return Layer::get_config()
      .set("pool_size", serialization::size2(pool_size_))
      .set("padding", same_ ? "same" : "valid")
      .set("strides", serialization::size2(strides_))
      .set("data_format", "channels_last");
}

namespace {

// What both pooling layers read: pool_size, strides (pool_size when null) and padding.
template <class Pooling>
std::shared_ptr<Layer> pooling_from_config(const LayerConfig& c) {
  c.require_channels_last();
  Pooling2DOptions o;
  o.name = c.name();
  o.padding = c.string("padding", "valid");
  if (const Json* strides = c.find("strides"); strides != nullptr && !strides->is_null()) {
    o.strides = c.size2("strides", 1);
  }
  return std::make_shared<Pooling>(c.size2("pool_size", 2), o);
}

}  // namespace

std::shared_ptr<Layer> MaxPooling2D::from_config(const LayerConfig& c) {
  return pooling_from_config<MaxPooling2D>(c);
}

std::shared_ptr<Layer> AveragePooling2D::from_config(const LayerConfig& c) {
  return pooling_from_config<AveragePooling2D>(c);
}

namespace {
const LayerRegistration kConv2D("Conv2D", &Conv2D::from_config);
const LayerRegistration kMaxPooling2D("MaxPooling2D", &MaxPooling2D::from_config);
const LayerRegistration kAveragePooling2D("AveragePooling2D", &AveragePooling2D::from_config);
}  // namespace

}  // namespace eagle::keras::layers
