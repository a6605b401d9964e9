// The seed CNN between Keras 3 and eagle (issue 17): the weights Keras trained and saved
// (tests/tools/gen_keras_cnn_fixture.py) give Keras's predictions in eagle, on the CPU and a
// simulated GPU; eagle's own training steps saved and loaded back predict the same. With
// EAGLE_KERAS_CNN_OUT=DIR set, the trained weights and eagle's predictions are written there for
// tests/tools/check_keras_cnn.py, which checks them in Keras (the other direction).
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "eagle/eagle.hpp"
#include "io/keras_weights_file.hpp"
#include "json_reader.hpp"
#include "keras_test_support.hpp"

namespace {

namespace fs = std::filesystem;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;
using eagle::Tensor;

const std::string kWeights = std::string(EAGLE_FIXTURE_DIR) + "/seed_cnn.weights.h5";
const std::string kPredictions = std::string(EAGLE_FIXTURE_DIR) + "/seed_cnn_predictions.json";
constexpr std::int64_t kImages = 8;

using eagle_test::seed_cnn;

// tests/tools/keras_cnn_model.py's formula images: n of them, from flat element `first`.
Tensor formula_images(std::int64_t n, std::uint64_t first = 0) {
  return eagle_test::formula_values({n, 28, 28, 1}, first);
}

std::vector<float> keras_predictions() {
  const eagle_test::Json fixture = eagle_test::Json::parse_file(kPredictions);
  std::vector<float> out;
  for (const auto& row : fixture["predictions"].array()) {
    for (const auto& v : row.array()) out.push_back(static_cast<float>(v.number()));
  }
  return out;
}

Tensor predict(keras::Sequential& model, const Tensor& x) {
  keras::PredictOptions quiet;
  quiet.verbose = 0;
  return model.predict(x, quiet);
}

double max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]));
  }
  return worst;
}

}  // namespace

TEST_CASE("the seed CNN Keras trained predicts Keras's values in eagle") {
  auto model = seed_cnn();
  if (!eagle::io::keras_weights_supported()) {
    CHECK_THROWS_AS(model->load_weights(kWeights), eagle::UnimplementedError);
    return;
  }
  const std::vector<float> expected = keras_predictions();
  REQUIRE(expected.size() == kImages * 10);
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    INFO(device);
    auto scope = eagle::device(device);
    auto on_device = seed_cnn();
    on_device->load_weights(kWeights);
    CHECK(on_device->count_params() == 93322);
    const Tensor y = predict(*on_device, formula_images(kImages));
    CHECK(y.shape() == eagle::Shape{kImages, 10});
    CHECK(max_difference(y.to_vector<float>(), expected) <= 1e-5);
  }
}

TEST_CASE("the seed CNN trained further in eagle saves weights that predict the same") {
  if (!eagle::io::keras_weights_supported()) return;
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    INFO(device);
    auto scope = eagle::device(device);
    auto model = seed_cnn();
    model->load_weights(kWeights);
    model->compile(std::make_shared<eagle::optimizers::Adam>(), "sparse_categorical_crossentropy");
    std::vector<std::int32_t> labels(32);
    for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int32_t>(i % 10);
    const Tensor y = eagle::constant(labels);
    for (int step = 0; step < 3; ++step) {
      model->train_on_batch(formula_images(32, 100000 * (step + 1)), y);
    }
    const std::vector<float> trained = predict(*model, formula_images(kImages)).to_vector<float>();
    CHECK(max_difference(trained, keras_predictions()) > 1e-4);  // the steps moved the weights

    const fs::path dir = fs::temp_directory_path() / fmt::format("eagle_cnn_{}", ::getpid());
    fs::create_directories(dir);
    const std::string file = (dir / "seed_cnn.weights.h5").string();
    model->save_weights(file);
    auto loaded = seed_cnn();
    loaded->load_weights(file);
    CHECK(predict(*loaded, formula_images(kImages)).to_vector<float>() == trained);
    fs::remove_all(dir);

    // The files tests/tools/check_keras_cnn.py compares with Keras (the CPU run's).
    const char* out = std::getenv("EAGLE_KERAS_CNN_OUT");
    if (out != nullptr && std::string(device) == "/CPU:0") {
      fs::create_directories(out);
      model->save_weights((fs::path(out) / "eagle_seed_cnn.weights.h5").string());
      std::ofstream json(fs::path(out) / "eagle_seed_cnn_predictions.json");
      json << "{\"predictions\": [";
      for (std::int64_t r = 0; r < kImages; ++r) {
        json << (r ? ", [" : "[");
        for (std::int64_t c = 0; c < 10; ++c) {
          json << (c ? ", " : "") << fmt::format("{:.9g}", trained[r * 10 + c]);
        }
        json << "]";
      }
      json << "]}\n";
    }
  }
}

