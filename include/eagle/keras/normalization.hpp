// Keras's BatchNormalization layer, on eagle::nn's batch norm ops.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "eagle/keras/layer.hpp"

namespace eagle::keras::layers {

struct BatchNormalizationOptions {
  double momentum = 0.99;
  double epsilon = 0.001;
  bool center = true;  // beta
  bool scale = true;   // gamma
  InitializerArg beta_initializer = "zeros";
  InitializerArg gamma_initializer = "ones";
  InitializerArg moving_mean_initializer = "zeros";
  InitializerArg moving_variance_initializer = "ones";
  // Keras 3's synchronized=True (Keras 2's SyncBatchNormalization): in a mirrored model's
  // replica, training normalizes with the statistics of the whole global batch (every replica's
  // slice), all-reduced across the replicas (ReplicaContext::all_reduce, differentiable).
  bool synchronized = false;
  std::string name;
  std::optional<TensorShape> input_shape;
};
// Keras 2's BatchNormalization over the last axis. Training normalizes with the batch's
// statistics and moves moving_mean / moving_variance toward them by 1 - momentum: for 4-D
// inputs through FusedBatchNormV3 (Keras's fused path: the batch variance Bessel-corrected in the
// moving average), otherwise through moments (biased), as Keras 2 does. Inference normalizes
// with the moving statistics. Weights: gamma, beta (trainable), moving_mean, moving_variance.
// In a mirrored model (built under a MirroredStrategy's scope) each replica normalizes with its
// own slice's statistics, and the moving statistics move by the mean over the replicas of their
// updates: the components stay identical, and equal TensorFlow's MEAN-aggregated value.
class BatchNormalization : public Layer {
 public:
  explicit BatchNormalization(BatchNormalizationOptions options = {});
  bool synchronized() const { return options_.synchronized; }
  void build(const TensorShape& input_shape) override;
  Tensor call(const Tensor& inputs, bool training) override;
  std::string class_name() const override { return "BatchNormalization"; }
  eagle::io::Json get_config() const override;
  static std::shared_ptr<Layer> from_config(const LayerConfig& config);

  const Variable& gamma() const { return gamma_; }
  const Variable& beta() const { return beta_; }
  const Variable& moving_mean() const { return moving_mean_; }
  const Variable& moving_variance() const { return moving_variance_; }
  const BatchNormalizationOptions& options() const { return options_; }  // the configuration

 protected:
  BatchNormalization(const std::string& class_name, BatchNormalizationOptions options);

 private:
  // Training with the global batch's statistics (options_.synchronized).
  Tensor call_synchronized(const Tensor& x, const Tensor& gamma, const Tensor& beta);
  // Keras 2's moving average of one statistic toward the batch's.
  Tensor moved(const Variable& moving, const Tensor& batch) const;
  // Assigns the new moving statistics. They are created with TensorFlow's MEAN aggregation, so in
  // a mirrored model's replica the assignment writes the mean over the replicas of what each
  // assigns (its own batch's statistics) to every component. A replica whose batch slice is empty
  // (`has_batch` false: its statistics are NaN) assigns them unchanged.
  void update_moving_statistics(const Tensor& mean, const Tensor& variance, bool has_batch);

  BatchNormalizationOptions options_;
  Variable gamma_, beta_, moving_mean_, moving_variance_;
};

// Keras 2's tf.keras.layers.experimental.SyncBatchNormalization: BatchNormalization with
// synchronized = true. Outside a mirrored model, or with one replica, it is BatchNormalization
// with Keras 2's unfused arithmetic: mean and variance from the sums of x and x^2 per channel
// (variance = E[x^2] - E[x]^2, clamped at 0), the moving variance moved toward the biased
// variance. In a mirrored model each replica sums its slice, one all-reduce (SUM) adds the
// sums and counts of every replica, and every replica normalizes with the same statistics and
// moves the moving statistics identically (no second collective): N replicas give what one
// device gives on the global batch, in the forward pass and in the gradients.
class SyncBatchNormalization : public BatchNormalization {
 public:
  explicit SyncBatchNormalization(BatchNormalizationOptions options = {});
  std::string class_name() const override { return "SyncBatchNormalization"; }
  // Keras 3 has BatchNormalization(synchronized=True) instead.
  std::string keras3_class_name() const override { return "BatchNormalization"; }
};

}  // namespace eagle::keras::layers
