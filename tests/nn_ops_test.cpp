// eagle::nn against TensorFlow: every case of tests/fixtures/tf_nn_ops.json (written by
// tests/tools/gen_nn_fixture_ops.py from tensorflow-cpu 2.21) on the CPU and on a simulated GPU,
// values and gradients at 1e-5 relative, errors by class and text; then the op names the
// placement log shows, dropout (whose random draw TensorFlow's fixture cannot pin), 16-bit
// floats and the sparse label check on each device.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "json_reader.hpp"

namespace {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;
using eagle_test::Json;

DType dtype_named(const std::string& name) {
  for (DType d : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64, DType::kBool,
                  DType::kFloat16, DType::kBFloat16}) {
    if (eagle::dtype_name(d) == name) return d;
  }
  throw std::runtime_error("fixture dtype " + name);
}

double decode(const Json& v) {
  if (v.is_bool()) return v.boolean() ? 1 : 0;
  if (v.is_number()) return v.number();
  const std::string& s = v.str();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "-0.0") return -0.0;
  throw std::runtime_error("fixture value " + s);
}

Shape shape_of(const Json& j) {
  std::vector<std::int64_t> dims;
  for (const Json& d : j.array()) dims.push_back(d.integer());
  return Shape(dims);
}

Tensor make_tensor(const Json& j) {
  const DType dtype = dtype_named(j["dtype"].str());
  const Shape shape = shape_of(j["shape"]);
  std::vector<double> values;
  for (const Json& v : j["values"].array()) values.push_back(decode(v));
  return eagle::cast(eagle::constant(values, shape), dtype);
}

using Inputs = std::vector<Tensor>;
using OpFn = std::function<std::vector<Tensor>(const Inputs&, const Json&)>;

// The eagle::nn call each fixture "op" names; every output TensorFlow's call returns.
const std::map<std::string, OpFn>& ops() {
  using Unary = Tensor (*)(const Tensor&);
  static const std::map<std::string, OpFn> table = [] {
    std::map<std::string, OpFn> t;
    const std::map<std::string, Unary> unary = {
        {"relu6", eagle::nn::relu6},       {"elu", eagle::nn::elu},
        {"selu", eagle::nn::selu},         {"softplus", eagle::nn::softplus},
        {"softsign", eagle::nn::softsign}, {"l2_loss", eagle::nn::l2_loss}};
    for (const auto& [name, fn] : unary) {
      t[name] = [fn = fn](const Inputs& in, const Json&) { return Inputs{fn(in.at(0))}; };
    }
    t["leaky_relu"] = [](const Inputs& in, const Json& a) {
      return Inputs{eagle::nn::leaky_relu(in.at(0), a["alpha"].number())};
    };
    t["gelu"] = [](const Inputs& in, const Json& a) {
      return Inputs{eagle::nn::gelu(in.at(0), a["approximate"].boolean())};
    };
    t["silu"] = [](const Inputs& in, const Json& a) {
      return Inputs{eagle::nn::silu(in.at(0), a["beta"].number())};
    };
    t["log_softmax"] = [](const Inputs& in, const Json& a) {
      return Inputs{eagle::nn::log_softmax(in.at(0), static_cast<int>(a["axis"].integer()))};
    };
    t["bias_add"] = [](const Inputs& in, const Json&) {
      return Inputs{eagle::nn::bias_add(in.at(0), in.at(1))};
    };
    t["softmax_cross_entropy_with_logits"] = [](const Inputs& in, const Json&) {
      return Inputs{eagle::nn::softmax_cross_entropy_with_logits(in.at(0), in.at(1))};
    };
    t["sparse_softmax_cross_entropy_with_logits"] = [](const Inputs& in, const Json&) {
      return Inputs{eagle::nn::sparse_softmax_cross_entropy_with_logits(in.at(0), in.at(1))};
    };
    t["one_hot"] = [](const Inputs& in, const Json& a) {
      return Inputs{eagle::nn::one_hot(
          in.at(0), a["depth"].integer(), a["on_value"].number(), a["off_value"].number(),
          static_cast<int>(a["axis"].integer()), dtype_named(a["dtype"].str()))};
    };
    t["moments"] = [](const Inputs& in, const Json& a) {
      std::vector<int> axes;
      for (const Json& v : a["axes"].array()) axes.push_back(static_cast<int>(v.integer()));
      const auto m = eagle::nn::moments(in.at(0), axes, a["keepdims"].boolean());
      return Inputs{m.mean, m.variance};
    };
    t["batch_normalization"] = [](const Inputs& in, const Json& a) {
      return Inputs{eagle::nn::batch_normalization(in.at(0), in.at(1), in.at(2), in.at(3), in.at(4),
                                                   a["epsilon"].number())};
    };
    t["fused_batch_norm"] = [](const Inputs& in, const Json& a) {
      const auto r = eagle::nn::fused_batch_norm(
          in.at(0), in.at(1), in.at(2), in.size() > 3 ? in[3] : Tensor{},
          in.size() > 4 ? in[4] : Tensor{}, a["epsilon"].number(),
          a["exponential_avg_factor"].number(), a["is_training"].boolean());
      return Inputs{r.y, r.batch_mean, r.batch_variance, r.reserve_space_1, r.reserve_space_2};
    };
    return t;
  }();
  return table;
}

