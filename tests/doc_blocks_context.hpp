// The setups the documentation's C++ fragments assume (Note [Documentation blocks] in
// tests/tools/doc_blocks.py): a fragment marked <!-- doc-test: context NAME --> runs after
// EAGLE_DOC_CONTEXT_NAME. Each defines the names the prose around its block takes as given,
// small enough to run in a moment.
#pragma once

#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "eagle/eagle.hpp"

namespace eagle_doc {

// 64 flattened "images" (values in [0, 1)) with labels 0..9, seeded.
inline std::pair<eagle::Tensor, eagle::Tensor> flat_images(std::int64_t n) {
  return {eagle::random_uniform({n, 784}, 0, 1, eagle::kFloat32, 1),
          eagle::cast(eagle::random_uniform({n}, 0, 10, eagle::kFloat32, 2), eagle::kInt32)};
}

}  // namespace eagle_doc

// A vector whose size() is a std::size_t (eagle::zeros({v.size(), 4})).
#define EAGLE_DOC_CONTEXT_vector3 [[maybe_unused]] std::vector<int> v(3);

// An NHWC input and an HWIO kernel.
#define EAGLE_DOC_CONTEXT_conv                         \
  [[maybe_unused]] auto x = eagle::ones({1, 8, 8, 3}); \
  [[maybe_unused]] auto w = eagle::ones({3, 3, 3, 6});

#define EAGLE_DOC_CONTEXT_two_matrices           \
  [[maybe_unused]] auto a = eagle::ones({2, 2}); \
  [[maybe_unused]] auto b = eagle::ones({2, 2});

// A batch of inputs and targets for a 784 -> 10 regression.
#define EAGLE_DOC_CONTEXT_regression                         \
  [[maybe_unused]] auto x = eagle_doc::flat_images(8).first; \
  [[maybe_unused]] auto y = eagle::zeros({8, 10});

// Train and test splits of flattened images.
#define EAGLE_DOC_CONTEXT_mnist_flat                                     \
  [[maybe_unused]] auto [x_train, y_train] = eagle_doc::flat_images(64); \
  [[maybe_unused]] auto [x_test, y_test] = eagle_doc::flat_images(16);

// A replica's labels and logits, and the global batch.
#define EAGLE_DOC_CONTEXT_replica_loss                                                         \
  [[maybe_unused]] auto labels = eagle::constant({1, 0, 3, 9});                                \
  [[maybe_unused]] auto predictions = eagle::random_normal({4, 10}, 0, 1, eagle::kFloat32, 3); \
  [[maybe_unused]] const std::int64_t global_batch_size = 8;

#define EAGLE_DOC_CONTEXT_model [[maybe_unused]] eagle::keras::Sequential model;

// Two built models of one architecture.
#define EAGLE_DOC_CONTEXT_two_models               \
  eagle::keras::Sequential model;                  \
  model.add(eagle::keras::layers::Input({4}));     \
  model.add(eagle::keras::layers::Dense(2));       \
  [[maybe_unused]] eagle::keras::Sequential other; \
  other.add(eagle::keras::layers::Input({4}));     \
  other.add(eagle::keras::layers::Dense(2));

// Examples (flattened images and int32 labels), not batched.
#define EAGLE_DOC_CONTEXT_dataset                                 \
  [[maybe_unused]] const auto dataset = [] {                      \
    auto [x, labels] = eagle_doc::flat_images(256);               \
    return eagle::data::Dataset::from_tensor_slices({x, labels}); \
  }();

#define EAGLE_DOC_CONTEXT_strategy    \
  namespace dist = eagle::distribute; \
  [[maybe_unused]] dist::MirroredStrategy strategy;

#define EAGLE_DOC_CONTEXT_dist namespace dist = eagle::distribute;

// The seed CNN's first layer options, 28x28x1 images and fit's options.
#define EAGLE_DOC_CONTEXT_keras_cnn                                         \
  namespace dist = eagle::distribute;                                       \
  namespace keras = eagle::keras;                                           \
  keras::layers::Conv2DOptions conv_with_input_shape;                       \
  conv_with_input_shape.input_shape = eagle::keras::TensorShape{28, 28, 1}; \
  [[maybe_unused]] auto x_train =                                           \
      eagle::random_uniform({32, 28, 28, 1}, 0, 1, eagle::kFloat32, 4);     \
  [[maybe_unused]] auto y_train = eagle_doc::flat_images(32).second;        \
  keras::FitOptions fit_options;                                            \
  fit_options.verbose = 0;

// What a multi-worker program has before building its model.
#define EAGLE_DOC_CONTEXT_multi_worker                                                \
  namespace dist = eagle::distribute;                                                 \
  namespace keras = eagle::keras;                                                     \
  namespace layers = eagle::keras::layers;                                            \
  [[maybe_unused]] auto adam = std::make_shared<eagle::optimizers::Adam>();           \
  [[maybe_unused]] auto x = eagle::random_uniform({64, 2}, 0, 1, eagle::kFloat32, 5); \
  [[maybe_unused]] auto y = eagle_doc::flat_images(64).second;

// Two towers of a linear model, their batches, and what the averaging step fills.
#define EAGLE_DOC_CONTEXT_towers                                                               \
  const int towers = 2;                                                                        \
  std::vector<eagle::Variable> variables{eagle::Variable(eagle::zeros({784, 10}), {"w"}),      \
                                         eagle::Variable(eagle::zeros({10}), {"b"})};          \
  struct TowerModel {                                                                          \
    const std::vector<eagle::Variable>* v;                                                     \
    eagle::Tensor tower_loss(const eagle::Tensor& images, const eagle::Tensor& labels) const { \
      return eagle::reduce_mean(eagle::nn::sparse_softmax_cross_entropy_with_logits(           \
          labels, eagle::matmul(images, (*v)[0]) + (*v)[1]));                                  \
    }                                                                                          \
  } model{&variables};                                                                         \
  std::vector<eagle::Tensor> images, labels;                                                   \
  for (int i = 0; i < towers; ++i) {                                                           \
    auto [x, y] = eagle_doc::flat_images(8);                                                   \
    images.push_back(x);                                                                       \
    labels.push_back(y);                                                                       \
  }                                                                                            \
  std::vector<eagle::Tensor> averaged;                                                         \
  eagle::optimizers::SGD sgd(0.1);                                                             \
  const auto pairs_of = [](const std::vector<eagle::Tensor>& grads,                            \
                           const std::vector<eagle::Variable>& vars) {                         \
    std::vector<eagle::optimizers::GradientAndVariable> pairs;                                 \
    for (std::size_t i = 0; i < vars.size(); ++i) pairs.emplace_back(grads[i], vars[i]);       \
    return pairs;                                                                              \
  };

// A data shard per worker of a parameter-server run.
#define EAGLE_DOC_CONTEXT_parameter_server               \
  struct Batch {                                         \
    eagle::Tensor x, y;                                  \
  };                                                     \
  struct Shard {                                         \
    Batch b;                                             \
    const Batch& batch(std::int64_t) const { return b; } \
  };                                                     \
  const std::vector<Shard> shards(                       \
      2,                                                 \
      Shard{Batch{eagle::random_uniform({8, 3}, 0, 1, eagle::kFloat32, 6), eagle::ones({8, 1})}});
