// tf.nn's activations, bias_add and dropout (namespace eagle::nn). Each runs TensorFlow's op (or
// the ops TensorFlow composes it from), so the placement log names what TensorFlow 2.21 logs:
// Relu6, LeakyRelu, Elu, Selu, Softplus, Softsign, LogSoftmax and BiasAdd are ops of their own;
// gelu is Mul, Neg, Mul, Erfc, Mul (approximate: Mul, Pow, Mul, AddV2, Mul, Tanh, AddV2, Mul);
// silu is Mul, Sigmoid, Mul, Identity; dropout is Mul, RandomUniform, GreaterEqual, SelectV2.
#pragma once

#include <cstdint>
#include <optional>

#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"

namespace eagle::nn {

// min(max(x, 0), 6) (op Relu6; integers too).
Tensor relu6(const Tensor& features);
// x > 0 ? x : alpha * x (op LeakyRelu); integer features are cast to float32 first, as in
// TensorFlow.
Tensor leaky_relu(const Tensor& features, double alpha = 0.2);
// x < 0 ? exp(x) - 1 : x (op Elu).
Tensor elu(const Tensor& features);
// scale * (x < 0 ? alpha * (exp(x) - 1) : x) with SELU's constants (op Selu).
Tensor selu(const Tensor& features);
// x * Phi(x): 0.5 * x * erfc(-x / sqrt(2)), or TensorFlow's tanh approximation.
Tensor gelu(const Tensor& features, bool approximate = false);
// log(1 + exp(x)), TensorFlow's thresholds (op Softplus).
Tensor softplus(const Tensor& features);
// x / (1 + |x|) (op Softsign).
Tensor softsign(const Tensor& features);
// x * sigmoid(beta * x); swish is the same function (tf.nn.swish).
Tensor silu(const Tensor& features, double beta = 1.0);
Tensor swish(const Tensor& features, double beta = 1.0);
// logits - log(sum(exp(logits), axis)) (op LogSoftmax over the last axis; another axis is
// transposed there and back, as TensorFlow does).
Tensor log_softmax(const Tensor& logits, int axis = -1);
// value + bias along value's last axis (op BiasAdd, NHWC); bias is 1-D, value at least 2-D.
Tensor bias_add(const Tensor& value, const Tensor& bias);
// tf.nn.dropout (TensorFlow 2): each element kept with probability 1 - rate and scaled by
// 1 / (1 - rate), the rest 0. noise_shape (broadcast against x's shape) shares one draw across
// the axes where it is 1; seed makes the draw repeatable. rate must lie in [0, 1).
Tensor dropout(const Tensor& x, double rate, const std::optional<Shape>& noise_shape = {},
               std::optional<std::uint64_t> seed = {});

}  // namespace eagle::nn
