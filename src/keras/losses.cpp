// Keras's losses. The crossentropies of probabilities use a softmax's or sigmoid's logits when
// the probabilities came from one (Keras's _keras_logits), else clip them by 1e-7.
#include "eagle/keras/losses.hpp"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "eagle/distribute/strategy.hpp"
#include "eagle/errors.hpp"
#include "eagle/keras/activations.hpp"
#include "eagle/ops.hpp"
#include "eagle/ops/nn_losses.hpp"

namespace eagle::keras::losses {
namespace {

constexpr double kEpsilon = 1e-7;  // Keras's backend.epsilon()

using activations::detail::LogitsOf;

Tensor as_float(const Tensor& x, DType dtype) { return x.dtype() == dtype ? x : cast(x, dtype); }

// Keras's squeeze_or_expand_dimensions: a trailing axis of size 1 on one side only is dropped.
std::pair<Tensor, Tensor> match_ranks(Tensor y_true, Tensor y_pred) {
  if (y_pred.rank() == y_true.rank() + 1 && y_pred.shape()[y_pred.rank() - 1] == 1) {
    y_pred = squeeze(y_pred, {-1});
  } else if (y_true.rank() == y_pred.rank() + 1 && y_true.shape()[y_true.rank() - 1] == 1) {
    y_true = squeeze(y_true, {-1});
  }
  return {y_true, y_pred};
}

Tensor clip_probabilities(const Tensor& p) {
  return clip_by_value(p, scalar_like(p, kEpsilon), scalar_like(p, 1.0 - kEpsilon));
}

}  // namespace

namespace detail {

// The fused ops Keras calls for logits (tf.nn.sparse_softmax_cross_entropy_with_logits and
// tf.nn.softmax_cross_entropy_with_logits): one kernel for the loss and its backprop,
// logsumexp-stable, with TensorFlow's label check on the CPU.
Tensor sparse_softmax_xent(const Tensor& labels, const Tensor& logits) {
  const bool integral = labels.dtype() == kInt32 || labels.dtype() == kInt64;
  return nn::sparse_softmax_cross_entropy_with_logits(integral ? labels : cast(labels, kInt64),
                                                      logits);
}

Tensor softmax_xent(const Tensor& labels, const Tensor& logits) {
  return nn::softmax_cross_entropy_with_logits(labels, logits);
}

}  // namespace detail

Loss::Loss(std::string reduction) : reduction_(std::move(reduction)) {
  static const char* const kAllowed[] = {kSumOverBatchSize, "sum", "none", "mean",
                                         "mean_with_sample_weight"};
  for (const char* allowed : kAllowed) {
    if (reduction_ == allowed) return;
  }
  throw InvalidArgumentError(fmt::format(
      "Invalid value for argument `reduction`. Expected one of {{'sum_over_batch_size', 'sum', "
      "None, 'none', 'mean', 'mean_with_sample_weight'}}. Received: reduction={}",
      reduction_));
}

namespace {

void check_defined(const Tensor& y_true, const Tensor& y_pred) {
  if (!y_true.defined() || !y_pred.defined()) {
    throw InvalidArgumentError("Use of an undefined eagle::Tensor");
  }
}

// Keras's squeeze_or_expand_to_same_rank (expand_rank_1): a trailing axis of size 1 on the side
// with one more axis is dropped, or a rank-1 other side gains one.
std::pair<Tensor, Tensor> to_same_rank(Tensor a, Tensor b) {
  if (a.rank() == b.rank() + 1 && a.shape()[a.rank() - 1] == 1) {
    if (b.rank() == 1) {
      b = expand_dims(b, -1);
    } else {
      a = squeeze(a, {-1});
    }
  } else if (b.rank() == a.rank() + 1 && b.shape()[b.rank() - 1] == 1) {
    if (a.rank() == 1) {
      a = expand_dims(a, -1);
    } else {
      b = squeeze(b, {-1});
    }
  }
  return {a, b};
}

}  // namespace

Tensor reduce_weighted_values(const Tensor& values_in, const Tensor* sample_weight,
                              const std::string& reduction) {
  Tensor values = values_in;
  if (sample_weight != nullptr) {
    auto [v, w] = to_same_rank(values, cast(*sample_weight, values.dtype()));
    values = v * w;
  }
  // Keras's reduce_values: "none", a scalar and an empty vector are returned as they are.
  if (reduction == "none" || values.rank() == 0 || (values.rank() == 1 && values.shape()[0] == 0)) {
    return values;
  }
  Tensor loss = reduce_sum(values);
  if (reduction == "sum") return loss;
  Tensor divisor;
  if (reduction == "mean_with_sample_weight" && sample_weight != nullptr) {
    divisor = cast(reduce_sum(*sample_weight), loss.dtype());
  } else {
    divisor = scalar_like(loss, static_cast<double>(values.num_elements()));
  }
  // divide_no_nan: 0 where the divisor is 0.
  const Tensor zero = zeros_like(loss);
  loss = where(equal(divisor, zero), zero,
               loss / where(equal(divisor, zero), ones_like(loss), divisor));
  // Keras's scale_loss_for_distribution: a replica's share of the global mean.
  const int replicas = distribute::get_strategy().num_replicas_in_sync();
  if (replicas > 1) loss = loss * scalar_like(loss, 1.0 / replicas);
  return loss;
}

Tensor Loss::operator()(const Tensor& y_true, const Tensor& y_pred) const {
  check_defined(y_true, y_pred);
  return reduce_weighted_values(call(y_true, y_pred), nullptr, reduction_);
}

Tensor Loss::operator()(const Tensor& y_true, const Tensor& y_pred,
                        const Tensor& sample_weight) const {
  check_defined(y_true, y_pred);
  if (!sample_weight.defined()) throw InvalidArgumentError("Use of an undefined eagle::Tensor");
  return reduce_weighted_values(call(y_true, y_pred), &sample_weight, reduction_);
}

Tensor SparseCategoricalCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor labels = y_true;
  if (labels.rank() == y_pred.rank() && labels.rank() > 0 &&
      labels.shape()[labels.rank() - 1] == 1) {
    labels = squeeze(labels, {-1});
  }
  if (labels.rank() != y_pred.rank() - 1 ||
      !std::equal(labels.shape().begin(), labels.shape().end(), y_pred.shape().begin())) {
    throw InvalidArgumentError(fmt::format(
        "`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
        "labels.shape={} and logits.shape={}",
        y_true.shape().to_string(), y_pred.shape().to_string()));
  }
  if (from_logits_) return detail::sparse_softmax_xent(labels, y_pred);
  if (auto logits = activations::detail::logits_of(y_pred, LogitsOf::kSoftmax)) {
    return detail::sparse_softmax_xent(labels, *logits);
  }
  return detail::sparse_softmax_xent(labels, log(clip_probabilities(y_pred)));
}

