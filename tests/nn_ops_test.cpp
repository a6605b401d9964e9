// eagle::nn against TensorFlow: every case of tests/fixtures/tf_nn_ops.json (written by
// tests/tools/gen_nn_fixture_ops.py from tensorflow-cpu 2.21) on the CPU and on a simulated GPU,
// values and gradients at 1e-5 relative, errors by class and text; then the op names the
// placement log shows, dropout (whose random draw TensorFlow's fixture cannot pin), 16-bit
// floats and the sparse label check on each device.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "captured_log.hpp"
#include "cpu/batch_norm_reference.hpp"
#include "eagle/eagle.hpp"
#include "json_reader.hpp"
#if defined(EAGLE_WITH_ONEDNN)
#include "cpu/intra_op_pool.hpp"
#include "cpu/onednn/onednn_batch_norm.hpp"
#endif

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

// Batch norm's CPU providers (Note [Batch norm on oneDNN]): the reference kernels called directly
// against a float64 run of themselves, oneDNN against the float32 reference, and the op (whichever
// provider ctest's run registered) against the reference. Tolerance: 1e-5 of |want| plus 1e-5 of
// the tensor's largest |want| (sums over a channel that cancel to about zero differ by a few ulps
// of their terms, not of the result).
namespace {

bool close(const std::vector<float>& got, const std::vector<double>& want) {
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  if (got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]) && std::isnan(got[i])) continue;
    if (!(std::abs(got[i] - want[i]) <= 1e-5 * (std::abs(want[i]) + scale))) {
      UNSCOPED_INFO("element " << i << ": " << got[i] << " against " << want[i]);
      return false;
    }
  }
  return true;
}

bool close(const std::vector<float>& got, const std::vector<float>& want) {
  return close(got, std::vector<double>(want.begin(), want.end()));
}

template <class T>
std::vector<T> sized(std::int64_t n) {
  return std::vector<T>(static_cast<std::size_t>(n));
}

// One FusedBatchNormV3 and its gradient on [n, h, w, c], all outputs.
template <class T>
struct BatchNormRun {
  std::vector<T> y, batch_mean, batch_variance, reserve_mean, reserve_variance;
  std::vector<T> dx, scale_backprop, offset_backprop;
};

struct BatchNormCase {
  std::int64_t n, h, w, c;
  eagle::opdefs::FusedBatchNormAttrs attrs;
  // x (channel 1 constant: variance 0, the epsilon edge), scale, offset, the given statistics
  // and dy, reproducible per case.
  std::vector<float> x, scale, offset, mean, variance, dy;

  BatchNormCase(std::int64_t n_, std::int64_t h_, std::int64_t w_, std::int64_t c_,
                eagle::opdefs::FusedBatchNormAttrs a, unsigned seed)
      : n(n_), h(h_), w(w_), c(c_), attrs(a) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(-1, 1);
    const std::int64_t rows = n * h * w;
    x = sized<float>(rows * c);
    dy = sized<float>(rows * c);
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t k = 0; k < c; ++k) {
        // Channels of different means and spreads; channel 1 (when there is one) constant.
        x[i * c + k] = k == 1 ? 0.75f : 0.5f * static_cast<float>(k % 5) + (1 + k % 3) * value(rng);
        dy[i * c + k] = value(rng);
      }
    }
    for (std::int64_t k = 0; k < c; ++k) {
      scale.push_back(1.0f + 0.5f * value(rng));
      offset.push_back(value(rng));
      mean.push_back(0.5f * value(rng));
      variance.push_back(1.0f + value(rng));  // in [0, 2]: 0 is the epsilon edge too
    }
  }

  template <class T>
  std::vector<T> as(const std::vector<float>& v) const {
    return std::vector<T>(v.begin(), v.end());
  }

  // The reference in T (float or double) on these inputs; the gradient uses the forward's
  // reserve spaces in training, the given statistics in inference, as TensorFlow's gradient does.
  template <class T>
  BatchNormRun<T> reference() const {
    namespace ref = eagle::cpu::reference;
    const std::int64_t rows = n * h * w;
    BatchNormRun<T> r{sized<T>(rows * c), sized<T>(c),        sized<T>(c), sized<T>(c),
                      sized<T>(c),        sized<T>(rows * c), sized<T>(c), sized<T>(c)};
    const std::vector<T> tx = as<T>(x), ts = as<T>(scale), to = as<T>(offset), tm = as<T>(mean),
                         tv = as<T>(variance), tdy = as<T>(dy);
    ref::fused_batch_norm<T>(attrs, rows, c, tx.data(), ts.data(), to.data(), tm.data(), tv.data(),
                             r.y.data(), r.batch_mean.data(), r.batch_variance.data(),
                             r.reserve_mean.data(), r.reserve_variance.data());
    ref::fused_batch_norm_grad<T>(attrs, rows, c, tdy.data(), tx.data(), ts.data(),
                                  r.reserve_mean.data(), r.reserve_variance.data(), r.dx.data(),
                                  r.scale_backprop.data(), r.offset_backprop.data());
    return r;
  }

