// The seed CNN of issue 17 (seed 003) as Variables and eagle::nn ops, shared by bench/cnn_step.cpp
// and bench/strategy_step.cpp: Conv2D(32, 3, relu, 28x28x1) -> MaxPool 2 -> Conv2D(64, 3, relu)
// -> MaxPool 2 -> Conv2D(64, 3, relu) -> Flatten -> Dense(64, relu) -> Dense(10) (the logits).
// Initialization as Keras's layers: glorot_uniform kernels (seeds 1..5), zero biases. Created
// under a MirroredStrategy's scope, its variables are mirrored.
#pragma once

#include <cstdint>
#include <vector>

#include "eagle/eagle.hpp"

namespace bench {

struct SeedCnn {
  std::vector<eagle::Variable> vars;  // kernel, bias per layer: conv, conv, conv, dense, dense

  SeedCnn() {
    const std::vector<eagle::Shape> kernels = {
        {3, 3, 1, 32}, {3, 3, 32, 64}, {3, 3, 64, 64}, {576, 64}, {64, 10}};
    std::uint64_t seed = 1;
    for (const auto& shape : kernels) {
      vars.emplace_back(eagle::initializers::glorot_uniform(seed++)(shape, eagle::kFloat32));
      vars.emplace_back(eagle::zeros({shape[shape.rank() - 1]}));
    }
  }

  eagle::Tensor logits(const eagle::Tensor& images) const {
    auto conv_relu = [&](const eagle::Tensor& x, int layer) {
      return eagle::relu(
          eagle::nn::bias_add(eagle::nn::conv2d(x, vars[2 * layer]), vars[2 * layer + 1]));
    };
    eagle::Tensor x = eagle::nn::max_pool2d(conv_relu(images, 0));
    x = eagle::nn::max_pool2d(conv_relu(x, 1));
    x = eagle::reshape(conv_relu(x, 2), {-1, 576});
    x = eagle::relu(eagle::nn::bias_add(eagle::matmul(x, vars[6]), vars[7]));
    return eagle::nn::bias_add(eagle::matmul(x, vars[8]), vars[9]);
  }
};

}  // namespace bench
