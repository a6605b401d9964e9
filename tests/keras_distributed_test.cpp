// Keras fit, evaluate, predict and train_on_batch of a model built under a MirroredStrategy's
// scope (Note [One training step] in src/keras/trainer.cpp): the same weights, History, bars and
// outputs as one device with the same global batch, identical components, uneven and empty slices,
// BatchNormalization's moving statistics, Dropout, and the errors. Every TEST_CASE configures its
// devices in its own process (tests/fresh_runtime.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "custom_train_step_model.hpp"
#include "eagle/eagle.hpp"
#include "fresh_runtime.hpp"
#include "keras_test_support.hpp"
#include "mirrored_components.hpp"

namespace {

using eagle::Tensor;
using eagle::Variable;
using eagle::distribute::MirroredStrategy;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;
using eagle_test::KerasPrintCapture;

std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

using eagle_test::components_identical;
using eagle_test::same_bits;

// The largest |got - want| relative to the largest |want| (as mirrored_strategy_test measures).
double relative_difference(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  double scale = 0;
  double diff = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    scale = std::max(scale, std::abs(static_cast<double>(want[i])));
    diff = std::max(diff, std::abs(static_cast<double>(got[i]) - want[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

std::vector<float> random_values(std::size_t n, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> out(n);
  for (float& x : out) x = dist(rng);
  return out;
}

struct Data {
  Tensor x;
  Tensor y;
};

Data make_data(std::int64_t n, const eagle::Shape& sample, std::int64_t classes) {
  std::mt19937 rng(5);
  std::vector<std::int64_t> dims{n};
  dims.insert(dims.end(), sample.begin(), sample.end());
  std::int64_t per = 1;
  for (std::int64_t d : sample) per *= d;
  std::uniform_int_distribution<int> cls(0, static_cast<int>(classes) - 1);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (auto& l : labels) l = cls(rng);
  return {
      eagle::constant(random_values(static_cast<std::size_t>(n * per), rng), eagle::Shape(dims)),
      eagle::constant(labels)};
}

layers::DenseOptions with_input(keras::TensorShape shape) {
  layers::DenseOptions options;
  options.input_shape = std::move(shape);
  return options;
}

keras::FitOptions quiet_batches_of(std::int64_t batch) {
  keras::FitOptions options;
  options.batch_size = batch;
  options.verbose = 0;
  return options;
}

using ModelFactory = std::function<std::shared_ptr<keras::Sequential>()>;

std::shared_ptr<keras::Sequential> dense_model() {
  return std::make_shared<keras::Sequential>(std::vector<std::shared_ptr<keras::Layer>>{
      std::make_shared<layers::Dense>(16, "relu", with_input({8})),
      std::make_shared<layers::Dense>(4, "softmax")});
}

std::shared_ptr<keras::Sequential> conv_model() {
  keras::layers::Conv2DOptions conv;
  conv.input_shape = keras::TensorShape{8, 8, 1};
  return std::make_shared<keras::Sequential>(std::vector<std::shared_ptr<keras::Layer>>{
      std::make_shared<layers::Conv2D>(4, 3, "relu", conv),
      std::make_shared<layers::MaxPooling2D>(2), std::make_shared<layers::Flatten>(),
      std::make_shared<layers::Dense>(5, "softmax")});
}

// Conv2D -> SyncBatchNormalization -> relu -> Flatten -> Dense: the statistics of the global
// batch, so one device and any number of replicas train alike.
std::shared_ptr<keras::Sequential> sync_bn_model() {
  keras::layers::Conv2DOptions conv;
  conv.input_shape = keras::TensorShape{6, 6, 2};
  // No bias before batch norm (its gradient is zero up to rounding, which Adam would amplify).
  conv.use_bias = false;
  return std::make_shared<keras::Sequential>(std::vector<std::shared_ptr<keras::Layer>>{
      std::make_shared<layers::Conv2D>(3, 3, "linear", conv),
      std::make_shared<layers::SyncBatchNormalization>(),
      std::make_shared<layers::Activation>("relu"), std::make_shared<layers::Flatten>(),
      std::make_shared<layers::Dense>(4, "softmax")});
}

// first -> bn -> Dense(3, softmax), built and compiled (SGD) in the strategy's scope.
std::shared_ptr<keras::Sequential> dense_bn_dense(const MirroredStrategy& strategy,
                                                  std::shared_ptr<keras::Layer> first,
                                                  std::shared_ptr<keras::Layer> bn) {
  auto scope = strategy.scope();
  auto model = std::make_shared<keras::Sequential>(std::vector<std::shared_ptr<keras::Layer>>{
      std::move(first), std::move(bn), std::make_shared<layers::Dense>(3, "softmax")});
  model->compile("sgd", "sparse_categorical_crossentropy");
  return model;
}

std::shared_ptr<eagle::optimizers::Optimizer> adam() {
  return std::make_shared<eagle::optimizers::Adam>(eagle::optimizers::AdamOptions{0.01});
}

struct Run {
  std::vector<std::vector<float>> weights;
  keras::callbacks::History history;
  std::string fit_text;
  std::vector<double> evaluated;
  std::string evaluate_text;
  Tensor predicted;
  std::string predict_text;
};

// fit (2 epochs, shuffled with a seed), evaluate and predict, printing into a capture whose clock
// stands still (the bars' times are then equal).
Run train(keras::Sequential& model, const Data& data, std::int64_t batch) {
  Run run;
  KerasPrintCapture out;
  keras::FitOptions options;
  options.batch_size = batch;
  options.epochs = 2;
  options.seed = 3;
  run.history = model.fit(data.x, data.y, options);
  run.fit_text = out.text();
  out.clear();
  run.evaluated = model.evaluate(data.x, data.y, {batch, 1});
  run.evaluate_text = out.text();
  out.clear();
  run.predicted = model.predict(data.x, {batch, 1});
  run.predict_text = out.text();
  for (const Tensor& w : model.get_weights()) run.weights.push_back(values(w));
  return run;
}

// One device (under `single`) against the strategy over `devices`, both from the same weights.
void check_fit_equivalence(const std::vector<std::string>& devices, const std::string& single,
                           const ModelFactory& make, const Data& data, std::int64_t batch) {
  keras::backend::clear_session();
  std::shared_ptr<keras::Sequential> one;
  {
    auto scope = eagle::device(single);
    one = make();
  }
  const std::vector<Tensor> initial = one->get_weights();
  one->compile(adam(), "sparse_categorical_crossentropy", {"accuracy"});
  CHECK(one->distribute_strategy() == nullptr);
  Run want;
  {
    auto scope = eagle::device(single);
    want = train(*one, data, batch);
  }

  MirroredStrategy strategy(devices);
  std::shared_ptr<keras::Sequential> mirrored;
  {
    auto scope = strategy.scope();
    mirrored = make();
    mirrored->compile(adam(), "sparse_categorical_crossentropy", {"accuracy"});
  }
  CHECK(mirrored->distribute_strategy() == &strategy);
  mirrored->set_weights(initial);
  for (const Variable& v : mirrored->weights()) {
    REQUIRE(v.is_mirrored());
    REQUIRE(v.components().size() == devices.size());
  }
  const Run got = train(*mirrored, data, batch);

  INFO(devices.size() << " replicas, batch " << batch);
  REQUIRE(got.weights.size() == want.weights.size());
  // The replicas sum in another order than one device does, and Adam scales a near-zero
  // gradient's rounding up to a whole step, so how far apart the runs end depends on the initial
  // weights: over 32 draws, up to 5e-6, and once 1.08e-5. The weights come from the test seed
  // (tests/catch_main.cpp), so every run checks the same draw.
  for (std::size_t i = 0; i < got.weights.size(); ++i) {
    INFO("weight " << i);
    CHECK(relative_difference(got.weights[i], want.weights[i]) <= 1e-5);
  }
  for (const Variable& v : mirrored->weights()) {
    CHECK(components_identical(v));
    const auto components = v.components();
    for (std::size_t r = 0; r < components.size(); ++r) {
      CHECK(components[r].device() == strategy.devices()[r]);
    }
    // The optimizer's slots were created mirrored, on the same devices.
    if (!v.trainable()) continue;  // BatchNormalization's moving statistics have none
    const Variable m = mirrored->optimizer()->get_slot(v, "momentum");
    CHECK(m.is_mirrored());
    CHECK(components_identical(m));
  }
  CHECK(mirrored->optimizer()->iterations() == one->optimizer()->iterations());
  const auto& h = got.history.history;
  const auto& w = want.history.history;
  REQUIRE(h.at("loss").size() == 2);
  for (std::size_t e = 0; e < 2; ++e) {
    CHECK(std::abs(h.at("loss")[e] - w.at("loss")[e]) <= 1e-5 * std::abs(w.at("loss")[e]));
    CHECK(h.at("accuracy")[e] == w.at("accuracy")[e]);
  }
  CHECK_THAT(want.fit_text, Catch::StartsWith("Epoch 1/2\n"));
  CHECK(got.fit_text == want.fit_text);
  CHECK(got.evaluate_text == want.evaluate_text);
  CHECK(got.predict_text == want.predict_text);
  REQUIRE(got.evaluated.size() == 2);
  CHECK(std::abs(got.evaluated[0] - want.evaluated[0]) <= 1e-5 * std::abs(want.evaluated[0]));
  CHECK(got.evaluated[1] == want.evaluated[1]);
  CHECK(got.predicted.shape() == want.predicted.shape());
  CHECK(got.predicted.device() == strategy.devices().front());
  CHECK(relative_difference(values(got.predicted), values(want.predicted)) <= 1e-5);
}

}  // namespace

TEST_CASE("keras fit under MirroredStrategy on simulated GPUs equals one device") {
  EAGLE_FRESH_RUNTIME("4");
  const Data dense = make_data(40, {8}, 4);
  const Data images = make_data(24, {8, 8, 1}, 5);
  check_fit_equivalence({"GPU:0", "GPU:1"}, "/GPU:0", dense_model, dense, 10);
  // 10 over 4 replicas: 3, 3, 3, 1.
  check_fit_equivalence({"GPU:0", "GPU:1", "GPU:2", "GPU:3"}, "/GPU:0", dense_model, dense, 10);
  check_fit_equivalence({"GPU:0", "GPU:1"}, "/GPU:0", conv_model, images, 8);
}

TEST_CASE("keras fit under MirroredStrategy on logical CPUs equals one CPU") {
  EAGLE_FRESH_RUNTIME(nullptr);
  eagle::config::set_logical_device_configuration(eagle::config::list_physical_devices("CPU").at(0),
                                                  {{}, {}});
  const Data dense = make_data(40, {8}, 4);
  const Data images = make_data(24, {8, 8, 1}, 5);
  check_fit_equivalence({"CPU:0", "CPU:1"}, "/CPU:0", dense_model, dense, 10);
  check_fit_equivalence({"CPU:0", "CPU:1"}, "/CPU:0", conv_model, images, 8);
}

TEST_CASE("keras: an overridden train_step trains alike with no strategy and a MirroredStrategy") {
  EAGLE_FRESH_RUNTIME("2");
  const Data data = make_data(40, {8}, 4);
  const auto make = [] {
    layers::DenseOptions first;
    first.input_shape = keras::TensorShape{8};
    return std::make_shared<eagle_test::ClippedL2Sequential>(
        std::vector<std::shared_ptr<keras::Layer>>{
            std::make_shared<layers::Dense>(16, "relu", first),
            std::make_shared<layers::Dense>(4, "softmax")},
        /*l2=*/0.01f, /*clip=*/0.02f);
  };
  keras::backend::clear_session();
  const auto one = make();
  const std::vector<Tensor> initial = one->get_weights();
  one->compile(adam(), "sparse_categorical_crossentropy", {"accuracy"});
  const Run want = train(*one, data, 10);

  MirroredStrategy strategy({"GPU:0", "GPU:1"});
  std::shared_ptr<eagle_test::ClippedL2Sequential> mirrored;
  {
    auto scope = strategy.scope();
    mirrored = make();
    mirrored->compile(adam(), "sparse_categorical_crossentropy", {"accuracy"});
  }
  mirrored->set_weights(initial);
  const Run got = train(*mirrored, data, 10);
  REQUIRE(got.weights.size() == want.weights.size());
  for (std::size_t i = 0; i < got.weights.size(); ++i) {
    INFO("weight " << i);
    CHECK(relative_difference(got.weights[i], want.weights[i]) <= 1e-5);
  }
  for (const Variable& v : mirrored->weights()) CHECK(components_identical(v));
  // The override ran: the penalty is in the loss, and the clip held the first step's update.
  const auto& h = got.history.history;
  const auto& w = want.history.history;
  for (std::size_t e = 0; e < 2; ++e) {
    CHECK(std::abs(h.at("loss")[e] - w.at("loss")[e]) <= 1e-5 * std::abs(w.at("loss")[e]));
  }
  CHECK(got.fit_text == want.fit_text);

  // The override is what ran: the trained loss has the penalty (the test loss has not), and with
  // SGD at learning rate 1 no weight moves by more than the clip, the largest by exactly it.
  keras::backend::clear_session();
  const auto plain = make();
  plain->set_weights(initial);
  plain->compile(std::make_shared<eagle::optimizers::SGD>(eagle::optimizers::SGDOptions{1.0}),
                 "sparse_categorical_crossentropy");
  const Tensor x = data.x[eagle::Slice{0, 10}];
  const Tensor y = data.y[eagle::Slice{0, 10}];
  const double data_loss = plain->test_on_batch(x, y)[0];
  double penalty = 0;
  for (const Tensor& w : initial) {
    if (w.rank() == 2) {
      for (const float v : values(w)) penalty += 0.01 * static_cast<double>(v) * v;
    }
  }
  const double trained_loss = plain->train_on_batch(x, y)[0];
  CHECK(std::abs(trained_loss - (data_loss + penalty)) <= 1e-5 * (data_loss + penalty));
  double largest_move = 0;
  const std::vector<Tensor> after = plain->get_weights();
  for (std::size_t i = 0; i < after.size(); ++i) {
    const std::vector<float> a = values(after[i]);
    const std::vector<float> b = values(initial[i]);
    for (std::size_t k = 0; k < a.size(); ++k) {
      largest_move = std::max(largest_move, std::abs(static_cast<double>(a[k]) - b[k]));
    }
  }
  CHECK(largest_move == Approx(0.02).epsilon(1e-4));
}

TEST_CASE("keras train_on_batch under MirroredStrategy: uneven and empty replica slices") {
  EAGLE_FRESH_RUNTIME("4");
  keras::backend::clear_session();
  const Data data = make_data(10, {8}, 4);
  auto one = dense_model();
  one->compile("sgd", "sparse_categorical_crossentropy", {"accuracy"});
  MirroredStrategy strategy({"GPU:0", "GPU:1", "GPU:2", "GPU:3"});
  std::shared_ptr<keras::Sequential> mirrored;
  {
    auto scope = strategy.scope();
    mirrored = dense_model();
  }
  mirrored->set_weights(one->get_weights());
  // Compiled outside the scope: the model remembers the strategy from its construction.
  mirrored->compile("sgd", "sparse_categorical_crossentropy", {"accuracy"});
  // 10 over 4 (3, 3, 3, 1), then 2 over 4 (1, 1, 0, 0: two replicas with nothing).
  for (const std::int64_t n : {10, 2}) {
    INFO("batch " << n);
    const Tensor x = data.x[eagle::Slice{0, n}];
    const Tensor y = data.y[eagle::Slice{0, n}];
    const std::vector<double> want = one->train_on_batch(x, y);
    const std::vector<double> got = mirrored->train_on_batch(x, y);
    REQUIRE(got.size() == 2);
    CHECK(std::abs(got[0] - want[0]) <= 1e-5 * std::abs(want[0]));
    CHECK(got[1] == want[1]);
    const auto w_one = one->get_weights();
    const auto w_got = mirrored->get_weights();
    for (std::size_t i = 0; i < w_one.size(); ++i) {
      CHECK(relative_difference(values(w_got[i]), values(w_one[i])) <= 1e-5);
    }
    for (const Variable& v : mirrored->weights()) CHECK(components_identical(v));
    const std::vector<double> tested = mirrored->test_on_batch(x, y);
    const std::vector<double> tested_one = one->test_on_batch(x, y);
    CHECK(std::abs(tested[0] - tested_one[0]) <= 1e-5 * std::abs(tested_one[0]));
    const Tensor p = mirrored->predict(x, {32, 0});
    CHECK(relative_difference(values(p), values(one->predict(x, {32, 0}))) <= 1e-5);
  }
}

TEST_CASE("keras BatchNormalization under MirroredStrategy: the moving statistics' replica mean") {
  EAGLE_FRESH_RUNTIME("2");
  keras::backend::clear_session();
  const Data data = make_data(8, {4}, 3);
  MirroredStrategy strategy({"GPU:0", "GPU:1"});
  auto bn = std::make_shared<layers::BatchNormalization>();
  auto first = std::make_shared<layers::Dense>(6, "linear", with_input({4}));
  const auto model = dense_bn_dense(strategy, first, bn);
  REQUIRE(bn->moving_mean().is_mirrored());
  // The first layer's outputs, each replica's half, before the step changes the kernel.
  const Tensor hidden =
      eagle::matmul(data.x, first->kernel().read_value()) + first->bias().read_value();
  model->train_on_batch(data.x, data.y);
  CHECK(components_identical(bn->moving_mean()));
  CHECK(components_identical(bn->moving_variance()));
  // moving = 0.99 * initial + 0.01 * mean over the replicas of their batch statistics.
  std::vector<Tensor> means;
  std::vector<Tensor> variances;
  for (std::int64_t r = 0; r < 2; ++r) {
    const auto m = eagle::nn::moments(hidden[eagle::Slice{4 * r, 4 * r + 4}], {0});
    means.push_back(m.mean);
    variances.push_back(m.variance);
  }
  const Tensor want_mean = (means[0] + means[1]) * 0.5f * 0.01f;
  const Tensor want_variance = 0.99f + (variances[0] + variances[1]) * 0.5f * 0.01f;
  CHECK(relative_difference(values(bn->moving_mean().read_value()), values(want_mean)) <= 1e-5);
  CHECK(relative_difference(values(bn->moving_variance().read_value()), values(want_variance)) <=
        1e-5);
  // Equal halves: the mean of the replica means is the global batch's mean.
  const auto global = eagle::nn::moments(hidden, {0});
  CHECK(relative_difference(values(bn->moving_mean().read_value()), values(global.mean * 0.01f)) <=
        1e-5);
}

TEST_CASE("keras SyncBatchNormalization under MirroredStrategy equals one device") {
  EAGLE_FRESH_RUNTIME("4");
  // Batch 10 over 2 replicas (5, 5) and over 4 (3, 3, 3, 1): uneven slices, and each replica's
  // statistics alone would differ from the global batch's.
  const Data images = make_data(30, {6, 6, 2}, 4);
  check_fit_equivalence({"GPU:0", "GPU:1"}, "/GPU:0", sync_bn_model, images, 10);
  check_fit_equivalence({"GPU:0", "GPU:1", "GPU:2", "GPU:3"}, "/GPU:0", sync_bn_model, images, 10);
}

TEST_CASE("keras SyncBatchNormalization: the global batch's statistics, Keras 2's moving update") {
  EAGLE_FRESH_RUNTIME("2");
  keras::backend::clear_session();
  const Data data = make_data(8, {4}, 3);
  MirroredStrategy strategy({"GPU:0", "GPU:1"});
  auto bn = std::make_shared<layers::SyncBatchNormalization>();
  auto first = std::make_shared<layers::Dense>(6, "linear", with_input({4}));
  const auto model = dense_bn_dense(strategy, first, bn);
  CHECK(bn->name() == "sync_batch_normalization");
  CHECK(bn->class_name() == "SyncBatchNormalization");
  CHECK(bn->synchronized());
  REQUIRE(bn->moving_mean().is_mirrored());
  const Tensor hidden =
      eagle::matmul(data.x, first->kernel().read_value()) + first->bias().read_value();
  model->train_on_batch(data.x, data.y);
  CHECK(components_identical(bn->moving_mean()));
  CHECK(components_identical(bn->moving_variance()));
  // moving = 0.99 * initial + 0.01 * the whole batch's statistics (biased variance).
  const auto global = eagle::nn::moments(hidden, {0});
  CHECK(relative_difference(values(bn->moving_mean().read_value()), values(global.mean * 0.01f)) <=
        1e-5);
  CHECK(relative_difference(values(bn->moving_variance().read_value()),
                            values(0.99f + global.variance * 0.01f)) <= 1e-5);
  // Inference uses the moving statistics, as BatchNormalization does.
  const Tensor out = model->predict(data.x, {8, 0});
  CHECK(out.shape() == eagle::Shape{8, 3});
}

TEST_CASE("keras Dropout under MirroredStrategy: components stay identical, seeded runs repeat") {
  EAGLE_FRESH_RUNTIME("2");
  const Data data = make_data(16, {8}, 4);
  MirroredStrategy strategy({"GPU:0", "GPU:1"});
  std::vector<Tensor> initial;
  std::vector<std::vector<float>> first_run;
  for (int run = 0; run < 2; ++run) {
    keras::backend::clear_session();
    std::shared_ptr<keras::Sequential> model;
    {
      auto scope = strategy.scope();
      model = std::make_shared<keras::Sequential>(std::vector<std::shared_ptr<keras::Layer>>{
          std::make_shared<layers::Dense>(16, "relu", with_input({8})),
          std::make_shared<layers::Dropout>(0.5, 3),
          std::make_shared<layers::Dense>(4, "softmax")});
      model->compile("sgd", "sparse_categorical_crossentropy");
    }
    if (run == 0) initial = model->get_weights();
    model->set_weights(initial);
    KerasPrintCapture out;
    keras::FitOptions options;
    options.batch_size = 8;
    options.epochs = 2;
    options.shuffle = false;
    model->fit(data.x, data.y, options);
    for (const Variable& v : model->weights()) CHECK(components_identical(v));
    std::vector<std::vector<float>> weights;
    for (const Tensor& w : model->get_weights()) weights.push_back(values(w));
    if (run == 0) {
      first_run = weights;
    } else {
      CHECK(weights == first_run);
    }
  }
}

TEST_CASE(
    "keras under MirroredStrategy: a lazily built model, weights outside the scope, a gone "
    "strategy") {
  EAGLE_FRESH_RUNTIME("2");
  keras::backend::clear_session();
  const Data data = make_data(8, {8}, 4);
  std::shared_ptr<keras::Sequential> lazy;
  {
    MirroredStrategy strategy({"GPU:0", "GPU:1"});
    {
      auto scope = strategy.scope();
      // No input shape: built by fit, under the strategy's scope.
      lazy = std::make_shared<keras::Sequential>(std::vector<std::shared_ptr<keras::Layer>>{
          std::make_shared<layers::Dense>(4, "softmax")});
      lazy->compile("sgd", "sparse_categorical_crossentropy");
    }
    CHECK_FALSE(lazy->built());
    KerasPrintCapture out;
    lazy->fit(data.x, data.y, quiet_batches_of(4));
    REQUIRE(lazy->weights().size() == 2);
    for (const Variable& v : lazy->weights()) {
      CHECK(v.is_mirrored());
      CHECK(components_identical(v));
    }

    // A model built outside the scope, compiled inside it: Keras's error.
    auto outside = dense_model();
    auto scope = strategy.scope();
    CHECK_THROWS_MATCHES(
        outside->compile("sgd", "sparse_categorical_crossentropy"), eagle::InvalidArgumentError,
        Catch::Message(
            "Variable (dense_1/kernel:0) was not created in the distribution strategy scope of "
            "(MirroredStrategy with devices ('/job:localhost/replica:0/task:0/device:GPU:0', "
            "'/job:localhost/replica:0/task:0/device:GPU:1')). It is most likely because some "
            "layers, model, or optimizer was being created outside the distribution strategy "
            "scope. Try to make sure your code looks similar to the following.\n{\n  auto scope "
            "= strategy.scope();\n  model = create_model();\n  model.compile(...);\n}"));
  }
  // The strategy is gone: the mirrored model says so instead of touching it.
  CHECK_THROWS_MATCHES(
      lazy->fit(data.x, data.y, quiet_batches_of(4)), eagle::FailedPreconditionError,
      Catch::Message("Model '" + lazy->name() +
                     "' was built under a MirroredStrategy that has been destroyed: a mirrored "
                     "model's fit, evaluate and predict run on its strategy's replicas, so the "
                     "strategy must outlive them"));
}
