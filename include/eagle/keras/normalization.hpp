// Keras's BatchNormalization layer, on eagle::nn's batch norm ops.
#pragma once

#include <cstdint>
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
  void build(const TensorShape& input_shape) override;
  Tensor call(const Tensor& inputs, bool training) override;
  std::string class_name() const override { return "BatchNormalization"; }

  const Variable& gamma() const { return gamma_; }
  const Variable& beta() const { return beta_; }
  const Variable& moving_mean() const { return moving_mean_; }
  const Variable& moving_variance() const { return moving_variance_; }
  const BatchNormalizationOptions& options() const { return options_; }  // the configuration

 private:
  // Assigns the new moving statistics; in a mirrored model's replica, their mean over the replicas
  // (each replica's own batch statistics, TensorFlow's MEAN aggregation of the moving statistics).
  void update_moving_statistics(const Tensor& mean, const Tensor& variance, std::int64_t batch);

  BatchNormalizationOptions options_;
  Variable gamma_, beta_, moving_mean_, moving_variance_;
};

}  // namespace eagle::keras::layers