Tensor CategoricalCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  const Tensor labels = as_float(y_true, y_pred.dtype());
  if (labels.shape() != y_pred.shape()) {
    throw InvalidArgumentError(
        fmt::format("Arguments `target` and `output` must have the same shape. Received: "
                    "target.shape={}, output.shape={}",
                    labels.shape().to_tuple_string(), y_pred.shape().to_tuple_string()));
  }
  if (from_logits_) return detail::softmax_xent(labels, y_pred);
  if (auto logits = activations::detail::logits_of(y_pred, LogitsOf::kSoftmax)) {
    return detail::softmax_xent(labels, *logits);
  }
  const Tensor normalized = y_pred / reduce_sum(y_pred, -1, true);
  return -reduce_sum(labels * log(clip_probabilities(normalized)), -1);
}

Tensor BinaryCrossentropy::call(const Tensor& y_true, const Tensor& y_pred_in) const {
  auto [y_true_m, y_pred] = match_ranks(y_true, y_pred_in);
  const Tensor labels = as_float(y_true_m, y_pred.dtype());
  std::optional<Tensor> logits;
  if (from_logits_) {
    logits = y_pred;
  } else {
    logits = activations::detail::logits_of(y_pred_in, LogitsOf::kSigmoid);
    // A sigmoid output squeezed above: its logits squeezed the same way.
    if (logits && logits->rank() != y_pred.rank()) logits = squeeze(*logits, {-1});
  }
  Tensor per_element;
  if (logits) {
    // TensorFlow's sigmoid_cross_entropy_with_logits: max(x, 0) - x z + log1p(exp(-|x|)).
    const Tensor& x = *logits;
    per_element = relu(x) - x * labels + log1p(exp(-abs(x)));
  } else {
    const Tensor p = clip_probabilities(y_pred);
    per_element = -(labels * log(p + kEpsilon) + (1.0 - labels) * log(1.0 - p + kEpsilon));
  }
  return reduce_mean(per_element, -1);
}

Tensor MeanSquaredError::call(const Tensor& y_true, const Tensor& y_pred_in) const {
  auto [t, y_pred] = match_ranks(y_true, y_pred_in);
  return reduce_mean(squared_difference(y_pred, as_float(t, y_pred.dtype())), -1);
}

Tensor MeanAbsoluteError::call(const Tensor& y_true, const Tensor& y_pred_in) const {
  auto [t, y_pred] = match_ranks(y_true, y_pred_in);
  return reduce_mean(abs(y_pred - as_float(t, y_pred.dtype())), -1);
}

