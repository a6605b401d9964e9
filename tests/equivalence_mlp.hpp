// The model the strategy equivalence tests train (mirrored_strategy_test,
// multi_worker_mirrored_strategy_test): a two-layer MLP with softmax cross entropy on seeded
// random batches, and the relative difference they hold N replicas to one device with.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "eagle/eagle.hpp"

namespace eagle_test {

// The largest |got - want| relative to the largest |want|.
inline double relative_difference(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  double scale = 0;
  double diff = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    scale = std::max(scale, std::abs(static_cast<double>(want[i])));
    diff = std::max(diff, std::abs(static_cast<double>(got[i]) - want[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

inline std::vector<float> random_values(std::size_t n, std::mt19937& rng, float scale) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> out(n);
  for (float& x : out) x = dist(rng);
  return out;
}

// matmul + bias + relu, then matmul + bias.
constexpr std::int64_t kInputs = 8;
constexpr std::int64_t kHidden = 16;
constexpr std::int64_t kClasses = 4;

struct Mlp {
  eagle::Variable w1, b1, w2, b2;
  std::vector<eagle::Variable> variables() const { return {w1, b1, w2, b2}; }
};

inline Mlp make_mlp(unsigned seed = 7) {
  using eagle::Variable;
  std::mt19937 rng(seed);
  return Mlp{
      Variable(eagle::constant(random_values(kInputs * kHidden, rng, 0.5f), {kInputs, kHidden}),
               {"dense/kernel"}),
      Variable(eagle::constant(random_values(kHidden, rng, 0.1f), {kHidden}), {"dense/bias"}),
      Variable(eagle::constant(random_values(kHidden * kClasses, rng, 0.5f), {kHidden, kClasses}),
               {"dense_1/kernel"}),
      Variable(eagle::constant(random_values(kClasses, rng, 0.1f), {kClasses}), {"dense_1/bias"})};
}

inline eagle::Tensor per_example_loss(const Mlp& m, const eagle::Tensor& x,
                                      const eagle::Tensor& labels) {
  const eagle::Tensor hidden = eagle::relu(eagle::matmul(x, m.w1) + m.b1);
  const eagle::Tensor logits = eagle::matmul(hidden, m.w2) + m.b2;
  return eagle::nn::softmax_cross_entropy_with_logits(labels, logits);
}

struct Batch {
  eagle::Tensor x;
  eagle::Tensor labels;  // one-hot
};

// `steps` batches of `batch` examples, the same for one seed on every process.
inline std::vector<Batch> make_batches(int steps, std::int64_t batch) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> cls(0, static_cast<int>(kClasses) - 1);
  std::vector<Batch> out;
  for (int s = 0; s < steps; ++s) {
    const eagle::Tensor x = eagle::constant(
        random_values(static_cast<std::size_t>(batch * kInputs), rng, 1.0f), {batch, kInputs});
    std::vector<float> onehot(static_cast<std::size_t>(batch * kClasses), 0.0f);
    for (std::int64_t i = 0; i < batch; ++i) {
      onehot[static_cast<std::size_t>(i * kClasses + cls(rng))] = 1;
    }
    out.push_back({x, eagle::constant(onehot, {batch, kClasses})});
  }
  return out;
}

}  // namespace eagle_test
