// An MLP built with eagle::keras's Sequential and trained with fit, printing what Keras 2 prints:
// the summary table, `Epoch 1/10` and a progress bar per epoch, the evaluation. The data is
// generated: points of the square [-1, 1]^2 labelled by the ring they fall in (radius below
// 0.45, below 0.8, or beyond), which no straight line separates. Runs under /GPU:0 (a simulated
// one when no CUDA GPU is present).
#include <fmt/format.h>

#include <eagle/eagle.hpp>

#include "sample_support.hpp"

namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;

namespace {

struct Rings {
  eagle::Tensor x;       // [n, 2]
  eagle::Tensor labels;  // [n] int32: 0, 1 or 2
};

Rings rings(std::int64_t n, std::uint64_t seed) {
  Rings d;
  d.x = eagle::random_uniform({n, 2}, -1, 1, eagle::kFloat32, seed);
  const eagle::Tensor r = eagle::sqrt(eagle::reduce_sum(eagle::square(d.x), -1));
  d.labels = eagle::cast(r > 0.45f, eagle::kInt32) + eagle::cast(r > 0.8f, eagle::kInt32);
  return d;
}

}  // namespace

int main() {
  eagle_samples::start(1);
  auto scope = eagle::device("/GPU:0");
  const Rings train = rings(3000, 1);
  const Rings test = rings(1000, 2);

  keras::Sequential model;
  model.add(layers::Input({2}));
  model.add(layers::Dense(64, "relu"));
  model.add(layers::Dense(64, "relu"));
  model.add(layers::Dense(3, "softmax"));
  model.summary();

  model.compile(std::make_shared<eagle::optimizers::Adam>(eagle::optimizers::AdamOptions{0.01}),
                "sparse_categorical_crossentropy", {"accuracy"});
  keras::FitOptions options;
  options.epochs = 10;
  options.validation_split = 0.2;
  const auto history = model.fit(train.x, train.labels, options);

  const auto result = model.evaluate(test.x, test.labels);
  fmt::print("Test loss: {:.4f}, test accuracy: {:.4f}\n", result[0], result[1]);
  const eagle::Tensor probabilities = model.predict(test.x[eagle::Slice{0, 5}]);
  fmt::print("Predicted classes of the first 5 test points: {}, labels: {}\n",
             fmt::join(eagle::argmax(probabilities, 1).to_vector<std::int64_t>(), " "),
             fmt::join(test.labels[eagle::Slice{0, 5}].to_vector<std::int32_t>(), " "));
  fmt::print("Variables on {}\n", model.weights()[0].device());
  return result[1] >= 0.9 && history.history.at("loss").back() < history.history.at("loss")[0] ? 0
                                                                                               : 1;
}