std::string code_spelling(const std::string& error_class) {
  std::string out;
  const std::string name = error_class.substr(0, error_class.size() - std::string("Error").size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (i > 0 && std::isupper(static_cast<unsigned char>(name[i]))) out.push_back('_');
    out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(name[i]))));
  }
  return out;
}

// 1e-5 relative, and for entries below a tenth of the largest expected magnitude 1e-6 of that
// magnitude: float32 sums that cancel to about zero (batch norm's normalized values and
// gradients) differ from oneDNN's by a few ulps of the terms, not of the result.
void check_values(const Tensor& got, const Json& expected) {
  CHECK(eagle::dtype_name(got.dtype()) == expected["dtype"].str());
  REQUIRE(got.shape() == shape_of(expected["shape"]));
  const std::vector<double> v = eagle::cast(got, DType::kFloat64).to_vector<double>();
  const auto& values = expected["values"].array();
  REQUIRE(v.size() == values.size());
  double scale = 0;
  for (const Json& w : values) {
    const double d = decode(w);
    if (std::isfinite(d)) scale = std::max(scale, std::abs(d));
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    INFO("element " << i);
    const double want = decode(values[i]);
    if (std::isnan(want)) {
      CHECK(std::isnan(v[i]));
    } else if (std::isinf(want)) {
      CHECK(v[i] == want);
    } else {
      CHECK(std::abs(v[i] - want) <= 1e-5 * std::max(std::abs(want), 0.1 * scale) + 1e-30);
    }
  }
}

Tensor weights(const Tensor& like, int k) {
  std::vector<double> w(static_cast<std::size_t>(like.num_elements()));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 1 + 0.1 * static_cast<double>((i + k) % 7);
  return eagle::cast(eagle::constant(w, like.shape()), like.dtype());
}

void run_case(const Json& c) {
  INFO(c["name"].str());
  const auto it = ops().find(c["op"].str());
  REQUIRE(it != ops().end());
  Inputs inputs;
  for (const Json& j : c["inputs"].array()) inputs.push_back(make_tensor(j));
  if (c.has("error")) {
    try {
      (void)it->second(inputs, c["attrs"]);
      FAIL("TensorFlow raised " << c["error"]["class"].str() << ", eagle did not");
    } catch (const eagle::Error& e) {
      CHECK(std::string(eagle::error_code_name(e.code())) ==
            code_spelling(c["error"]["class"].str()));
      CHECK(std::string(e.what()) == c["error"]["message"].str());
    }
    return;
  }
  eagle::GradientTape tape;
  std::vector<eagle::GradientSource> sources;
  for (const Tensor& x : inputs) {
    if (eagle::is_floating(x.dtype())) tape.watch(x);
    sources.emplace_back(x);
  }
  const std::vector<Tensor> outputs = it->second(inputs, c["attrs"]);
  const auto& expected = c["outputs"].array();
  REQUIRE(outputs.size() == expected.size());
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    INFO("output " << k);
    check_values(outputs[k], expected[k]);
  }
  if (!c.has("grads")) return;
  Tensor loss;
  for (const Json& k : c["loss_outputs"].array()) {
    const Tensor& out = outputs.at(static_cast<std::size_t>(k.integer()));
    const Tensor term = eagle::reduce_sum(out * weights(out, static_cast<int>(k.integer())));
    loss = loss.defined() ? loss + term : term;
  }
  const auto grads = tape.gradient(loss, sources);
  const auto& want = c["grads"].array();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    INFO("gradient of input " << i);
    if (want[i].is_null()) {
      CHECK_FALSE(grads[i].has_value());
    } else {
      REQUIRE(grads[i].has_value());
      check_values(*grads[i], want[i]);
    }
  }
}

const Json& fixture() {
  static const Json json = Json::parse_file(EAGLE_FIXTURE_DIR "/tf_nn_ops.json");
  return json;
}

