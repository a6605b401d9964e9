// The legacy (Keras 2) optimizers against TensorFlow's own update kernels
// (tests/fixtures/tf_optimizers.json, 20 steps of each optimizer and option), on the CPU and a
// simulated GPU; the log, slots, skipped and bad gradients, clipping, schedules, minimize. Keras
// 3's arithmetic: keras3_optimizer_test.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "json_reader.hpp"

namespace {

using eagle::Tensor;
using eagle::Variable;
using eagle_test::Json;
namespace opt = eagle::optimizers;

const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";

double option(const Json& o, const std::string& key, double fallback) {
  return o.has(key) ? (o[key].is_bool() ? (o[key].boolean() ? 1 : 0) : o[key].number()) : fallback;
}

std::unique_ptr<opt::Optimizer> make(const std::string& name, const Json& o) {
  if (name == "SGD") {
    opt::SGDOptions s;
    s.learning_rate = option(o, "learning_rate", 0.01);
    s.momentum = option(o, "momentum", 0.0);
    s.nesterov = option(o, "nesterov", 0) != 0;
    return std::make_unique<opt::SGD>(s);
  }
  if (name == "Adam") {
    opt::AdamOptions a;
    a.learning_rate = option(o, "learning_rate", 0.001);
    a.beta_1 = option(o, "beta_1", 0.9);
    a.beta_2 = option(o, "beta_2", 0.999);
    a.epsilon = option(o, "epsilon", 1e-7);
    a.amsgrad = option(o, "amsgrad", 0) != 0;
    return std::make_unique<opt::legacy::Adam>(a);
  }
  if (name == "RMSprop") {
    opt::RMSpropOptions r;
    r.learning_rate = option(o, "learning_rate", 0.001);
    r.momentum = option(o, "momentum", 0.0);
    r.centered = option(o, "centered", 0) != 0;
    return std::make_unique<opt::legacy::RMSprop>(r);
  }
  opt::AdagradOptions a;
  a.learning_rate = option(o, "learning_rate", 0.001);
  a.initial_accumulator_value = option(o, "initial_accumulator_value", 0.1);
  return std::make_unique<opt::legacy::Adagrad>(a);
}

void replay(const char* device) {
  const Json fixture = Json::parse_file(EAGLE_FIXTURE_DIR "/tf_optimizers.json");
  std::vector<float> init;
  for (const Json& v : fixture["init"].array()) init.push_back(static_cast<float>(v.number()));
  auto scope = eagle::device(device);
  for (const Json& c : fixture["cases"].array()) {
    auto optimizer = make(c["name"].str(), c["options"]);
    Variable var(eagle::constant(init), {"w"});
    int step = 0;
    for (const Json& expected : c["trajectory"].array()) {
      ++step;
      std::vector<float> v = var.read_value().to_vector<float>();
      std::vector<float> g(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) {
        g[i] = 0.3f * v[i] + 0.1f * static_cast<float>(step) - 0.2f;
      }
      optimizer->apply_gradients({{eagle::constant(g), var}});
      v = var.read_value().to_vector<float>();
      for (std::size_t i = 0; i < v.size(); ++i) {
        INFO(c["name"].str() << " case step " << step << " element " << i);
        CHECK(v[i] == Approx(expected.array()[i].number()).epsilon(1e-5).margin(1e-6));
      }
    }
    CHECK(optimizer->iterations() == 20);
  }
}

}  // namespace

TEST_CASE(
    "every legacy optimizer and option follows TensorFlow's kernels for 20 steps on the CPU") {
  replay("/CPU:0");
}

TEST_CASE("every legacy optimizer and option follows TensorFlow's kernels for 20 steps on a GPU") {
  replay("/GPU:0");
}

TEST_CASE("Keras's defaults") {
  opt::Adam adam;
  CHECK(adam.learning_rate() == 0.001f);  // a float32 variable, as Keras's
  CHECK(adam.name() == "Adam");
  opt::SGD sgd;
  CHECK(sgd.learning_rate() == 0.01f);
  opt::RMSprop rms;
  CHECK(rms.learning_rate() == 0.001f);
  opt::Adagrad ada;
  CHECK(ada.learning_rate() == 0.001f);
}