std::shared_ptr<Loss> get(const std::string& name) {
  if (name == "sparse_categorical_crossentropy" || name == "SparseCategoricalCrossentropy") {
    return std::make_shared<SparseCategoricalCrossentropy>();
  }
  if (name == "categorical_crossentropy" || name == "CategoricalCrossentropy") {
    return std::make_shared<CategoricalCrossentropy>();
  }
  if (name == "binary_crossentropy" || name == "BinaryCrossentropy") {
    return std::make_shared<BinaryCrossentropy>();
  }
  if (name == "mse" || name == "MSE" || name == "mean_squared_error" ||
      name == "MeanSquaredError") {
    return std::make_shared<MeanSquaredError>();
  }
  if (name == "mae" || name == "MAE" || name == "mean_absolute_error" ||
      name == "MeanAbsoluteError") {
    return std::make_shared<MeanAbsoluteError>();
  }
  throw InvalidArgumentError(fmt::format(
      "Unknown loss function: '{}'. Please ensure you are using a "
      "`keras.utils.custom_object_scope` and that this object is included in the scope. See "
      "https://www.tensorflow.org/guide/keras/save_and_serialize"
      "#registering_the_custom_object for details.",
      name));
}

}  // namespace eagle::keras::losses

namespace eagle::keras::losses {

eagle::io::Json Loss::get_config() const {
  return eagle::io::Json::object().set("name", name()).set("reduction", reduction_);
}

eagle::io::Json SparseCategoricalCrossentropy::get_config() const {
  return Loss::get_config().set("from_logits", from_logits_).set("ignore_class", nullptr);
}

eagle::io::Json CategoricalCrossentropy::get_config() const {
  return Loss::get_config()
      .set("from_logits", from_logits_)
      .set("label_smoothing", 0.0)
      .set("axis", -1);
}

eagle::io::Json BinaryCrossentropy::get_config() const {
  return Loss::get_config()
      .set("from_logits", from_logits_)
      .set("label_smoothing", 0.0)
      .set("axis", -1);
}

eagle::io::Json serialize(const Loss& loss) {
  if (loss.class_name().empty()) {
    throw UnimplementedError(fmt::format(
        "Loss '{}' has no Keras class, so it cannot be serialized: compile with a loss's name or "
        "one of eagle's loss classes",
        loss.name()));
  }
  return eagle::io::Json::object()
      .set("module", "keras.losses")
      .set("class_name", loss.class_name())
      .set("config", loss.get_config())
      .set("registered_name", nullptr);
}

std::shared_ptr<Loss> deserialize(const eagle::io::Json& serialized) {
  if (serialized.is_string()) return get(serialized.as_string());
  const eagle::io::Json* class_name = serialized.find("class_name");
  const eagle::io::Json* config = serialized.find("config");
  if (class_name == nullptr || !class_name->is_string() || config == nullptr ||
      !config->is_object()) {
    throw InvalidArgumentError(
        "A loss's configuration is a name or an object with \"class_name\" and \"config\"");
  }
  const std::string& cls = class_name->as_string();
  bool from_logits = false;
  std::string reduction = kSumOverBatchSize;
  const bool crossentropy = cls == "SparseCategoricalCrossentropy" ||
                            cls == "CategoricalCrossentropy" || cls == "BinaryCrossentropy";
  for (const auto& [key, value] : config->as_object()) {
    const auto lacks = [&](const std::string& setting) {
      throw UnimplementedError(fmt::format("{}: eagle's loss does not support {}", cls, setting));
    };
    if (key == "name") continue;
    if (key == "reduction" && value.is_string()) {
      reduction = value.as_string();
    } else if (key == "from_logits" && crossentropy && value.is_bool()) {
      from_logits = value.as_bool();
    } else if (key == "label_smoothing" && cls != "SparseCategoricalCrossentropy" && crossentropy &&
               value.is_number()) {
      if (value.as_number() != 0) lacks(fmt::format("label_smoothing={}", value.dump()));
    } else if (key == "axis" && cls != "SparseCategoricalCrossentropy" && crossentropy &&
               value.is_integer()) {
      if (value.as_integer() != -1) lacks(fmt::format("axis={}", value.as_integer()));
    } else if (key == "ignore_class" && cls == "SparseCategoricalCrossentropy") {
      if (!value.is_null()) lacks(fmt::format("ignore_class={}", value.dump()));
    } else {
      throw InvalidArgumentError(
          fmt::format("{}.__init__() got an unexpected keyword argument '{}'", cls, key));
    }
  }
  if (cls == "SparseCategoricalCrossentropy") {
    return std::make_shared<SparseCategoricalCrossentropy>(from_logits, reduction);
  }
  if (cls == "CategoricalCrossentropy") {
    return std::make_shared<CategoricalCrossentropy>(from_logits, reduction);
  }
  if (cls == "BinaryCrossentropy") {
    return std::make_shared<BinaryCrossentropy>(from_logits, reduction);
  }
  if (cls == "MeanSquaredError") return std::make_shared<MeanSquaredError>(reduction);
  if (cls == "MeanAbsoluteError") return std::make_shared<MeanAbsoluteError>(reduction);
  throw UnimplementedError(fmt::format(
      "Could not locate class '{}'. eagle's losses are SparseCategoricalCrossentropy, "
      "CategoricalCrossentropy, BinaryCrossentropy, MeanSquaredError and MeanAbsoluteError",
      cls));
}

}  // namespace eagle::keras::losses
