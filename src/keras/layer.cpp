// The Layer base: automatic names, build on first call, Keras's input checks and weight lists.
#include "eagle/keras/layer.hpp"

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/keras/backend.hpp"
#include "eagle/keras/layer_config.hpp"
#include "eagle/ops.hpp"

namespace eagle::keras {

std::string to_string(const TensorShape& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += shape[i] ? std::to_string(*shape[i]) : "None";
  }
  if (shape.size() == 1) out += ",";
  return out + ")";
}

TensorShape shape_of(const Tensor& x) {
  TensorShape shape;
  for (std::int64_t d : x.shape()) shape.emplace_back(d);
  return shape;
}

initializers::Initializer InitializerArg::get() const {
  return fn_ ? fn_ : initializers::get(name_);
}

Layer::Layer(const std::string& class_name, std::string name)
    : name_(name.empty() ? backend::unique_object_name(backend::to_snake_case(class_name))
                         : std::move(name)) {}

void Layer::build(const TensorShape& /*input_shape*/) { set_built(); }

void Layer::set_built() {
  built_ = true;
  if (!pending_weights_.empty() && weights().size() == pending_weights_.size()) {
    std::vector<Tensor> values = std::move(pending_weights_);
    std::function<void(const std::vector<Variable>&)> then = std::move(pending_then_);
    pending_weights_.clear();
    pending_then_ = nullptr;
    set_weights(values);
    if (then) then(weights());
  }
}

void Layer::restore_when_built(std::vector<Tensor> values,
                               std::function<void(const std::vector<Variable>&)> then) {
  if (built_ && weights().size() == values.size()) {
    set_weights(values);
    if (then) then(weights());
    return;
  }
  pending_weights_ = std::move(values);
  pending_then_ = std::move(then);
}

eagle::io::Json Layer::get_config() const {
  return eagle::io::Json::object()
      .set("name", name_)
      .set("trainable", trainable_)
      .set("dtype", serialization::float32_policy());
}

TensorShape Layer::compute_output_shape(const TensorShape& input_shape) const {
  return input_shape;
}

void Layer::check_input(const Tensor& inputs) const {
  if (!input_spec_) return;
  const int ndim = inputs.rank();
  if (input_spec_->min_ndim && ndim < *input_spec_->min_ndim) {
    throw InvalidArgumentError(fmt::format(
        "Input 0 of layer \"{}\" is incompatible with the layer: expected min_ndim={}, found "
        "ndim={}. Full shape received: {}",
        name_, *input_spec_->min_ndim, ndim, inputs.shape().to_tuple_string()));
  }
  for (const auto& [axis, value] : input_spec_->axes) {
    const int a = axis < 0 ? axis + ndim : axis;
    if (a < 0 || a >= ndim || inputs.shape()[a] != value) {
      throw InvalidArgumentError(fmt::format(
          "Input 0 of layer \"{}\" is incompatible with the layer: expected axis {} of input "
          "shape to have value {}, but received input with shape {}",
          name_, axis, value, inputs.shape().to_tuple_string()));
    }
  }
}

Tensor Layer::operator()(const Tensor& inputs, bool training) {
  if (!inputs.defined()) throw InvalidArgumentError("Use of an undefined eagle::Tensor");
  check_input(inputs);
  if (!built_) {
    TensorShape shape = shape_of(inputs);
    if (!shape.empty()) shape[0] = std::nullopt;  // Keras builds with the batch unknown
    build(shape);
    set_built();
    check_input(inputs);  // build() fixes sizes (Dense: the last axis)
  }
  return call(inputs, training);
}

Variable Layer::add_weight(const std::string& name, const Shape& shape,
                           const initializers::Initializer& initializer, bool trainable,
                           VariableAggregation aggregation,
                           std::shared_ptr<const regularizers::Regularizer> regularizer) {
  Variable v(initializer(shape, kFloat32),
             {name_ + "/" + name, trainable, VariableSynchronization::kAuto, aggregation});
  weights_.push_back(v);
  weight_trainable_.push_back(trainable);
  weight_regularizers_.push_back(std::move(regularizer));
  return v;
}

std::vector<Tensor> Layer::losses() const {
  std::vector<Tensor> out;
  if (!trainable_) return out;
  for (std::size_t i = 0; i < weights_.size(); ++i) {
    if (weight_trainable_[i] && weight_regularizers_[i]) {
      out.push_back((*weight_regularizers_[i])(weights_[i].read_value()));
    }
  }
  for (const auto& layer : tracked_layers()) {
    for (const Tensor& loss : layer->losses()) out.push_back(loss);
  }
  return out;
}

namespace {

// The layer's own weights whose trainable flag is `trainable`, in the order they were made.
void append_own(const std::vector<Variable>& weights, const std::vector<bool>& trainable_flags,
                bool trainable, std::vector<Variable>& out) {
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (trainable_flags[i] == trainable) out.push_back(weights[i]);
  }
}

}  // namespace

std::vector<Variable> Layer::weights() const {
  std::vector<Variable> out;
  append_own(weights_, weight_trainable_, true, out);
  append_own(weights_, weight_trainable_, false, out);
  for (const auto& layer : tracked_layers()) {
    for (const Variable& v : layer->weights()) out.push_back(v);
  }
  return out;
}

std::vector<Variable> Layer::trainable_variables() const {
  std::vector<Variable> out;
  if (!trainable_) return out;
  append_own(weights_, weight_trainable_, true, out);
  for (const auto& layer : tracked_layers()) {
    for (const Variable& v : layer->trainable_variables()) out.push_back(v);
  }
  return out;
}

std::vector<Variable> Layer::non_trainable_variables() const {
  if (!trainable_) return weights();
  std::vector<Variable> out;
  append_own(weights_, weight_trainable_, false, out);
  for (const auto& layer : tracked_layers()) {
    for (const Variable& v : layer->non_trainable_variables()) out.push_back(v);
  }
  return out;
}

std::int64_t Layer::count_params() const {
  if (!built_) {
    throw InvalidArgumentError(fmt::format(
        "You tried to call `count_params` on layer {}, but the layer isn't built. You can build "
        "it manually via: `{}.build(batch_input_shape)`.",
        name_, name_));
  }
  std::int64_t n = 0;
  for (const Variable& v : weights()) n += v.shape().num_elements();
  return n;
}

std::vector<Tensor> Layer::get_weights() const {
  std::vector<Tensor> out;
  for (const Variable& v : weights()) out.push_back(v.read_value());
  return out;
}

void Layer::set_weights(const std::vector<Tensor>& values) {
  const std::vector<Variable> params = weights();
  if (params.size() != values.size()) {
    throw InvalidArgumentError(fmt::format(
        "You called `set_weights(weights)` on layer \"{}\" with a weight list of length {}, but "
        "the layer was expecting {} weights.",
        name_, values.size(), params.size()));
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!values[i].defined()) throw InvalidArgumentError("Use of an undefined eagle::Tensor");
    if (values[i].shape() != params[i].shape()) {
      throw InvalidArgumentError(fmt::format(
          "Layer {} weight shape {} is not compatible with provided weight shape {}.", name_,
          params[i].shape().to_tuple_string(), values[i].shape().to_tuple_string()));
    }
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    params[i].assign(values[i].dtype() == params[i].dtype() ? values[i]
                                                            : cast(values[i], params[i].dtype()));
  }
}

}  // namespace eagle::keras