TEST_CASE("one fused update op per variable, on the variable's device, slots beside it") {
  Variable w(eagle::constant({1.0f, 2.0f}), {"w"});  // GPU:0
  opt::Adam adam;
  eagle_test::CapturedLog log;
  auto cpu = eagle::device("/CPU:0");
  const Tensor g = eagle::constant({0.5f, -0.5f});
  adam.apply_gradients({{g, w}});
  log.take();  // the first step also creates the slots
  adam.apply_gradients({{g, w}});
  CHECK(log.take() == std::vector<std::string>{"Executing op _KerasAdam in device " + kGpu0});
  const Variable m = adam.get_slot(w, "momentum");  // Keras 3's name (legacy::Adam: "m")
  CHECK(m.device() == kGpu0);
  CHECK(m.name() == "Adam/w/momentum:0");
  CHECK_FALSE(m.trainable());
  CHECK_THROWS_AS(adam.get_slot(w, "m"), eagle::InvalidArgumentError);
}

TEST_CASE("a missing gradient skips its variable with Keras's warning, none at all is an error") {
  Variable w(eagle::constant({1.0f}), {"w"});
  Variable b(eagle::constant({1.0f}), {"b"});
  opt::SGD sgd({0.5});
  eagle_test::CapturedLog log(false);
  sgd.apply_gradients({{eagle::constant({1.0f}), w}, {std::nullopt, b}});
  CHECK(log.take() == std::vector<std::string>{
                          "Gradients do not exist for variables ['b:0'] when minimizing the loss. "
                          "If you're using `model.compile()`, did you forget to provide a `loss` "
                          "argument?"});
  CHECK(w.read_value().item<float>() == 0.5f);
  CHECK(b.read_value().item<float>() == 1.0f);
  CHECK_THROWS_MATCHES(sgd.apply_gradients({{std::nullopt, w}, {std::nullopt, b}}),
                       eagle::InvalidArgumentError,
                       Catch::Message("No gradients provided for any variable: ['w:0', 'b:0']."));
  CHECK(sgd.iterations() == 1);
}

TEST_CASE("a gradient of another shape or dtype names the variable and changes nothing") {
  Variable w(eagle::constant({1.0f, 2.0f}), {"w"});
  Variable b(eagle::constant({1.0f}), {"b"});
  opt::SGD sgd;
  CHECK_THROWS_MATCHES(
      sgd.apply_gradients({{eagle::constant({1.0f}), b}, {eagle::constant({1.0f}), w}}),
      eagle::InvalidArgumentError,
      Catch::Message("The gradient of variable 'w:0' has shape (1,) and dtype float32, the "
                     "variable (2,) and float32"));
  CHECK(b.read_value().item<float>() == 1.0f);  // checked before any update
  CHECK_THROWS_AS(sgd.apply_gradients({{eagle::constant({1.0, 2.0}, eagle::kFloat64), w}}),
                  eagle::InvalidArgumentError);
  CHECK(sgd.iterations() == 0);
}

TEST_CASE("a gradient on another device under the explicit policy is refused before any update") {
  Variable a =
      eagle::with_device("/GPU:0", [] { return Variable(eagle::constant({1.0f}), {"a"}); });
  Variable b =
      eagle::with_device("/GPU:0", [] { return Variable(eagle::constant({1.0f}), {"b"}); });
  const Tensor near = eagle::with_device("/GPU:0", [] { return eagle::constant({1.0f}); });
  const Tensor far = eagle::with_device("/GPU:1", [] { return eagle::constant({1.0f}); });
  opt::SGD sgd;
  eagle::config::set_device_policy(eagle::DevicePolicy::kExplicit);
  CHECK_THROWS_MATCHES(
      sgd.apply_gradients({{near, a}, {far, b}}), eagle::InvalidArgumentError,
      Catch::Message("Tensors on conflicting devices: the gradient of variable 'b:0' is on "
                     "/job:localhost/replica:0/task:0/device:GPU:1 but the variable is on "
                     "/job:localhost/replica:0/task:0/device:GPU:0, and the device policy is "
                     "explicit"));
  eagle::config::set_device_policy(eagle::DevicePolicy::kSilent);
  CHECK(a.read_value().item<float>() == 1.0f);  // no variable half-updated
  CHECK(b.read_value().item<float>() == 1.0f);
  CHECK(sgd.iterations() == 0);
  sgd.apply_gradients({{near, a}, {far, b}});  // the silent policy copies the gradient over
  CHECK(b.read_value().item<float>() == 0.99f);
}