#if defined(EAGLE_WITH_ONEDNN)
  BatchNormRun<float> onednn() const {
    namespace dnn = eagle::cpu::onednn;
    const dnn::BatchNormShape s{n, h, w, c};
    BatchNormRun<float> r{sized<float>(n * h * w * c),
                          sized<float>(c),
                          sized<float>(c),
                          sized<float>(c),
                          sized<float>(c),
                          sized<float>(n * h * w * c),
                          sized<float>(c),
                          sized<float>(c)};
    dnn::fused_batch_norm(attrs, s, x.data(), scale.data(), offset.data(), mean.data(),
                          variance.data(), r.y.data(), r.batch_mean.data(), r.batch_variance.data(),
                          r.reserve_mean.data(), r.reserve_variance.data());
    dnn::fused_batch_norm_grad(attrs, s, dy.data(), x.data(), scale.data(), r.reserve_mean.data(),
                               r.reserve_variance.data(), r.dx.data(), r.scale_backprop.data(),
                               r.offset_backprop.data());
    return r;
  }
#endif
};

template <class A, class B>
void check_close(const BatchNormRun<A>& got, const BatchNormRun<B>& want) {
  CHECK(close(got.y, want.y));
  CHECK(close(got.batch_mean, want.batch_mean));
  CHECK(close(got.batch_variance, want.batch_variance));
  CHECK(close(got.reserve_mean, want.reserve_mean));
  CHECK(close(got.reserve_variance, want.reserve_variance));
  CHECK(close(got.dx, want.dx));
  CHECK(close(got.scale_backprop, want.scale_backprop));
  CHECK(close(got.offset_backprop, want.offset_backprop));
}

// Batch 1, odd channel counts (3, 37), one row per channel... and a large batch (64 x 32 x 32 x 37:
// 65536 rows per channel, enough bytes for oneDNN to use two threads).
const std::vector<std::array<std::int64_t, 4>>& batch_norm_shapes() {
  static const std::vector<std::array<std::int64_t, 4>> shapes = {
      {1, 5, 7, 3}, {2, 3, 3, 37}, {8, 4, 4, 16}, {3, 1, 1, 5}, {64, 32, 32, 37}};
  return shapes;
}

const std::vector<eagle::opdefs::FusedBatchNormAttrs>& batch_norm_attrs() {
  static const std::vector<eagle::opdefs::FusedBatchNormAttrs> attrs = {
      {1e-3, 1.0, true}, {1e-5, 0.3, true}, {1e-3, 1.0, false}, {0.0, 1.0, true}};
  return attrs;
}

}  // namespace

TEST_CASE("the float32 batch norm reference agrees with its float64 run") {
  unsigned seed = 1;
  for (const auto& [n, h, w, c] : batch_norm_shapes()) {
    for (const auto& a : batch_norm_attrs()) {
      INFO("x [" << n << "," << h << "," << w << "," << c << "], epsilon " << a.epsilon
                 << ", factor " << a.exponential_avg_factor << ", training " << a.is_training);
      const BatchNormCase bn(n, h, w, c, a, seed++);
      check_close(bn.reference<float>(), bn.reference<double>());
    }
  }
}

TEST_CASE("FusedBatchNormV3 statistics keep TensorFlow's running averages and reserve spaces") {
  // Training at factor 0.3: batch_mean = 0.7 old + 0.3 mean, batch_variance = 0.7 old +
  // 0.3 variance n / (n - 1), the reserve spaces the batch's mean and biased variance, computed
  // here from the op's own reserve spaces in float32: the same bits.
  const BatchNormCase bn(2, 3, 3, 37, {1e-3, 0.3, true}, 7);
  const Tensor x = eagle::constant(bn.x, {2, 3, 3, 37});
  const auto r = eagle::nn::fused_batch_norm(x, eagle::constant(bn.scale),
                                             eagle::constant(bn.offset), eagle::constant(bn.mean),
                                             eagle::constant(bn.variance), 1e-3, 0.3, true);
  const std::vector<float> mean = r.reserve_space_1.to_vector<float>();
  const std::vector<float> variance = r.reserve_space_2.to_vector<float>();
  const std::vector<float> batch_mean = r.batch_mean.to_vector<float>();
  const std::vector<float> batch_variance = r.batch_variance.to_vector<float>();
  const float factor = 0.3f, correction = 18.0f / 17.0f;
  for (std::size_t k = 0; k < 37; ++k) {
    INFO("channel " << k);
    CHECK(batch_mean[k] == (1.0f - factor) * bn.mean[k] + factor * mean[k]);
    CHECK(batch_variance[k] ==
          (1.0f - factor) * bn.variance[k] + factor * variance[k] * correction);
  }
  CHECK(variance[1] == 0.0f);  // the constant channel
  CHECK(r.y.to_vector<float>()[1] == bn.offset[1]);
  const BatchNormRun<double> want = bn.reference<double>();
  CHECK(close(mean, want.reserve_mean));
  CHECK(close(variance, want.reserve_variance));
}

