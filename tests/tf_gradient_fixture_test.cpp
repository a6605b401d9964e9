// eagle's GradientTape against TensorFlow's: every case of tests/fixtures/tf_gradients.json
// (written by tests/tools/gen_tf_grad_fixture.py from tensorflow-cpu) is replayed on the CPU and
// on a simulated GPU. A "gradient" case calls one op (the table of tests/fixture_ops.hpp) under a
// tape and compares the target and each source's gradient (or TensorFlow's None); a "scenario" is
// a program written both there and here (higher order, persistent tapes, several targets,
// jacobian, unconnected sources, variables), whose results are compared in order.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "eagle/eagle.hpp"
#include "fixture_ops.hpp"
#include "opdefs/op_defs.hpp"

namespace {

using eagle::GradientTape;
using eagle::Tensor;
using eagle_test::Inputs;
using eagle_test::Json;
using Results = std::vector<std::optional<Tensor>>;

// 1e-5 relative to max(|TensorFlow's value|, 1e-3): sums that cancel (the gradient of a sum of
// softmax outputs) are 0 to within rounding in both libraries, not to the same last bit.
constexpr double kFloor = 1e-3;

const Json& fixture() {
  static const Json json = Json::parse_file(EAGLE_FIXTURE_DIR "/tf_gradients.json");
  return json;
}

void check_results(const Results& got, const Json& expected, double tolerance) {
  const auto& want = expected.array();
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("result " << i);
    if (want[i].is_null()) {
      CHECK_FALSE(got[i].has_value());
    } else {
      REQUIRE(got[i].has_value());
      eagle_test::check_values(*got[i], want[i], tolerance, kFloor);
    }
  }
}

void run_gradient_case(const Json& c) {
  const auto& ops = eagle_test::ops();
  const auto op = ops.find(c["op"].str());
  REQUIRE(op != ops.end());
  Inputs inputs;
  for (const Json& j : c["inputs"].array()) inputs.push_back(eagle_test::make_tensor(j));
  std::vector<eagle::GradientSource> sources;
  for (const Json& s : c["sources"].array()) {
    sources.emplace_back(inputs.at(static_cast<std::size_t>(s.integer())));
  }
  eagle::GradientOptions options;
  if (c.has("output_gradient")) {
    options.output_gradients.push_back(eagle_test::make_tensor(c["output_gradient"]));
  }
  if (c["unconnected"].str() == "zero") options.unconnected = eagle::UnconnectedGradients::kZero;
  const double tolerance = c["tolerance"].number();
  GradientTape tape;
  tape.watch(sources);
  const Tensor target = op->second(inputs, c["attrs"]);
  eagle_test::check_values(target, c["target"], tolerance, kFloor);
  check_results(tape.gradient(target, sources, options), c["grads"], tolerance);
}

// ---- scenarios: the programs of gen_tf_grad_fixture.py -----------------------------------------

using Scenario = std::function<Results(const Inputs&)>;

eagle::GradientTapeOptions persistent() {
  eagle::GradientTapeOptions options;
  options.persistent = true;
  return options;
}

eagle::GradientOptions unconnected_zero() {
  eagle::GradientOptions options;
  options.unconnected = eagle::UnconnectedGradients::kZero;
  return options;
}

Results second_order(const Tensor& x, const std::function<Tensor(const Tensor&)>& fn) {
  GradientTape outer;
  outer.watch(x);
  GradientTape inner;
  inner.watch(x);
  const Tensor y = fn(x);
  inner.stop();
  const Tensor g = *inner.gradient(y, {x})[0];
  outer.stop();
  return {g, outer.gradient(g, {x})[0]};
}

