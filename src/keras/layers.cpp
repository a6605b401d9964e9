// Keras's core layers: InputLayer, Dense, Flatten, Activation, Dropout.
#include "eagle/keras/layers.hpp"

#include <fmt/format.h>

#include "eagle/distribute/strategy.hpp"
#include "eagle/errors.hpp"
#include "eagle/keras/backend.hpp"
#include "eagle/keras/layer_config.hpp"
#include "eagle/ops.hpp"
#include "eagle/ops/nn_activations.hpp"

namespace eagle::keras::layers {

// ---- InputLayer ---------------------------------------------------------------------------------

namespace {
// Keras counts inputs from 1: "input_1", "input_2", ...
std::string input_name(std::string name) {
  if (!name.empty()) return name;
  const std::string unique = backend::unique_object_name("input");
  if (unique == "input") return "input_1";
  const auto n = std::stoi(unique.substr(6));
  return "input_" + std::to_string(n + 1);
}
}  // namespace

InputLayer::InputLayer(TensorShape shape, std::string name)
    : Layer("InputLayer", input_name(std::move(name))), shape_(std::move(shape)) {
  TensorShape with_batch{std::nullopt};
  with_batch.insert(with_batch.end(), shape_.begin(), shape_.end());
  set_input_shape(shape_);
  set_output_shape(with_batch);
  set_built();
}

Tensor InputLayer::call(const Tensor& inputs, bool /*training*/) { return inputs; }

InputLayer Input(TensorShape shape, std::string name) {
  return InputLayer(std::move(shape), std::move(name));
}

// ---- Dense --------------------------------------------------------------------------------------

Dense::Dense(std::int64_t units, activations::Activation activation, DenseOptions options)
    : Layer("Dense", options.name),
      units_(units),
      activation_(std::move(activation)),
      options_(std::move(options)) {
  if (units_ <= 0) {
    throw InvalidArgumentError(
        fmt::format("Received an invalid value for `units`, expected a positive integer. Received: "
                    "units={}",
                    units_));
  }
  if (options_.input_shape) set_input_shape(*options_.input_shape);
  set_input_spec({2, {}});
}

void Dense::build(const TensorShape& input_shape) {
  if (input_shape.empty() || !input_shape.back()) {
    throw InvalidArgumentError(fmt::format(
        "The last dimension of the inputs to a Dense layer should be defined. Found None. Full "
        "input shape received: {}",
        to_string(input_shape)));
  }
  const std::int64_t last = *input_shape.back();
  kernel_ = add_weight("kernel", Shape{last, units_}, options_.kernel_initializer.get(), true,
                       VariableAggregation::kNone, options_.kernel_regularizer.get());
  if (options_.use_bias) {
    bias_ = add_weight("bias", Shape{units_}, options_.bias_initializer.get(), true,
                       VariableAggregation::kNone, options_.bias_regularizer.get());
  }
  set_input_spec({2, {{-1, last}}});
  set_built();
}

Tensor Dense::call(const Tensor& inputs, bool /*training*/) {
  Tensor x = inputs.dtype() == kFloat32 ? inputs : cast(inputs, kFloat32);
  Tensor outputs = x.rank() == 2 ? matmul(x, kernel_)
                                 : tensordot(x, kernel_, std::vector<int>{x.rank() - 1}, {0});
  if (options_.use_bias) outputs = nn::bias_add(outputs, bias_);  // BiasAdd, as Keras
  return activation_(outputs);
}

TensorShape Dense::compute_output_shape(const TensorShape& input_shape) const {
  TensorShape out = input_shape;
  out.back() = units_;
  return out;
}

// ---- Flatten ------------------------------------------------------------------------------------

Flatten::Flatten(LayerOptions options) : Layer("Flatten", std::move(options.name)) {
  if (options.input_shape) set_input_shape(*options.input_shape);
  set_input_spec({1, {}});
}

Tensor Flatten::call(const Tensor& inputs, bool /*training*/) {
  if (inputs.rank() == 1) return expand_dims(inputs, 1);
  return reshape(inputs, {inputs.shape()[0], -1});
}

TensorShape Flatten::compute_output_shape(const TensorShape& input_shape) const {
  if (input_shape.size() == 1) return {input_shape[0], 1};
  std::optional<std::int64_t> n = 1;
  for (std::size_t i = 1; i < input_shape.size(); ++i) {
    n = n && input_shape[i] ? std::optional<std::int64_t>(*n * *input_shape[i]) : std::nullopt;
  }
  return {input_shape[0], n};
}

// ---- Activation ---------------------------------------------------------------------------------

Activation::Activation(activations::Activation activation, LayerOptions options)
    : Layer("Activation", std::move(options.name)), activation_(std::move(activation)) {
  if (options.input_shape) set_input_shape(*options.input_shape);
}

Tensor Activation::call(const Tensor& inputs, bool /*training*/) { return activation_(inputs); }

// ---- Dropout ------------------------------------------------------------------------------------

Dropout::Dropout(double rate, std::optional<std::uint64_t> seed, LayerOptions options)
    : Layer("Dropout", std::move(options.name)), rate_(rate), seed_(seed) {
  if (!(rate >= 0 && rate <= 1)) {
    throw InvalidArgumentError(fmt::format(
        "Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
        "Received: rate={}",
        rate));
  }
  if (options.input_shape) set_input_shape(*options.input_shape);
}

Tensor Dropout::call(const Tensor& inputs, bool training) {
  if (!training || rate_ == 0) return inputs;
  // A seeded layer draws a new mask at each call, the same sequence in every run.
  std::optional<std::uint64_t> seed;
  const distribute::ReplicaContext* replica = distribute::get_replica_context();
  if (replica != nullptr && distribute::has_strategy()) {
    // The replicas call the layer at once: a count per replica, and a seed per replica.
    const int r = replica->replica_id_in_sync_group();
    std::uint64_t call_index = 0;
    {
      std::lock_guard<std::mutex> lock(replica_calls_->mutex);
      call_index = replica_calls_->calls[r]++;
    }
    if (seed_) {
      seed = (*seed_ * 0x9E3779B97F4A7C15ULL + call_index) ^
             (static_cast<std::uint64_t>(r) * 0xBF58476D1CE4E5B9ULL);
    }
    return detail::dropout_op(inputs, rate_, seed);
  }
  if (seed_) seed = *seed_ * 0x9E3779B97F4A7C15ULL + calls_;
  ++calls_;
  return detail::dropout_op(inputs, rate_, seed);
}

// ---- configs (Note [Layer registry]) ---------------------------------------------------------

using eagle::io::Json;

Json Dense::get_config() const {
  return Layer::get_config()
      .set("units", units_)
      .set("activation", serialization::activation_name(*this, activation_))
      .set("use_bias", options_.use_bias)
      .set("kernel_initializer", serialization::initializer("GlorotUniform"))
      .set("bias_initializer", serialization::initializer("Zeros"))
      .set("kernel_regularizer", serialization::regularizer(options_.kernel_regularizer.get()))
      .set("bias_regularizer", serialization::regularizer(options_.bias_regularizer.get()));
}

std::shared_ptr<Layer> Dense::from_config(const LayerConfig& c) {
  DenseOptions o;
  o.name = c.name();
  o.use_bias = c.boolean("use_bias", true);
  o.kernel_regularizer = c.regularizer("kernel_regularizer");
  o.bias_regularizer = c.regularizer("bias_regularizer");
  const std::int64_t units = c.integer("units", -1);
  if (units <= 0) c.invalid(fmt::format("units must be a positive integer, got {}", units));
  return std::make_shared<Dense>(units, c.activation("activation"), o);
}

Json Flatten::get_config() const { return Layer::get_config().set("data_format", "channels_last"); }

std::shared_ptr<Layer> Flatten::from_config(const LayerConfig& c) {
  c.require_channels_last();
  return std::make_shared<Flatten>(LayerOptions{c.name(), std::nullopt});
}

Json Activation::get_config() const {
  return Layer::get_config().set("activation", serialization::activation_name(*this, activation_));
}

std::shared_ptr<Layer> Activation::from_config(const LayerConfig& c) {
  return std::make_shared<Activation>(c.activation("activation"),
                                      LayerOptions{c.name(), std::nullopt});
}

Json Dropout::get_config() const {
  return Layer::get_config()
      .set("rate", rate_)
      .set("seed", seed_ ? Json(static_cast<std::int64_t>(*seed_)) : Json())
      .set("noise_shape", nullptr);
}

std::shared_ptr<Layer> Dropout::from_config(const LayerConfig& c) {
  std::optional<std::uint64_t> seed;
  if (const Json* s = c.find("seed"); s != nullptr && !s->is_null()) {
    seed = static_cast<std::uint64_t>(c.integer("seed", 0));
  }
  return std::make_shared<Dropout>(c.number("rate", 0.5), seed,
                                   LayerOptions{c.name(), std::nullopt});
}

namespace {
const LayerRegistration kDense("Dense", &Dense::from_config);
const LayerRegistration kFlatten("Flatten", &Flatten::from_config);
const LayerRegistration kActivation("Activation", &Activation::from_config);
const LayerRegistration kDropout("Dropout", &Dropout::from_config);
}  // namespace

namespace detail {

Tensor dropout_op(const Tensor& x, double rate, std::optional<std::uint64_t> seed) {
  if (rate >= 1) return zeros_like(x);  // Keras allows rate 1; tf.nn.dropout does not
  return nn::dropout(x, rate, std::nullopt, seed);
}

}  // namespace detail
}  // namespace eagle::keras::layers