TEST_CASE("FusedBatchNormV3 on the CPU's provider agrees with the reference kernels") {
  // Through the op and its gradient: oneDNN by default, the reference under
  // EAGLE_CONV_PROVIDER=reference (ctest runs this binary both ways).
  unsigned seed = 100;
  for (const auto& [n, h, w, c] : batch_norm_shapes()) {
    for (const auto& a : batch_norm_attrs()) {
      INFO("x [" << n << "," << h << "," << w << "," << c << "], epsilon " << a.epsilon
                 << ", factor " << a.exponential_avg_factor << ", training " << a.is_training);
      const BatchNormCase bn(n, h, w, c, a, seed++);
      const BatchNormRun<float> want = bn.reference<float>();
      const Tensor x = eagle::constant(bn.x, {n, h, w, c});
      const Tensor scale = eagle::constant(bn.scale);
      eagle::GradientTape tape;
      tape.watch(x);
      tape.watch(scale);
      const auto r = eagle::nn::fused_batch_norm(
          x, scale, eagle::constant(bn.offset), eagle::constant(bn.mean),
          eagle::constant(bn.variance), a.epsilon, a.exponential_avg_factor, a.is_training);
      CHECK(close(r.y.to_vector<float>(), want.y));
      CHECK(close(r.batch_mean.to_vector<float>(), want.batch_mean));
      CHECK(close(r.batch_variance.to_vector<float>(), want.batch_variance));
      CHECK(close(r.reserve_space_1.to_vector<float>(), want.reserve_mean));
      CHECK(close(r.reserve_space_2.to_vector<float>(), want.reserve_variance));
      const auto grads = tape.gradient(
          eagle::reduce_sum(eagle::multiply(r.y, eagle::constant(bn.dy, {n, h, w, c}))),
          {x, scale});
      REQUIRE(grads[0].has_value());
      REQUIRE(grads[1].has_value());
      CHECK(close(grads[0]->to_vector<float>(), want.dx));
      CHECK(close(grads[1]->to_vector<float>(), want.scale_backprop));
    }
  }
}

#if defined(EAGLE_WITH_ONEDNN)
TEST_CASE("oneDNN batch norm agrees with the reference kernels on 1 and 2 threads") {
  struct RestoreThreads {
    ~RestoreThreads() { eagle::cpu::set_intra_op_threads(0); }
  } restore;
  unsigned seed = 200;
  for (const auto& [n, h, w, c] : batch_norm_shapes()) {
    for (const auto& a : batch_norm_attrs()) {
      const BatchNormCase bn(n, h, w, c, a, seed++);
      const BatchNormRun<float> want = bn.reference<float>();
      for (int threads : {1, 2}) {
        INFO("x [" << n << "," << h << "," << w << "," << c << "], epsilon " << a.epsilon
                   << ", factor " << a.exponential_avg_factor << ", training " << a.is_training
                   << ", " << threads << " threads");
        eagle::cpu::set_intra_op_threads(threads);
        const BatchNormRun<float> got = bn.onednn();
        if (a.epsilon == 0.0) {  // the constant channel: 0 x infinity in y, as TensorFlow's
          CHECK(std::isnan(got.y[1]));
          CHECK(std::isnan(want.y[1]));
        }
        check_close(got, want);
        // The statistics outputs follow from the reserve spaces by the reference's arithmetic.
        const float f = static_cast<float>(a.exponential_avg_factor);
        const std::int64_t rows = n * h * w;
        const float correction = rows > 1 ? float(rows) / float(rows - 1) : 1.0f;
        for (std::size_t k = 0; k < got.batch_mean.size(); ++k) {
          if (!a.is_training) {
            CHECK(got.reserve_mean[k] == bn.mean[k]);
            CHECK(got.batch_variance[k] == bn.variance[k]);
          } else if (f == 1.0f) {
            CHECK(got.batch_mean[k] == got.reserve_mean[k]);
            CHECK(got.batch_variance[k] == got.reserve_variance[k] * correction);
          } else {
            CHECK(got.batch_mean[k] == (1.0f - f) * bn.mean[k] + f * got.reserve_mean[k]);
          }
        }
      }
    }
  }
  // The large shape runs oneDNN's JIT kernels, not its reference implementation.
  const std::string impl =
      eagle::cpu::onednn::batch_norm_implementation({1e-3, 1.0, true}, {64, 32, 32, 37});
  INFO(impl);
  CHECK(impl.find("ref") == std::string::npos);
}
#endif