const std::map<std::string, Scenario>& scenarios() {
  static const std::map<std::string, Scenario> table = [] {
    std::map<std::string, Scenario> t;
    const Tensor weights = eagle::constant({{1.0, 2.0, 3.0}}, eagle::kFloat64);
    const std::map<std::string, std::function<Tensor(const Tensor&)>> second = {
        {"relu", [](const Tensor& x) { return eagle::relu(x); }},
        {"sigmoid", [](const Tensor& x) { return eagle::sigmoid(x); }},
        {"tanh", [](const Tensor& x) { return eagle::tanh(x); }},
        {"sqrt", [](const Tensor& x) { return eagle::sqrt(x); }},
        {"rsqrt", [](const Tensor& x) { return eagle::rsqrt(x); }},
        {"reciprocal", [](const Tensor& x) { return eagle::reciprocal(x); }},
        {"exp", [](const Tensor& x) { return eagle::exp(x); }},
        {"cube", [](const Tensor& x) { return x * x * x; }},
        {"softmax", [weights](const Tensor& x) { return eagle::softmax(x) * weights; }}};
    for (const auto& [name, fn] : second) {
      t["second derivative of " + name] = [fn = fn](const Inputs& in) {
        return second_order(in.at(0), fn);
      };
    }
    t["third derivative of x sin x"] = [](const Inputs& in) {
      const Tensor& x = in.at(0);
      GradientTape t3, t2, t1;
      t3.watch(x);
      t2.watch(x);
      t1.watch(x);
      const Tensor y = eagle::sin(x) * x;
      t1.stop();
      const Tensor g1 = *t1.gradient(y, {x})[0];
      t2.stop();
      const Tensor g2 = *t2.gradient(g1, {x})[0];
      t3.stop();
      return Results{g1, g2, t3.gradient(g2, {x})[0]};
    };
    t["a persistent tape used twice"] = [](const Inputs& in) {
      const Tensor &x = in.at(0), &w = in.at(1);
      GradientTape tape(persistent());
      tape.watch({x, w});
      const Tensor y = eagle::reduce_sum(eagle::tanh(x * w));
      const Tensor z = eagle::reduce_sum(x * x);
      tape.stop();
      Results out = tape.gradient(y, {x, w});
      for (auto& g : tape.gradient(z, {x, w})) out.push_back(g);
      out.push_back(tape.gradient(y, {x})[0]);
      return out;
    };
    t["several targets sum their gradients"] = [](const Inputs& in) {
      const Tensor& x = in.at(0);
      GradientTape tape;
      tape.watch(x);
      const Tensor y1 = eagle::reduce_sum(x * x);
      const Tensor y2 = eagle::exp(x);
      return tape.gradient(std::vector<Tensor>{y1, y2}, {x});
    };
    t["several targets with output_gradients"] = [](const Inputs& in) {
      const Tensor& x = in.at(0);
      GradientTape tape;
      tape.watch(x);
      const Tensor y1 = x * 3.0;
      const Tensor y2 = eagle::reduce_sum(eagle::sin(x), 1);
      eagle::GradientOptions options;
      options.output_gradients = {eagle::ones_like(x) * 0.5,
                                  eagle::constant({2.0, -1.0}, eagle::kFloat64)};
      return tape.gradient(std::vector<Tensor>{y1, y2}, {x}, options);
    };
    t["jacobian of a vector target"] = [](const Inputs& in) {
      const Tensor& x = in.at(0);
      GradientTape tape(persistent());
      tape.watch(x);
      const Tensor y = eagle::sin(x) * eagle::reduce_sum(x);
      const Tensor u = x * 2.0;
      tape.stop();
      return Results{tape.jacobian(y, {x})[0], tape.jacobian(u, {x})[0]};
    };
    t["a source given twice gets its gradient twice"] = [](const Inputs& in) {
      const Tensor& x = in.at(0);
      GradientTape tape;
      tape.watch(x);
      const Tensor y = x * x;
      return tape.gradient(y, {x, x});
    };
    t["a target the tape did not record"] = [](const Inputs& in) {
      const Tensor &x = in.at(0), &c = in.at(1);
      GradientTape tape(persistent());
      tape.watch(x);
      const Tensor y = x * x;
      tape.stop();
      Results out = tape.gradient(c, {x});
      out.push_back(tape.gradient(c, {x}, unconnected_zero())[0]);
      return out;
    };
    t["variables are watched when read (ReadVariableOp)"] = [](const Inputs& in) {
      eagle::Variable w(in.at(0));
      eagle::Variable b(in.at(1));
      GradientTape tape;
      const Tensor loss = eagle::reduce_mean(eagle::square(eagle::matmul(in.at(2), w) + b));
      Results out{loss};
      for (auto& g : tape.gradient(loss, {w, b})) out.push_back(g);
      return out;
    };
    t["stop_recording leaves ops out"] = [](const Inputs& in) {
      const Tensor& x = in.at(0);
      GradientTape tape;
      tape.watch(x);
      const Tensor y = x * x;
      Tensor z;
      {
        auto pause = tape.stop_recording();
        z = y * 3.0;
      }
      return tape.gradient(y + z, {x});
    };
    t["second order through matmul"] = [](const Inputs& in) {
      const Tensor &a = in.at(0), &b = in.at(1);
      GradientTape outer;
      outer.watch({a, b});
      GradientTape inner;
      inner.watch({a, b});
      const Tensor y = eagle::reduce_sum(eagle::square(eagle::matmul(a, b)));
      inner.stop();
      const auto g = inner.gradient(y, {a, b});
      const Tensor s = eagle::reduce_sum(*g[0] * *g[0]) + eagle::reduce_sum(*g[1]);
      outer.stop();
      Results out{g[0], g[1]};
      for (auto& h : outer.gradient(s, {a, b})) out.push_back(h);
      return out;
    };
    t["second order through unsorted_segment_sum"] = [](const Inputs& in) {
      const Tensor& d = in.at(0);
      GradientTape outer;
      outer.watch(d);
      GradientTape inner;
      inner.watch(d);
      const Tensor y = eagle::reduce_sum(
          eagle::square(eagle::math::unsorted_segment_sum(d, eagle::constant({1, 0, 1}), 2)));
      inner.stop();
      const Tensor g = *inner.gradient(y, {d})[0];
      const Tensor s = eagle::reduce_sum(g * g);
      outer.stop();
      return Results{g, outer.gradient(s, {d})[0]};
    };
    t["second order through gather"] = [](const Inputs& in) {
      const Tensor& p = in.at(0);
      GradientTape outer;
      outer.watch(p);
      GradientTape inner;
      inner.watch(p);
      const Tensor y =
          eagle::reduce_sum(eagle::square(eagle::gather(p, eagle::constant({2, 2, 0}), 1)));
      inner.stop();
      const Tensor g = *inner.gradient(y, {p})[0];
      const Tensor s = eagle::reduce_sum(g * g * g);
      outer.stop();
      return Results{g, outer.gradient(s, {p})[0]};
    };
    return t;
  }();
  return table;
}

