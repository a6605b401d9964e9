// The seed CNN of issue 17 (seed 003's model, samples/README.md) as Variables and eagle::nn ops
// (SeedCnn, shared by bench/cnn_step.cpp and bench/strategy_step.cpp) and as a Keras Sequential
// (keras_seed_cnn, for bench/cnn_step.cpp and bench/fit_epoch.cpp): Conv2D(32, 3, relu, 28x28x1)
// -> MaxPool 2 -> Conv2D(64, 3, relu) -> MaxPool 2 -> Conv2D(64, 3, relu) -> Flatten ->
// Dense(64, relu) -> Dense(10) (the logits).
// Initialization as Keras's layers: glorot_uniform kernels (seeds 1..5), zero biases. Created
// under a MirroredStrategy's scope, its variables are mirrored.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
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

// samples/fashion_mnist_cnn.cpp's model, compiled with Keras's Adam and
// sparse_categorical_crossentropy and `metrics`.
inline std::shared_ptr<eagle::keras::Sequential> keras_seed_cnn(
    const std::vector<eagle::keras::MetricArg>& metrics = {}) {
  namespace keras = eagle::keras;
  namespace layers = eagle::keras::layers;
  auto model = std::make_shared<keras::Sequential>();
  layers::Conv2DOptions first;
  first.input_shape = keras::TensorShape{28, 28, 1};
  model->add(layers::Conv2D(32, 3, "relu", first));
  model->add(layers::MaxPooling2D(2));
  model->add(layers::Conv2D(64, 3, "relu"));
  model->add(layers::MaxPooling2D(2));
  model->add(layers::Conv2D(64, 3, "relu"));
  model->add(layers::Flatten());
  model->add(layers::Dense(64, "relu"));
  model->add(layers::Dense(10, "softmax"));
  model->compile(std::make_shared<eagle::optimizers::Adam>(), "sparse_categorical_crossentropy",
                 metrics);
  return model;
}

}  // namespace bench