// Keras 3's three Adam steps of the seed CNN, step by step (tests/tools/
// gen_keras_cnn_steps_fixture.py). At each step eagle's gradients at Keras's weights match
// Keras's gradients to 1e-5 of each weight's largest, and Keras's gradients applied by eagle's
// Adam give Keras's weights after every step, bit for bit (checked after the last). A training
// run is chaotic; these two are what is deterministic.
TEST_CASE("the seed CNN's Adam steps: Keras's gradients at Keras's weights, then its weights") {
  if (!eagle::io::keras_weights_supported()) return;
  const eagle_test::Json fixture =
      eagle_test::Json::parse_file(std::string(EAGLE_FIXTURE_DIR) + "/seed_cnn_steps.json");
  const auto steps = static_cast<int>(fixture["steps"].number());
  const auto batch = static_cast<std::int64_t>(fixture["batch"].number());
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    INFO(device);
    auto scope = eagle::device(device);
    auto model = seed_cnn();
    model->load_weights(kWeights);
    eagle::optimizers::Adam adam(0.001);
    eagle::keras::losses::SparseCategoricalCrossentropy loss_fn;
    const std::vector<eagle::Variable> variables = model->trainable_variables();
    for (int k = 0; k < steps; ++k) {
      INFO("step " << k);
      const Tensor x = formula_images(batch, 100000 * static_cast<std::uint64_t>(k + 1));
      std::vector<std::int32_t> labels(static_cast<std::size_t>(batch));
      for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int32_t>(i % 10);
      eagle::GradientTape tape;
      const Tensor loss = loss_fn(eagle::constant(labels), (*model)(x, true));
      const auto grads = tape.gradient(loss, variables);
      CHECK(loss.item<float>() ==
            Approx(fixture["losses"].array()[static_cast<std::size_t>(k)].number()).epsilon(1e-6));
      auto holder = seed_cnn();
      holder->load_weights(
          fmt::format("{}/seed_cnn_gradients_{}.weights.h5", EAGLE_FIXTURE_DIR, k));
      const std::vector<Tensor> keras_grads = holder->get_weights();
      REQUIRE(keras_grads.size() == variables.size());
      std::vector<std::optional<Tensor>> keras_grads_here;
      for (std::size_t v = 0; v < variables.size(); ++v) {
        INFO(variables[v].name());
        const std::vector<float> want = keras_grads[v].to_vector<float>();
        const std::vector<float> got = grads[v]->to_vector<float>();
        double largest = 0;
        for (const float w : want) largest = std::max(largest, std::abs(static_cast<double>(w)));
        CHECK(max_difference(got, want) <= 1e-5 * largest);
        keras_grads_here.emplace_back(eagle::identity(keras_grads[v]));
      }
      adam.apply_gradients(keras_grads_here, variables);
    }
    auto after = seed_cnn();
    after->load_weights(std::string(EAGLE_FIXTURE_DIR) + "/seed_cnn_after_steps.weights.h5");
    const std::vector<Tensor> keras_weights = after->get_weights();
    const std::vector<Tensor> eagle_weights = model->get_weights();
    REQUIRE(keras_weights.size() == eagle_weights.size());
    for (std::size_t v = 0; v < keras_weights.size(); ++v) {
      INFO("weight " << v);
      CHECK(eagle_weights[v].to_vector<float>() == keras_weights[v].to_vector<float>());
    }
  }
}
