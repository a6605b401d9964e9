// The Keras optimizers against Keras 3 itself (tests/fixtures/keras3_optimizers.json, written by
// tests/tools/gen_keras3_optimizer_fixture.py on TensorFlow's backend): 25 steps of fixed
// gradients from 1e-8 to 1e3, zeros and sign changes, each optimizer at Keras's defaults. The
// variable and every slot must equal Keras's bit for bit after every step, on the CPU and a
// simulated GPU (Note [Keras 3 arithmetic] in src/kernels/optimizer_functors.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"
#include "json_reader.hpp"

namespace {

using eagle::Variable;
using eagle_test::Json;
namespace opt = eagle::optimizers;

float from_bits(const Json& hex) {
  const auto bits = static_cast<std::uint32_t>(std::stoul(hex.str(), nullptr, 16));
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::vector<float> floats(const Json& hexes) {
  std::vector<float> out;
  for (const Json& h : hexes.array()) out.push_back(from_bits(h));
  return out;
}

// Distance in units in the last place between two finite floats (0: the same bits, or 0 and -0).
std::int64_t ulps(float a, float b) {
  const auto ordered = [](float f) {
    std::int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? std::int64_t{INT32_MIN} - i : std::int64_t{i};
  };
  return std::llabs(ordered(a) - ordered(b));
}

double option(const Json& config, const std::string& key) { return config[key].number(); }

// The eagle optimizer for a Keras 3 get_config(), and Keras's slot names to eagle's.
struct Case {
  std::unique_ptr<opt::Optimizer> optimizer;
  std::map<std::string, std::string> slots;
};

Case make(const std::string& name, const Json& c) {
  const std::string cls = name.substr(0, name.find('_'));
  if (cls == "sgd") {
    opt::SGDOptions o;
    o.learning_rate = option(c, "learning_rate");
    o.momentum = option(c, "momentum");
    o.nesterov = c["nesterov"].boolean();
    return {std::make_unique<opt::SGD>(o), {{"momentum", "momentum"}}};
  }
  if (cls == "adam") {
    opt::AdamOptions o;
    o.learning_rate = option(c, "learning_rate");
    o.beta_1 = option(c, "beta_1");
    o.beta_2 = option(c, "beta_2");
    o.epsilon = option(c, "epsilon");
    o.amsgrad = c["amsgrad"].boolean();
    return {std::make_unique<opt::Adam>(o),
            {{"momentum", "m"}, {"velocity", "v"}, {"velocity_hat", "vhat"}}};
  }
  if (cls == "rmsprop") {
    opt::RMSpropOptions o;
    o.learning_rate = option(c, "learning_rate");
    o.rho = option(c, "rho");
    o.momentum = option(c, "momentum");
    o.epsilon = option(c, "epsilon");
    o.centered = c["centered"].boolean();
    return {std::make_unique<opt::RMSprop>(o),
            {{"velocity", "rms"}, {"average_gradient", "mg"}, {"momentum", "momentum"}}};
  }
  if (cls == "adagrad") {
    opt::AdagradOptions o;
    o.learning_rate = option(c, "learning_rate");
    o.initial_accumulator_value = option(c, "initial_accumulator_value");
    o.epsilon = option(c, "epsilon");
    return {std::make_unique<opt::Adagrad>(o), {{"accumulator", "accumulator"}}};
  }
  if (cls == "adamw") {
    opt::AdamWOptions o;
    o.learning_rate = option(c, "learning_rate");
    o.weight_decay = option(c, "weight_decay");
    o.beta_1 = option(c, "beta_1");
    o.beta_2 = option(c, "beta_2");
    o.epsilon = option(c, "epsilon");
    o.amsgrad = c["amsgrad"].boolean();
    return {std::make_unique<opt::AdamW>(o),
            {{"momentum", "m"}, {"velocity", "v"}, {"velocity_hat", "vhat"}}};
  }
  if (cls == "adamax") {
    opt::AdamaxOptions o;
    o.learning_rate = option(c, "learning_rate");
    o.beta_1 = option(c, "beta_1");
    o.beta_2 = option(c, "beta_2");
    o.epsilon = option(c, "epsilon");
    return {std::make_unique<opt::Adamax>(o), {{"momentum", "momentum"}, {"norm", "norm"}}};
  }
  if (cls == "nadam") {
    opt::NadamOptions o;
    o.learning_rate = option(c, "learning_rate");
    o.beta_1 = option(c, "beta_1");
    o.beta_2 = option(c, "beta_2");
    o.epsilon = option(c, "epsilon");
    return {std::make_unique<opt::Nadam>(o), {{"momentum", "momentum"}, {"velocity", "velocity"}}};
  }
  if (cls == "adadelta") {
    opt::AdadeltaOptions o;
    o.learning_rate = option(c, "learning_rate");
    o.rho = option(c, "rho");
    o.epsilon = option(c, "epsilon");
    return {std::make_unique<opt::Adadelta>(o),
            {{"accumulated_grad", "accumulated_grad"},
             {"accumulated_delta_var", "accumulated_delta_var"}}};
  }
  REQUIRE(cls == "lion");
  opt::LionOptions o;
  o.learning_rate = option(c, "learning_rate");
  o.beta_1 = option(c, "beta_1");
  o.beta_2 = option(c, "beta_2");
  return {std::make_unique<opt::Lion>(o), {{"momentum", "momentum"}}};
}

// Every optimizer of the fixture but Lamb, whose norms sum in TensorFlow's reduction order.
const std::vector<std::string> kSupported = {"sgd",
                                             "sgd_momentum",
                                             "sgd_nesterov",
                                             "adam",
                                             "adam_amsgrad",
                                             "rmsprop",
                                             "rmsprop_centered",
                                             "rmsprop_momentum",
                                             "rmsprop_centered_momentum",
                                             "adagrad",
                                             "adamw",
                                             "adamax",
                                             "nadam",
                                             "adadelta",
                                             "lion"};

void replay(const std::string& device) {
  const Json fixture = Json::parse_file(EAGLE_FIXTURE_DIR "/keras3_optimizers.json");
  const std::vector<float> initial = floats(fixture["initial"]);
  std::vector<std::vector<float>> gradients;
  for (const Json& g : fixture["gradients"].array()) gradients.push_back(floats(g));
  auto scope = eagle::device(device);
  for (const std::string& name : kSupported) {
    const Json& expected = fixture["optimizers"][name];
    Case c = make(name, expected["config"]);
    Variable var(eagle::constant(initial), {"w"});
    const auto& steps = expected["steps"].array();
    REQUIRE(steps.size() == gradients.size());
    for (std::size_t step = 0; step < steps.size(); ++step) {
      c.optimizer->apply_gradients({{eagle::constant(gradients[step]), var}});
      const auto check = [&](const std::string& what, const std::vector<float>& got,
                             const Json& want_hex) {
        const std::vector<float> want = floats(want_hex);
        REQUIRE(got.size() == want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
          INFO(name << " on " << device << ", step " << step + 1 << ", " << what << "[" << i
                    << "]: eagle " << got[i] << ", Keras " << want[i]);
          CHECK(ulps(got[i], want[i]) == 0);
        }
      };
      check("variable", var.read_value().to_vector<float>(), steps[step]["variable"]);
      for (const auto& [keras_slot, want] : steps[step]["slots"].object()) {
        const std::string& slot = c.slots.at(keras_slot);
        check(slot, c.optimizer->get_slot(var, slot).read_value().to_vector<float>(), want);
      }
    }
    CHECK(c.optimizer->iterations() == static_cast<std::int64_t>(steps.size()));
  }
}

}  // namespace

TEST_CASE("Keras 3's optimizers step for step, bit for bit, on the CPU") { replay("/CPU:0"); }

TEST_CASE("Keras 3's optimizers step for step, bit for bit, on a GPU") { replay("/GPU:0"); }

// The legacy classes keep Keras 2's arithmetic, which Keras 3 changed: over the fixture's 25 steps
// they part from Keras 3 (RMSprop's epsilon inside the root, Adam's float32 constants), while the
// Keras 3 classes do not.
TEST_CASE("the legacy optimizers compute Keras 2's update, not Keras 3's") {
  const Json fixture = Json::parse_file(EAGLE_FIXTURE_DIR "/keras3_optimizers.json");
  const std::vector<float> initial = floats(fixture["initial"]);
  const auto max_ulps = [&](opt::Optimizer& optimizer, const std::string& name) {
    Variable var(eagle::constant(initial), {"w"});
    const auto& steps = fixture["optimizers"][name]["steps"].array();
    std::int64_t most = 0;
    for (std::size_t step = 0; step < steps.size(); ++step) {
      const std::vector<float> g = floats(fixture["gradients"].array()[step]);
      optimizer.apply_gradients({{eagle::constant(g), var}});
      const std::vector<float> got = var.read_value().to_vector<float>();
      const std::vector<float> want = floats(steps[step]["variable"]);
      for (std::size_t i = 0; i < got.size(); ++i) most = std::max(most, ulps(got[i], want[i]));
    }
    return most;
  };
  opt::RMSprop rmsprop;
  opt::legacy::RMSprop legacy_rmsprop;
  CHECK(max_ulps(rmsprop, "rmsprop") == 0);
  CHECK(max_ulps(legacy_rmsprop, "rmsprop") > 1000);
  opt::Adam adam;
  opt::legacy::Adam legacy_adam;
  CHECK(max_ulps(adam, "adam") == 0);
  CHECK(max_ulps(legacy_adam, "adam") > 0);
}

TEST_CASE("Keras's names, defaults and argument checks for AdamW, Adamax, Nadam, Adadelta, Lion") {
  CHECK(opt::AdamW().name() == "AdamW");
  CHECK(opt::AdamW().learning_rate() == 0.001);
  CHECK(opt::Adamax().name() == "Adamax");
  CHECK(opt::Nadam().name() == "Nadam");
  CHECK(opt::Adadelta().name() == "Adadelta");
  CHECK(opt::Adadelta().learning_rate() == 0.001);
  CHECK(opt::Lion().name() == "Lion");
  CHECK(opt::Lion(0.0003).learning_rate() == 0.0003);
  // Keras's slot names.
  Variable w(eagle::constant({1.0f, 2.0f}), {"w"});
  opt::Adadelta adadelta;
  adadelta.apply_gradients({{eagle::constant({0.5f, -0.5f}), w}});
  CHECK(adadelta.get_slot(w, "accumulated_grad").shape() == w.shape());
  CHECK(adadelta.get_slot(w, "accumulated_delta_var").shape() == w.shape());
  try {
    opt::LionOptions options;
    options.beta_1 = 1.5;
    opt::Lion lion(options);
    FAIL("Lion accepted beta_1 = 1.5");
  } catch (const eagle::InvalidArgumentError& e) {
    CHECK(std::string(e.what()) ==
          "Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates to "
          "SignSGD. Received: beta_1=1.5.");
  }
}