TEST_CASE("clipnorm, clipvalue and global_clipnorm") {
  const Tensor g = eagle::constant({3.0f, 4.0f});  // norm 5
  {
    Variable w(eagle::constant({0.0f, 0.0f}));
    opt::SGD sgd({1.0, 0.0, false, {1.0, std::nullopt, std::nullopt}});
    sgd.apply_gradients({{g, w}});
    CHECK(w.read_value().to_vector<float>() == std::vector<float>{-0.6f, -0.8f});
  }
  {
    Variable w(eagle::constant({0.0f, 0.0f}));
    opt::SGD sgd({1.0, 0.0, false, {std::nullopt, 3.5, std::nullopt}});
    sgd.apply_gradients({{g, w}});
    CHECK(w.read_value().to_vector<float>() == std::vector<float>{-3.0f, -3.5f});
  }
  {
    Variable a(eagle::constant({0.0f, 0.0f}));
    Variable b(eagle::constant({0.0f}));
    opt::SGD sgd({1.0, 0.0, false, {std::nullopt, std::nullopt, 6.5}});
    sgd.apply_gradients({{g, a}, {eagle::constant({12.0f}), b}});  // global norm 13
    const auto va = a.read_value().to_vector<float>();
    CHECK(va[0] == Approx(-1.5f));
    CHECK(va[1] == Approx(-2.0f));
    CHECK(b.read_value().to_vector<float>()[0] == Approx(-6.0f));
  }
  CHECK_THROWS_MATCHES(opt::SGD({0.01, 0.0, false, {1.0, std::nullopt, 1.0}}),
                       eagle::InvalidArgumentError,
                       Catch::Message("Only one of `clipnorm`, `clipvalue` and `global_clipnorm` "
                                      "can be set. Received: clipnorm=1.0, clipvalue=None, "
                                      "global_clipnorm=1.0"));
}

TEST_CASE("learning-rate schedules of the step") {
  const auto decay = opt::schedules::ExponentialDecay(0.1, 10, 0.5);
  CHECK(decay(0) == 0.1f);  // in float32, as Keras
  CHECK(decay(10) == Approx(0.05));
  CHECK(decay(5) == Approx(0.1 * std::pow(0.5, 0.5)));
  const auto stairs = opt::schedules::ExponentialDecay(0.1, 10, 0.5, true);
  CHECK(stairs(15) == Approx(0.05));
  const auto piecewise = opt::schedules::PiecewiseConstantDecay({2, 4}, {1.0, 0.5, 0.1});
  CHECK(piecewise(2) == 1.0);
  CHECK(piecewise(3) == 0.5);
  CHECK(piecewise(9) == 0.1);
  CHECK_THROWS_AS(opt::schedules::PiecewiseConstantDecay({1}, {1.0}), eagle::InvalidArgumentError);
  Variable w(eagle::constant(0.0f));
  opt::SGD sgd({piecewise});
  for (int i = 0; i < 4; ++i) sgd.apply_gradients({{eagle::constant(1.0f), w}});
  // steps 0, 1, 2 at 1.0, step 3 at 0.5
  CHECK(w.read_value().item<float>() == -3.5f);
  CHECK(sgd.learning_rate() == 0.5);
}

TEST_CASE("minimize: a tape, the gradients, the update") {
  Variable x(eagle::constant(3.0f), {"x"});
  opt::SGD sgd({0.1});
  for (int i = 0; i < 100; ++i) {
    sgd.minimize([&] { return eagle::square(x - 1.0f); }, {x});
  }
  CHECK(x.read_value().item<float>() == Approx(1.0f).margin(1e-5));
}
