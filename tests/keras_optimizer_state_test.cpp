// The optimizer's state in Keras 3's .weights.h5 files: eagle trains the fixture's model
// (tests/tools/gen_keras_optimizer_state_fixture.py) to the optimizer variables Keras saved, on
// the CPU and a simulated GPU; a compiled model's load_weights takes them (building an optimizer
// not built yet) so that training resumes bit for bit; Keras's warning when the counts differ.
// Skipped in a build without HDF5.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "io/keras_weights_file.hpp"
#include "keras_test_support.hpp"

namespace {

using eagle::Tensor;
using eagle_test::formula_values;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;
namespace optimizers = eagle::optimizers;

using MakeOptimizer = std::function<std::shared_ptr<optimizers::Optimizer>()>;

std::string fixture(const std::string& optimizer) {
  return std::string(EAGLE_FIXTURE_DIR) + "/optimizer_state_" + optimizer + ".weights.h5";
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("eagle_optimizer_state_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// The generator's model, compiled with `optimizer` and "mse".
std::unique_ptr<keras::Sequential> fixture_model(const MakeOptimizer& optimizer) {
  auto model = eagle_test::optimizer_state_model();
  model->compile(optimizer(), "mse");
  return model;
}

void train(keras::Sequential& model, int steps) {
  eagle_test::train_optimizer_state_model(model, steps);
}

std::vector<std::vector<float>> optimizer_values(const keras::Sequential& model) {
  std::vector<std::vector<float>> out;
  for (const eagle::Variable& v : model.optimizer()->variables()) {
    out.push_back(eagle::cast(v.read_value(), eagle::kFloat32).to_vector<float>());
  }
  return out;
}

struct Case {
  std::string name;
  MakeOptimizer make;
};

std::vector<Case> cases() {
  return {{"adam", [] { return std::make_shared<optimizers::Adam>(0.01); }},
          {"nadam", [] { return std::make_shared<optimizers::Nadam>(0.01); }}};
}

}  // namespace

TEST_CASE("keras optimizer state: eagle's optimizer variables after 3 steps are Keras 3's") {
  if (!eagle::io::keras_weights_supported()) return;
  std::vector<std::string> devices{"/CPU:0"};
  if (!eagle::config::list_logical_devices("GPU").empty()) devices.push_back("/GPU:0");
  for (const Case& c : cases()) {
    const auto saved = eagle::io::load_keras_weights(fixture(c.name));
    const eagle::io::LayerWeights* group = nullptr;
    for (const auto& g : saved) {
      if (g.path == "optimizer") group = &g;
    }
    REQUIRE(group != nullptr);
    CHECK(group->name == c.name);
    for (const std::string& device : devices) {
      INFO(c.name << " on " << device);
      auto scope = eagle::device(device);
      keras::backend::clear_session();
      auto model = fixture_model(c.make);
      train(*model, 3);
      CHECK(model->optimizer()->iterations() == 3);
      const auto got = optimizer_values(*model);
      // Keras's order: iteration, learning_rate, each variable's slots (Nadam: u_product last).
      REQUIRE(got.size() == group->weights.size());
      CHECK(got.size() == (c.name == "adam" ? 10u : 11u));
      for (std::size_t i = 0; i < got.size(); ++i) {
        const std::vector<float> want =
            eagle::cast(group->weights[i], eagle::kFloat32).to_vector<float>();
        REQUIRE(got[i].size() == want.size());
        for (std::size_t k = 0; k < want.size(); ++k) {
          INFO("optimizer/vars/" << i << "[" << k << "]");
          // The counter, the learning rate and u_product exactly; the slots to float32 rounding.
          CHECK(std::abs(got[i][k] - want[k]) <= 4e-7 * std::abs(want[k]));
        }
      }
      CHECK(got[0] == std::vector<float>{3});
      CHECK(got[1] == std::vector<float>{0.01f});
    }
  }
}

TEST_CASE("keras load_weights gives a compiled model the optimizer's state: training resumes") {
  if (!eagle::io::keras_weights_supported()) return;
  for (const Case& c : cases()) {
    INFO(c.name);
    keras::backend::clear_session();
    const std::string path = temp_path(c.name + ".weights.h5");
    auto trained = fixture_model(c.make);
    train(*trained, 3);
    trained->save_weights(path);

    // A fresh model compiled with a fresh optimizer (not built: 2 variables) takes the state.
    auto resumed = fixture_model(c.make);
    CHECK_FALSE(resumed->optimizer()->built());
    resumed->load_weights(path);
    CHECK(resumed->optimizer()->iterations() == 3);
    CHECK(optimizer_values(*resumed) == optimizer_values(*trained));

    train(*trained, 2);
    train(*resumed, 2);
    const auto want = trained->get_weights();
    const auto got = resumed->get_weights();
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      CHECK(got[i].to_vector<float>() == want[i].to_vector<float>());
    }
    CHECK(optimizer_values(*resumed) == optimizer_values(*trained));

    // Keras's own file loads the same way: its variables, as saved.
    auto from_keras = fixture_model(c.make);
    from_keras->load_weights(fixture(c.name));
    CHECK(from_keras->optimizer()->iterations() == 3);
    std::vector<std::vector<float>> in_file;
    for (const auto& g : eagle::io::load_keras_weights(fixture(c.name))) {
      if (g.path != "optimizer") continue;
      for (const Tensor& t : g.weights) {
        in_file.push_back(eagle::cast(t, eagle::kFloat32).to_vector<float>());
      }
    }
    CHECK(optimizer_values(*from_keras) == in_file);
    std::remove(path.c_str());
  }
}

TEST_CASE("keras load_weights skips an optimizer state of another count, with Keras's warning") {
  if (!eagle::io::keras_weights_supported()) return;
  keras::backend::clear_session();
  const std::string uncompiled = temp_path("uncompiled.weights.h5");
  {
    keras::Sequential plain;
    plain.add(layers::Input({4}));
    plain.add(layers::Dense(3, "relu"));
    plain.add(layers::Dense(2));
    plain.save_weights(uncompiled);
    // An uncompiled model's file has no optimizer group.
    for (const auto& g : eagle::io::load_keras_weights(uncompiled)) CHECK(g.path != "optimizer");
  }
  eagle_test::LevelLog log;
  auto adam = fixture_model([] { return std::make_shared<optimizers::Adam>(0.01); });
  adam->load_weights(uncompiled);
  CHECK(log.take() == std::vector<std::string>{
                          "WARNING:eagle:Skipping variable loading for optimizer 'adam', because "
                          "it has 2 variables whereas the saved optimizer has 0 variables."});
  CHECK_FALSE(adam->optimizer()->built());

  // Adam's 10 variables into plain SGD, which has no slots: built, it still has 2.
  auto sgd = fixture_model([] { return std::make_shared<optimizers::SGD>(0.1); });
  sgd->load_weights(fixture("adam"));
  CHECK(log.take() == std::vector<std::string>{
                          "WARNING:eagle:Skipping variable loading for optimizer 'sgd', because "
                          "it has 2 variables whereas the saved optimizer has 10 variables."});
  CHECK(sgd->optimizer()->iterations() == 0);
  // The layers' weights are loaded all the same.
  auto keras_trained = fixture_model([] { return std::make_shared<optimizers::Adam>(0.01); });
  keras_trained->load_weights(fixture("adam"));
  CHECK(sgd->get_weights()[0].to_vector<float>() ==
        keras_trained->get_weights()[0].to_vector<float>());
  std::remove(uncompiled.c_str());
}

TEST_CASE("keras Nadam keeps u_product as its last variable, recomputed from a restored counter") {
  if (!eagle::io::keras_weights_supported()) return;
  keras::backend::clear_session();
  auto model = fixture_model([] { return std::make_shared<optimizers::Nadam>(0.01); });
  train(*model, 3);
  const auto after_three = optimizer_values(*model);
  // Keras's u_product after step t: the float32 product of beta_1 * (1 - 0.5 * 0.96^i), i <= t.
  float product = 1.0f;
  for (int i = 1; i <= 3; ++i) {
    product = product * 0.9f * (1.0f - 0.5f * std::pow(0.96f, static_cast<float>(i)));
  }
  CHECK(after_three.back() == std::vector<float>{product});
  train(*model, 2);
  // Back to step 3 (as a restored checkpoint sets it), the next step computes from step 4's
  // product again, not step 6's.
  auto twin = fixture_model([] { return std::make_shared<optimizers::Nadam>(0.01); });
  train(*twin, 3);
  const std::string path = temp_path("nadam.weights.h5");
  twin->save_weights(path);
  model->load_weights(path);
  CHECK(optimizer_values(*model) == after_three);
  train(*model, 1);
  train(*twin, 1);
  CHECK(optimizer_values(*model) == optimizer_values(*twin));
  CHECK(model->get_weights()[0].to_vector<float>() == twin->get_weights()[0].to_vector<float>());
  std::remove(path.c_str());
}