// The op names of the placement log's lines, in order.
std::vector<std::string> op_names(eagle_test::CapturedLog& log) {
  std::vector<std::string> names;
  for (const std::string& line : log.take()) {
    const std::string prefix = "Executing op ";
    if (line.rfind(prefix, 0) != 0) continue;
    names.push_back(line.substr(prefix.size(), line.find(' ', prefix.size()) - prefix.size()));
  }
  return names;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("the NN fixture was written by TensorFlow 2.21") {
  CHECK(fixture()["tensorflow"].str() == "2.21.0");
  CHECK(fixture()["cases"].array().size() >= 100u);
}

TEST_CASE("eagle::nn gives TensorFlow's values, gradients and errors on the CPU") {
  auto scope = eagle::device("/CPU:0");
  for (const Json& c : fixture()["cases"].array()) run_case(c);
}

TEST_CASE("eagle::nn gives TensorFlow's values, gradients and errors on GPU:0") {
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  auto scope = eagle::device("/GPU:0");
  for (const Json& c : fixture()["cases"].array()) run_case(c);
}

TEST_CASE("eagle::nn logs TensorFlow's op names") {
  const Tensor x = eagle::constant({{-1.5f, 0.5f, 2.0f}, {3.0f, -0.2f, 7.0f}});
  const Tensor labels = eagle::constant({1, 2});
  eagle_test::CapturedLog log;
  (void)eagle::nn::relu6(x);
  (void)eagle::nn::leaky_relu(x);
  (void)eagle::nn::elu(x);
  (void)eagle::nn::selu(x);
  (void)eagle::nn::softplus(x);
  (void)eagle::nn::softsign(x);
  (void)eagle::nn::log_softmax(x);
  (void)eagle::nn::l2_loss(x);
  CHECK(op_names(log) ==
        Names{"Relu6", "LeakyRelu", "Elu", "Selu", "Softplus", "Softsign", "LogSoftmax", "L2Loss"});
  (void)eagle::nn::gelu(x);
  CHECK(op_names(log) == Names{"Mul", "Neg", "Mul", "Erfc", "Mul"});
  (void)eagle::nn::gelu(x, true);
  CHECK(op_names(log) == Names{"Mul", "Pow", "Mul", "AddV2", "Mul", "Tanh", "AddV2", "Mul"});
  (void)eagle::nn::silu(x);
  CHECK(op_names(log) == Names{"Mul", "Sigmoid", "Mul", "Identity"});
  (void)eagle::nn::bias_add(x, eagle::constant({1.0f, 2.0f, 3.0f}));
  (void)eagle::nn::sparse_softmax_cross_entropy_with_logits(labels, x);
  (void)eagle::nn::softmax_cross_entropy_with_logits(eagle::nn::one_hot(labels, 3), x);
  CHECK(op_names(log) == Names{"BiasAdd", "SparseSoftmaxCrossEntropyWithLogits", "OneHot",
                               "SoftmaxCrossEntropyWithLogits"});
  (void)eagle::nn::moments(x, {0});
  CHECK(op_names(log) ==
        Names{"Mean", "StopGradient", "SquaredDifference", "Mean", "Squeeze", "Squeeze"});
  (void)eagle::nn::dropout(x, 0.5, std::nullopt, 3);
  CHECK(op_names(log) == Names{"Mul", "RandomUniform", "GreaterEqual", "SelectV2"});
  const Tensor c = eagle::constant({1.0f, 2.0f, 3.0f});
  (void)eagle::nn::batch_normalization(x, c, c, c, c, 1e-3);
  CHECK(op_names(log) == Names{"AddV2", "Rsqrt", "Mul", "Mul", "Mul", "Sub", "AddV2"});
  const Tensor x4 = eagle::reshape(x, {1, 1, 2, 3});
  (void)log.take();
  {
    eagle::GradientTape tape;
    tape.watch(x4);
    const Tensor y = eagle::nn::fused_batch_norm(x4, c, c).y;
    // TensorFlow's empty mean and variance for None are two Fills, as in TensorFlow's log.
    CHECK(op_names(log) == Names{"Fill", "Fill", "FusedBatchNormV3"});
    (void)tape.gradient(y, {x4});
    const Names backward = op_names(log);
    REQUIRE_FALSE(backward.empty());
    CHECK(backward.back() == "FusedBatchNormGradV3");
  }
  {
    eagle::GradientTape tape;
    tape.watch(x);
    const Tensor y = eagle::nn::bias_add(x, c) + eagle::nn::relu6(x) + eagle::nn::elu(x) +
                     eagle::nn::selu(x) + eagle::nn::leaky_relu(x);
    (void)log.take();
    (void)tape.gradient(y, {x});
    const Names names = op_names(log);
    for (const char* op : {"EluGrad", "SeluGrad", "LeakyReluGrad", "Relu6Grad"}) {
      CHECK(std::count(names.begin(), names.end(), op) == 1);
    }
  }
}

TEST_CASE("dropout keeps 1 - rate of the elements, scaled, and refuses TensorFlow's bad rates") {
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    auto scope = eagle::device(device);
    const Tensor x = eagle::fill(Shape{100, 100}, 2.0);
    const std::vector<float> y = eagle::nn::dropout(x, 0.25, std::nullopt, 11).to_vector<float>();
    const auto kept = std::count_if(y.begin(), y.end(), [](float v) { return v != 0; });
    CHECK(std::abs(static_cast<double>(kept) / 10000 - 0.75) < 0.02);
    for (float v : y) CHECK((v == 0 || v == Approx(2.0f / 0.75f)));
    // The same seed, the same mask; rate 0 keeps everything.
    CHECK(eagle::nn::dropout(x, 0.25, std::nullopt, 11).to_vector<float>() == y);
    const auto all = eagle::nn::dropout(x, 0.0, std::nullopt, 1).to_vector<float>();
    CHECK(std::all_of(all.begin(), all.end(), [](float v) { return v == 2.0f; }));
    // A noise shape of [100, 1] drops whole rows.
    const auto rows = eagle::nn::dropout(x, 0.5, Shape{100, 1}, 5).to_vector<float>();
    for (int r = 0; r < 100; ++r) {
      for (int c = 1; c < 100; ++c) CHECK(rows[r * 100 + c] == rows[r * 100]);
    }
  }
  const Tensor x = eagle::constant({1.0f, 2.0f});
  for (double rate : {1.5, 1.0, -0.1}) {
    try {
      (void)eagle::nn::dropout(x, rate);
      FAIL("no error");
    } catch (const eagle::InvalidArgumentError& e) {
      const std::string text = rate == 1.5 ? "1.5" : rate == 1.0 ? "1.0" : "-0.1";
      CHECK(std::string(e.what()) ==
            "`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate=" +
                text);
    }
  }
  CHECK_THROWS_WITH(eagle::nn::dropout(eagle::constant({1, 2}), 0.5),
                    "`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                    "x_dtype=<dtype: 'int32'>");
}

TEST_CASE("16-bit floats compute in float32 and round once") {
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    auto scope = eagle::device(device);
    const Tensor x = eagle::constant({{-2.0, -0.5, 0.0}, {0.5, 1.5, 7.0}});
    for (DType d : {DType::kFloat16, DType::kBFloat16}) {
      const Tensor h = eagle::cast(x, d);
      const auto same = [&](const Tensor& got, const Tensor& want) {
        CHECK(got.dtype() == d);
        CHECK(eagle::cast(got, DType::kFloat64).to_vector<double>() ==
              eagle::cast(eagle::cast(want, d), DType::kFloat64).to_vector<double>());
      };
      same(eagle::nn::relu6(h), eagle::nn::relu6(x));
      same(eagle::nn::elu(h), eagle::cast(eagle::nn::elu(eagle::cast(h, DType::kFloat32)), d));
      same(eagle::nn::log_softmax(h),
           eagle::cast(eagle::nn::log_softmax(eagle::cast(h, DType::kFloat32)), d));
      same(eagle::nn::bias_add(h, eagle::cast(eagle::constant({1.0, 2.0, 3.0}), d)),
           eagle::nn::bias_add(x, eagle::constant({1.0, 2.0, 3.0})));
      const auto bn = eagle::nn::fused_batch_norm(eagle::reshape(h, {1, 1, 2, 3}),
                                                  eagle::constant({1.0f, 1.0f, 1.0f}),
                                                  eagle::constant({0.0f, 0.0f, 0.0f}));
      CHECK(bn.y.dtype() == d);
      CHECK(bn.batch_mean.dtype() == DType::kFloat32);
    }
  }
}

TEST_CASE("a sparse label out of range is TensorFlow's CPU error on every simulated device") {
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    auto scope = eagle::device(device);
    CHECK_THROWS_WITH(
        eagle::nn::sparse_softmax_cross_entropy_with_logits(
            eagle::constant(std::vector<std::int64_t>{3, 10}), eagle::fill(Shape{2, 10}, 1.0)),
        "Received a label value of 10 which is outside the valid range of [0, 10).  "
        "Label values: 3 10 [Op:SparseSoftmaxCrossEntropyWithLogits]");
  }
}
