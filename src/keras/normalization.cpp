// Keras 2's BatchNormalization (axis -1): the fused path for 4-D inputs, moments otherwise.
#include "eagle/keras/normalization.hpp"

#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "eagle/distribute/strategy.hpp"
#include "eagle/errors.hpp"
#include "eagle/keras/layer_config.hpp"
#include "eagle/ops.hpp"
#include "eagle/ops/nn_normalization.hpp"

namespace eagle::keras::layers {

BatchNormalization::BatchNormalization(BatchNormalizationOptions options)
    : BatchNormalization("BatchNormalization", std::move(options)) {}

BatchNormalization::BatchNormalization(const std::string& class_name,
                                       BatchNormalizationOptions options)
    : Layer(class_name, options.name), options_(std::move(options)) {
  if (options_.input_shape) set_input_shape(*options_.input_shape);
  set_input_spec({1, {}});
}

void BatchNormalization::build(const TensorShape& input_shape) {
  if (input_shape.empty() || !input_shape.back()) {
    throw InvalidArgumentError(fmt::format(
        "Axis -1 of input tensor should have a defined dimension but the layer received an "
        "input with shape {}.",
        to_string(input_shape)));
  }
  const Shape param{*input_shape.back()};
  if (options_.scale) gamma_ = add_weight("gamma", param, options_.gamma_initializer.get());
  if (options_.center) beta_ = add_weight("beta", param, options_.beta_initializer.get());
  // TensorFlow's moving statistics: aggregation MEAN, so that under a strategy the replicas'
  // assignments average (update_moving_statistics).
  moving_mean_ = add_weight("moving_mean", param, options_.moving_mean_initializer.get(), false,
                            VariableAggregation::kMean);
  moving_variance_ =
      add_weight("moving_variance", param, options_.moving_variance_initializer.get(), false,
                 VariableAggregation::kMean);
  set_input_spec({1, {{-1, *input_shape.back()}}});
  set_built();
}

Tensor BatchNormalization::call(const Tensor& inputs, bool training) {
  const Tensor x = inputs.dtype() == kFloat32 ? inputs : cast(inputs, kFloat32);
  const std::int64_t channels = x.shape()[x.rank() - 1];
  const Tensor gamma = options_.scale ? Tensor(gamma_) : ones({channels});
  const Tensor beta = options_.center ? Tensor(beta_) : zeros({channels});
  if (training && options_.synchronized) return call_synchronized(x, gamma, beta);
  if (x.rank() == 4) {
    // Keras's fused path: FusedBatchNormV3 moves the statistics itself
    // (exponential_avg_factor = 1 - momentum), the variance Bessel-corrected.
    const nn::FusedBatchNorm out =
        nn::fused_batch_norm(x, gamma, beta, moving_mean_, moving_variance_, options_.epsilon,
                             1.0 - options_.momentum, training);
    if (training) update_moving_statistics(out.batch_mean, out.batch_variance, x.shape()[0] > 0);
    return out.y;
  }
  if (!training) {
    return nn::batch_normalization(x, moving_mean_, moving_variance_, beta, gamma,
                                   options_.epsilon);
  }
  std::vector<int> axes(static_cast<std::size_t>(x.rank() - 1));
  std::iota(axes.begin(), axes.end(), 0);
  const nn::Moments m = nn::moments(x, axes);
  update_moving_statistics(moved(moving_mean_, m.mean), moved(moving_variance_, m.variance),
                           x.shape()[0] > 0);
  return nn::batch_normalization(x, m.mean, m.variance, beta, gamma, options_.epsilon);
}

Tensor BatchNormalization::call_synchronized(const Tensor& x, const Tensor& gamma,
                                             const Tensor& beta) {
  // Keras 2's SyncBatchNormalization._calculate_mean_and_var: per-channel sums of x and x^2 and
  // the element count, all-reduced (one collective: one pack per dtype) when in a replica.
  std::vector<int> axes(static_cast<std::size_t>(x.rank() - 1));
  std::iota(axes.begin(), axes.end(), 0);
  const std::int64_t channels = x.shape()[x.rank() - 1];
  const std::int64_t count = channels == 0 ? 0 : x.shape().num_elements() / channels;
  std::vector<Tensor> sums = {reduce_sum(x, axes), reduce_sum(square(x), axes),
                              constant(static_cast<float>(count))};
  const distribute::ReplicaContext* replica = distribute::get_replica_context();
  if (replica != nullptr && moving_mean_.is_mirrored()) {
    sums = replica->all_reduce(distribute::ReduceOp::kSum, sums);
  }
  const Tensor mean = sums[0] / sums[2];
  const Tensor variance = maximum(sums[1] / sums[2] - square(mean), zeros({channels}));
  // The global batch's statistics, equal on every replica (bit-identical all-reduced sums), even on
  // a replica whose own slice is empty.
  update_moving_statistics(moved(moving_mean_, mean), moved(moving_variance_, variance), true);
  return nn::batch_normalization(x, mean, variance, beta, gamma, options_.epsilon);
}

Tensor BatchNormalization::moved(const Variable& moving, const Tensor& batch) const {
  // Keras 2's _assign_moving_average: moving -= (moving - batch) * (1 - momentum).
  return Tensor(moving) - (Tensor(moving) - batch) * (1.0 - options_.momentum);
}

void BatchNormalization::update_moving_statistics(const Tensor& mean, const Tensor& variance,
                                                  bool has_batch) {
  // Assignments have no gradient: a recording tape keeps nothing for them. The variables'
  // aggregation does the rest (Note [Distributed variables] in src/variables/variable_state.hpp).
  if (!has_batch) {
    moving_mean_.assign(moving_mean_.read_value());
    moving_variance_.assign(moving_variance_.read_value());
    return;
  }
  moving_mean_.assign(mean);
  moving_variance_.assign(variance);
}

SyncBatchNormalization::SyncBatchNormalization(BatchNormalizationOptions options)
    : BatchNormalization("SyncBatchNormalization", [&] {
        options.synchronized = true;
        return std::move(options);
      }()) {}

// ---- config (Note [Layer registry]) ----------------------------------------------------------

using eagle::io::Json;

// SyncBatchNormalization's too: Keras 3 writes it as BatchNormalization(synchronized=True).
Json BatchNormalization::get_config() const {
  return Layer::get_config()
      .set("axis", -1)
      .set("momentum", options_.momentum)
      .set("epsilon", options_.epsilon)
      .set("center", options_.center)
      .set("scale", options_.scale)
      .set("synchronized", options_.synchronized)
      .set("beta_initializer", serialization::initializer("Zeros"))
      .set("gamma_initializer", serialization::initializer("Ones"))
      .set("moving_mean_initializer", serialization::initializer("Zeros"))
      .set("moving_variance_initializer", serialization::initializer("Ones"));
}

std::shared_ptr<Layer> BatchNormalization::from_config(const LayerConfig& c) {
  c.require_value("renorm", Json(false));
  const Json* axis = c.find("axis");
  std::int64_t a = -1;
  if (axis != nullptr && axis->is_array() && axis->as_array().size() == 1) {
    axis = &axis->as_array()[0];
  }
  if (axis != nullptr && !axis->is_null()) {
    if (!axis->is_integer()) {
      c.unimplemented(fmt::format("axis={}: eagle normalizes over the last axis", axis->dump()));
    }
    a = axis->as_integer();
  }
  const auto& input = c.input_shape();
  const bool last = a == -1 || (input && a == static_cast<std::int64_t>(input->size()) - 1);
  if (!last) c.unimplemented(fmt::format("axis={}: eagle normalizes over the last axis", a));
  BatchNormalizationOptions o;
  o.name = c.name();
  o.momentum = c.number("momentum", 0.99);
  o.epsilon = c.number("epsilon", 0.001);
  o.center = c.boolean("center", true);
  o.scale = c.boolean("scale", true);
  o.synchronized = c.boolean("synchronized", false);
  return std::make_shared<BatchNormalization>(o);
}

namespace {
const LayerRegistration kBatchNormalization("BatchNormalization", &BatchNormalization::from_config);
}  // namespace

}  // namespace eagle::keras::layers