void run_scenario(const Json& c) {
  const auto it = scenarios().find(c["name"].str());
  REQUIRE(it != scenarios().end());
  Inputs inputs;
  for (const Json& j : c["inputs"].array()) inputs.push_back(eagle_test::make_tensor(j));
  check_results(it->second(inputs), c["results"], c["tolerance"].number());
}

void run_all() {
  for (const Json& c : fixture()["cases"].array()) {
    INFO(c["name"].str());
    if (c["kind"].str() == "gradient") {
      run_gradient_case(c);
    } else {
      run_scenario(c);
    }
  }
}

}  // namespace

TEST_CASE("the gradient fixture was written by TensorFlow and covers every differentiable op") {
  CHECK(fixture()["generator"].str() == "tests/tools/gen_tf_grad_fixture.py");
  CHECK(fixture()["tensorflow"].str() == "2.21.0");
  CHECK(fixture()["cases"].array().size() >= 100u);
  std::size_t scenario_count = 0;
  for (const Json& c : fixture()["cases"].array()) {
    if (c["kind"].str() == "scenario") ++scenario_count;
  }
  CHECK(scenario_count == scenarios().size());  // every program here has TensorFlow's results
}

TEST_CASE("eagle's gradients are TensorFlow's on the CPU") {
  auto scope = eagle::device("/CPU:0");
  run_all();
}

TEST_CASE("eagle's gradients are TensorFlow's on a simulated GPU") {
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  auto scope = eagle::device("/GPU:0");
  run_all();
}

TEST_CASE("the gradient fixture runs the forward and backward op of every differentiable op") {
  // Every op the cases execute, from the placement log: each differentiable op of the table must
  // be among them (its gradient then ran too), so an op added without a fixture case fails here.
  std::set<std::string> executed;
  eagle::debugging::set_log_sink([&](eagle::debugging::LogLevel, std::string_view line) {
    constexpr std::string_view kPrefix = "Executing op ";
    if (line.substr(0, kPrefix.size()) != kPrefix) return;
    const std::string_view rest = line.substr(kPrefix.size());
    executed.emplace(rest.substr(0, rest.find(' ')));
  });
  eagle::debugging::set_log_device_placement(true);
  {
    auto scope = eagle::device("/CPU:0");
    run_all();
  }
  eagle::debugging::set_log_device_placement(false);
  eagle::debugging::set_log_sink({});
  // TensorFlow's gradients of the NN and convolution ops are in their own fixtures
  // (tests/fixtures/tf_nn_ops.json, tf_nn_conv.json), which nn_ops_test and nn_conv_test replay
  // through the tape; the second derivatives of their *Grad ops are checked by finite
  // differences only (their OpInfo entries). _FusedConv2D has no gradient in TensorFlow (its
  // graph optimizer makes the op after differentiation): nn_conv_test checks its values and
  // gradients against the three ops it fuses, bit for bit. Every other differentiable op must
  // run here.
  const std::set<std::string> nn_fixture_ops = {"Conv2D",
                                                "_FusedConv2D",
                                                "Conv2DBackpropInput",
                                                "Conv2DBackpropFilter",
                                                "MaxPool",
                                                "AvgPool",
                                                "AvgPoolGrad",
                                                "Relu6",
                                                "Relu6Grad",
                                                "LeakyRelu",
                                                "LeakyReluGrad",
                                                "Elu",
                                                "EluGrad",
                                                "Selu",
                                                "SeluGrad",
                                                "Softplus",
                                                "Softsign",
                                                "Erfc",
                                                "LogSoftmax",
                                                "BiasAdd",
                                                "BiasAddGrad",
                                                "SoftmaxCrossEntropyWithLogits",
                                                "SparseSoftmaxCrossEntropyWithLogits",
                                                "L2Loss",
                                                "FusedBatchNormV3"};
  std::string missing;
  for (const auto& def : eagle::opdefs::kOpDefs) {
    if (def.gradient == eagle::opdefs::Gradient::kDifferentiable &&
        !executed.count(std::string(def.name)) && !nn_fixture_ops.count(std::string(def.name))) {
      missing += " " + std::string(def.name);
    }
  }
  INFO("differentiable ops no case of tf_gradients.json runs:" << missing);
  CHECK(missing.empty());
}
