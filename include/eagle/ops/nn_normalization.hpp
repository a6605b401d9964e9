// Moments and batch normalization (namespace eagle::nn): tf.nn.moments and
// tf.nn.batch_normalization as TensorFlow composes them, and fused batch norm (op
// FusedBatchNormV3, gradient FusedBatchNormGradV3), NHWC.
#pragma once

#include <vector>

#include "eagle/tensor.hpp"

namespace eagle::nn {

struct Moments {
  Tensor mean;
  Tensor variance;
};
// Mean and (biased) variance over `axes` (Mean, StopGradient, SquaredDifference, Mean, and a
// Squeeze of each unless keepdims); float16 is computed in float32, as in TensorFlow.
Moments moments(const Tensor& x, const std::vector<int>& axes, bool keepdims = false);

// (x - mean) * scale / sqrt(variance + variance_epsilon) + offset, broadcasting; offset and
// scale may be undefined Tensors (TensorFlow's None).
Tensor batch_normalization(const Tensor& x, const Tensor& mean, const Tensor& variance,
                           const Tensor& offset, const Tensor& scale, double variance_epsilon);

// FusedBatchNormV3's six outputs, named as TensorFlow names them.
struct FusedBatchNorm {
  Tensor y;
  Tensor batch_mean;       // training: the running mean (1 - f) * mean + f * batch's mean
  Tensor batch_variance;   // ... with the batch's variance Bessel-corrected (n / (n - 1))
  Tensor reserve_space_1;  // the mean y was normalized with
  Tensor reserve_space_2;  // the variance y was normalized with (biased, in training)
  Tensor reserve_space_3;  // empty
};
// x is 4-D NHWC (float16, bfloat16, float32, and float64, which TensorFlow does not allow);
// scale, offset, mean and variance are [C] (float32 for 16-bit x). In training, mean and variance
// may be undefined Tensors when exponential_avg_factor is 1 (TensorFlow passes empty ones). Not
// training: y normalizes with mean and variance, which are then also batch_mean and
// batch_variance.
FusedBatchNorm fused_batch_norm(const Tensor& x, const Tensor& scale, const Tensor& offset,
                                const Tensor& mean = {}, const Tensor& variance = {},
                                double epsilon = 0.001, double exponential_avg_factor = 1.0,
                                bool is_training = true);

}  // namespace eagle::nn
