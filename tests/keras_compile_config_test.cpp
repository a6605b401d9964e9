// Keras's configurations of optimizers, schedules, losses, metrics and compile(), against what
// Keras 3 writes (tests/tools/gen_keras_compile_config_fixture.py), and .keras files that keep a
// compiled model's compile_config and optimizer state: Keras's file resumes training in eagle
// where Keras stopped, eagle's own round-trips bit for bit. Skipped without HDF5 where a file is
// written or read. With EAGLE_KERAS_COMPILED_OUT=DIR set, eagle's compiled file is left there for
// tests/tools/check_keras_compiled_file.py (Keras loads it and resumes training).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "eagle/io/json.hpp"
#include "io/keras_weights_file.hpp"
#include "keras_test_support.hpp"

namespace {

using eagle::Tensor;
using eagle::io::Json;
using eagle_test::formula_values;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;
namespace optimizers = eagle::optimizers;
namespace schedules = eagle::optimizers::schedules;

const Json& fixture() {
  static const Json parsed = [] {
    std::ifstream in(std::string(EAGLE_FIXTURE_DIR) + "/keras_configs.json");
    return Json::parse(
        std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
  }();
  return parsed;
}

const Json& expected(const std::string& section, const std::string& name) {
  const Json* group = fixture().find(section);
  REQUIRE(group != nullptr);
  const Json* entry = group->find(name);
  REQUIRE(entry != nullptr);
  return *entry;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("eagle_compile_config_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// The generator's optimizers, built with eagle's options.
std::map<std::string, std::function<std::shared_ptr<optimizers::Optimizer>()>> optimizer_cases() {
  using namespace optimizers;  // NOLINT: the option structs, as the generator names them
  return {
      {"sgd", [] { return std::make_shared<SGD>(); }},
      {"adam", [] { return std::make_shared<Adam>(); }},
      {"adamw", [] { return std::make_shared<AdamW>(); }},
      {"rmsprop", [] { return std::make_shared<RMSprop>(); }},
      {"adagrad", [] { return std::make_shared<Adagrad>(); }},
      {"adamax", [] { return std::make_shared<Adamax>(); }},
      {"nadam", [] { return std::make_shared<Nadam>(); }},
      {"adadelta", [] { return std::make_shared<Adadelta>(); }},
      {"lion", [] { return std::make_shared<Lion>(); }},
      {"lamb", [] { return std::make_shared<Lamb>(); }},
      {"adam_options",
       [] {
         AdamOptions o;
         o.learning_rate = 0.01;
         o.beta_1 = 0.8;
         o.epsilon = 1e-5;
         o.amsgrad = true;
         o.clip.clipnorm = 1.0;
         o.base.use_ema = true;
         o.base.ema_momentum = 0.9;
         o.base.ema_overwrite_frequency = 10;
         o.base.gradient_accumulation_steps = 4;
         o.base.weight_decay = 0.01;
         return std::make_shared<Adam>(o);
       }},
      {"sgd_momentum",
       [] {
         SGDOptions o;
         o.learning_rate = 0.1;
         o.momentum = 0.9;
         o.nesterov = true;
         o.clip.global_clipnorm = 2.0;
         return std::make_shared<SGD>(o);
       }},
      {"rmsprop_centered",
       [] {
         RMSpropOptions o;
         o.learning_rate = 0.005;
         o.rho = 0.8;
         o.momentum = 0.5;
         o.centered = true;
         o.clip.clipvalue = 0.5;
         return std::make_shared<RMSprop>(o);
       }},
      {"adamw_decay",
       [] {
         AdamWOptions o;
         o.weight_decay = 0.1;
         return std::make_shared<AdamW>(o);
       }},
      {"exponential",
       [] { return std::make_shared<Adam>(schedules::ExponentialDecay(0.1, 10, 0.9, true)); }},
      {"piecewise",
       [] {
         return std::make_shared<SGD>(
             schedules::PiecewiseConstantDecay({10, 20}, {0.1, 0.01, 0.001}));
       }},
      {"inverse_time",
       [] { return std::make_shared<SGD>(schedules::InverseTimeDecay(0.1, 10, 0.5)); }},
      {"polynomial",
       [] {
         return std::make_shared<SGD>(schedules::PolynomialDecay(0.1, 100, 0.001, 2.0, true));
       }},
      {"cosine",
       [] { return std::make_shared<Adam>(schedules::CosineDecay(0.0, 100, 0.1, 0.1, 10)); }},
      {"cosine_restarts",
       [] { return std::make_shared<Adam>(schedules::CosineDecayRestarts(0.1, 100, 1.5, 0.9)); }},
  };
}

using eagle_test::optimizer_state_model;

void train(keras::Sequential& model, int steps) {
  eagle_test::train_optimizer_state_model(model, steps);
}

std::vector<std::vector<float>> values_of(const std::vector<eagle::Variable>& variables) {
  std::vector<std::vector<float>> out;
  for (const eagle::Variable& v : variables) {
    out.push_back(eagle::cast(v.read_value(), eagle::kFloat32).to_vector<float>());
  }
  return out;
}

}  // namespace

TEST_CASE("keras optimizer configs are Keras 3's, key for key, and read back") {
  for (const auto& [name, make] : optimizer_cases()) {
    INFO(name);
    const std::shared_ptr<optimizers::Optimizer> optimizer = make();
    const Json& want = expected("optimizers", name);
    CHECK(optimizers::serialize(*optimizer).dump() == want.dump());
    // Keras's config builds the same optimizer, which writes the same config.
    const std::shared_ptr<optimizers::Optimizer> read = optimizers::deserialize(want);
    CHECK(read->name() == optimizer->name());
    CHECK(optimizers::serialize(*read).dump() == want.dump());
  }
  // A schedule read back computes what it did.
  const auto schedule = schedules::deserialize(
      *expected("optimizers", "cosine").find("config")->find("learning_rate"));
  const auto original = schedules::CosineDecay(0.0, 100, 0.1, 0.1, 10);
  for (std::int64_t step : {0, 5, 10, 50, 110, 200}) CHECK(schedule(step) == original(step));
}

TEST_CASE("keras optimizer configs: set_learning_rate shows, and what has no config is refused") {
  optimizers::Adam adam(0.01);
  adam.set_learning_rate(0.5);
  CHECK(adam.get_config().find("learning_rate")->dump() == "0.5");
  optimizers::SGD custom([](std::int64_t step) { return 1.0 / static_cast<double>(step + 1); });
  CHECK_THROWS_MATCHES(
      custom.get_config(), eagle::UnimplementedError,
      Catch::Message("The learning rate of optimizer 'sgd' is a function with no configuration: "
                     "only the schedules of eagle::optimizers::schedules can be serialized "
                     "(Keras: a LearningRateSchedule must implement get_config)"));
  CHECK_THROWS_MATCHES(optimizers::deserialize(Json::parse(
                           R"({"class_name": "Adam", "config": {"beta_1": 0.9, "foo": 1}})")),
                       eagle::InvalidArgumentError,
                       Catch::Message("Adam.__init__() got an unexpected keyword argument 'foo'"));
  CHECK_THROWS_MATCHES(
      optimizers::deserialize(Json::parse(R"({"class_name": "Adam", "config": {"beta_1": "x"}})")),
      eagle::InvalidArgumentError,
      Catch::Message("Adam's configuration: 'beta_1' must be a number, not string"));
  CHECK_THROWS_MATCHES(
      optimizers::deserialize(Json::parse(R"({"class_name": "Ftrl", "config": {}})")),
      eagle::UnimplementedError,
      Catch::Message("Could not locate class 'Ftrl'. eagle's optimizers are SGD, Adam, AdamW, "
                     "RMSprop, Adagrad, Adamax, Nadam, Adadelta, Lion and Lamb"));
  CHECK_THROWS_MATCHES(optimizers::deserialize(Json::parse(
                           R"({"class_name": "SGD", "config": {"loss_scale_factor": 128.0}})")),
                       eagle::UnimplementedError,
                       Catch::Message("SGD: loss_scale_factor is not supported by eagle's "
                                      "optimizers (no loss scaling)"));
  // A name, as compile takes one.
  CHECK(optimizers::deserialize(Json("RMSprop"))->name() == "RMSprop");
}

TEST_CASE("keras loss and metric configs are Keras 3's, and read back") {
  namespace losses = keras::losses;
  namespace metrics = keras::metrics;
  const std::map<std::string, std::shared_ptr<losses::Loss>> loss_cases{
      {"sparse_logits", std::make_shared<losses::SparseCategoricalCrossentropy>(true)},
      {"categorical", std::make_shared<losses::CategoricalCrossentropy>()},
      {"binary_sum", std::make_shared<losses::BinaryCrossentropy>(true, "sum")},
      {"mse", std::make_shared<losses::MeanSquaredError>()},
      {"mae_none", std::make_shared<losses::MeanAbsoluteError>("none")}};
  for (const auto& [name, loss] : loss_cases) {
    INFO(name);
    const Json& want = expected("losses", name);
    CHECK(losses::serialize(*loss).dump() == want.dump());
    CHECK(losses::serialize(*losses::deserialize(want)).dump() == want.dump());
  }
  const std::map<std::string, std::shared_ptr<metrics::Metric>> metric_cases{
      {"sparse_accuracy", std::make_shared<metrics::SparseCategoricalAccuracy>()},
      {"mean", std::make_shared<metrics::Mean>("m")},
      {"categorical_accuracy", std::make_shared<metrics::CategoricalAccuracy>()},
      {"binary_accuracy", std::make_shared<metrics::BinaryAccuracy>("binary_accuracy", 0.7)}};
  for (const auto& [name, metric] : metric_cases) {
    INFO(name);
    const Json& want = expected("metrics", name);
    CHECK(metrics::serialize(*metric).dump() == want.dump());
    CHECK(metrics::serialize(*metrics::deserialize(want)).dump() == want.dump());
  }
  CHECK_THROWS_MATCHES(
      losses::deserialize(Json::parse(
          R"({"class_name": "CategoricalCrossentropy", "config": {"label_smoothing": 0.1}})")),
      eagle::UnimplementedError,
      Catch::Message("CategoricalCrossentropy: eagle's loss does not support label_smoothing=0.1"));
}

TEST_CASE("keras get_compile_config is Keras 3's, and compile_from_config compiles alike") {
  keras::Sequential model;
  model.add(layers::Input({4}));
  model.add(layers::Dense(3));
  CHECK_FALSE(model.get_compile_config().has_value());
  model.compile(
      std::make_shared<optimizers::Adam>(0.01), keras::losses::SparseCategoricalCrossentropy(true),
      {"accuracy", std::shared_ptr<keras::metrics::Metric>(
                       std::make_shared<keras::metrics::SparseCategoricalAccuracy>("acc2"))});
  const Json& want = *fixture().find("compile_config");
  CHECK(model.get_compile_config()->dump() == want.dump());

  keras::Sequential other;
  other.add(layers::Input({4}));
  other.add(layers::Dense(3));
  other.compile_from_config(want);
  CHECK(other.get_compile_config()->dump() == want.dump());
  // Built, so the optimizer is built too (Keras's compile_from_config): 2 + 2 slots per weight.
  CHECK(other.optimizer()->variables().size() == 6);
}

TEST_CASE("keras load_model of Keras's compiled file resumes training where Keras stopped") {
  if (!eagle::io::keras_weights_supported()) return;
  keras::backend::clear_session();
  std::unique_ptr<keras::Sequential> model =
      keras::models::load_model(std::string(EAGLE_FIXTURE_DIR) + "/compiled_model.keras");
  REQUIRE(model->compiled());
  CHECK(model->optimizer()->name() == "Adam");
  CHECK(model->optimizer()->iterations() == 3);
  CHECK(model->optimizer()->learning_rate() == static_cast<double>(0.01f));
  CHECK(model->metrics_names() == std::vector<std::string>{"loss", "mae"});
  train(*model, 1);
  const Json& after = *fixture().find("after_fourth_step");
  const auto weights = model->get_weights();
  REQUIRE(weights.size() == after.as_array().size());
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const std::vector<float> got = weights[i].to_vector<float>();
    const auto& want = after.as_array()[i].as_array();
    REQUIRE(got.size() == want.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      INFO("weight " << i << "[" << k << "]");
      CHECK(std::abs(got[k] - want[k].as_number()) <= 1e-6 * std::abs(want[k].as_number()) + 1e-9);
    }
  }
}

TEST_CASE("keras save and load_model keep compile settings and optimizer state: bit for bit") {
  if (!eagle::io::keras_weights_supported()) return;
  keras::backend::clear_session();
  const std::string path = temp_path("nadam.keras");
  auto model = optimizer_state_model();
  optimizers::NadamOptions options;
  options.learning_rate = schedules::ExponentialDecay(0.01, 2, 0.5);
  options.base.use_ema = true;
  model->compile(std::make_shared<optimizers::Nadam>(options), "mse", {"mae"});
  train(*model, 3);
  model->save(path);

  std::unique_ptr<keras::Sequential> loaded = keras::models::load_model(path);
  REQUIRE(loaded->compiled());
  CHECK(loaded->get_compile_config()->dump() == model->get_compile_config()->dump());
  const auto saved_state = values_of(model->optimizer()->variables());
  CHECK(values_of(loaded->optimizer()->variables()) == saved_state);
  train(*model, 2);
  train(*loaded, 2);
  const auto want = model->get_weights();
  const auto got = loaded->get_weights();
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(got[i].to_vector<float>() == want[i].to_vector<float>());
  }
  // For tests/tools/check_keras_compiled_file.py: Keras loads the file, finds the optimizer's
  // state, and trains the two steps to eagle's weights.
  if (const char* out = std::getenv("EAGLE_KERAS_COMPILED_OUT")) {
    std::filesystem::create_directories(out);
    std::filesystem::copy_file(path, std::string(out) + "/eagle_compiled.keras",
                               std::filesystem::copy_options::overwrite_existing);
    Json state = Json::array();
    for (const auto& v : saved_state) {
      Json values = Json::array();
      for (float x : v) values.push_back(static_cast<double>(x));
      state.push_back(std::move(values));
    }
    Json weights = Json::array();
    for (const Tensor& w : want) {
      Json values = Json::array();
      for (float x : w.to_vector<float>()) values.push_back(static_cast<double>(x));
      weights.push_back(std::move(values));
    }
    std::ofstream(std::string(out) + "/eagle_compiled.json")
        << Json::object().set("optimizer_variables", state).set("after_two_steps", weights).dump()
        << "\n";
  }
  std::filesystem::remove(path);

  // What cannot be written is refused before anything is: a loss of the user's.
  struct Halved : keras::losses::Loss {
    Tensor call(const Tensor& y, const Tensor& p) const override {
      return eagle::reduce_mean(eagle::square(p - y), {-1});
    }
    std::string name() const override { return "halved"; }
  };
  auto custom = optimizer_state_model();
  custom->compile("sgd", std::shared_ptr<keras::losses::Loss>(std::make_shared<Halved>()));
  CHECK_THROWS_MATCHES(custom->save(path), eagle::UnimplementedError,
                       Catch::Message("Loss 'halved' has no Keras class, so it cannot be "
                                      "serialized: compile with a loss's name or one of eagle's "
                                      "loss classes"));
  CHECK_FALSE(std::filesystem::exists(path));
}
