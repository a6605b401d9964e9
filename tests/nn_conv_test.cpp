// conv2d, max_pool2d, avg_pool2d and their backward ops against TensorFlow
// (tests/fixtures/tf_nn_conv.json, written by tests/tools/gen_nn_fixture.py) in float64 and
// float32, on the CPU and a simulated GPU, forward, backward and through a GradientTape; their
// errors against TensorFlow's texts; oneDNN against the reference kernels on random shapes.
// ctest runs this binary twice: with the default provider and with EAGLE_CONV_PROVIDER=reference
// (Note [Convolution providers]).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "conv_test_support.hpp"
#include "cpu/conv_kernels.hpp"
#include "cpu/conv_reference.hpp"
#include "cpu/max_pool_direct.hpp"
#include "eagle/eagle.hpp"
#include "json_reader.hpp"
#if defined(EAGLE_WITH_ONEDNN)
#include "cpu/intra_op_pool.hpp"
#include "cpu/onednn/onednn_conv.hpp"

namespace opdefs = eagle::opdefs;
#endif

namespace {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;
using eagle_test::Json;

const Json& fixture() {
  static const Json json = Json::parse_file(EAGLE_FIXTURE_DIR "/tf_nn_conv.json");
  return json;
}

Shape shape_of(const Json& j) {
  std::vector<std::int64_t> dims;
  for (const Json& d : j.array()) dims.push_back(d.integer());
  return Shape(dims);
}

std::array<std::int64_t, 2> pair_of(const Json& j) {
  return {j.array()[0].integer(), j.array()[1].integer()};
}

// gen_nn_fixture.py's pattern(): exact in float32 and float64.
Tensor pattern(const Shape& shape, std::int64_t salt, DType dtype, bool ties = false) {
  std::vector<double> v(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::int64_t k =
        (static_cast<std::int64_t>(i) * 7919 + salt * 104729) % (ties ? 3 : 2049);
    v[i] = ties ? static_cast<double>(k) : static_cast<double>(k - 1024) / 1024;
  }
  return eagle::cast(eagle::constant(v, shape), dtype);
}

// float64: TensorFlow's float64 values to 1e-9 (the fixture keeps 10 digits); float32: 1e-5
// relative to the element, or to the tensor's largest value for elements near zero.
void check_close(const Tensor& got, const Json& want, const std::string& what) {
  INFO(what << " on " << got.device() << " as " << eagle::dtype_name(got.dtype()));
  const std::vector<double> g = eagle::cast(got, DType::kFloat64).to_vector<double>();
  const auto& w = want.array();
  REQUIRE(g.size() == w.size());
  double scale = 0;
  for (const Json& v : w) scale = std::max(scale, std::fabs(v.number()));
  const double rtol = got.dtype() == DType::kFloat64 ? 1e-9 : 1e-5;
  int bad = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double e = w[i].number();
    if (std::fabs(g[i] - e) > rtol * (std::fabs(e) + scale) && bad++ < 5) {
      FAIL_CHECK("element " << i << ": " << g[i] << " vs TensorFlow's " << e);
    }
  }
  CHECK(bad == 0);
}

void run_conv_cases(DType dtype) {
  for (const Json& c : fixture()["conv2d"].array()) {
    INFO(c["name"].str());
    const eagle::nn::Conv2DOptions options{pair_of(c["strides"]), c["padding"].str(),
                                           pair_of(c["dilations"])};
    const Shape x_shape = shape_of(c["x_shape"]), f_shape = shape_of(c["filter_shape"]);
    const Tensor x = pattern(x_shape, 1, dtype), f = pattern(f_shape, 2, dtype);
    const Tensor y = eagle::nn::conv2d(x, f, options);
    REQUIRE(y.shape() == shape_of(c["y_shape"]));
    check_close(y, c["y"], "Conv2D");
    const Tensor dy = pattern(y.shape(), 3, dtype);
    check_close(eagle::nn::conv2d_backprop_input(x_shape, f, dy, options), c["dx"],
                "Conv2DBackpropInput");
    check_close(eagle::nn::conv2d_backprop_filter(x, f_shape, dy, options), c["dfilter"],
                "Conv2DBackpropFilter");
    eagle::GradientTape tape;
    tape.watch(std::vector<eagle::GradientSource>{x, f});
    const Tensor loss = eagle::reduce_sum(eagle::nn::conv2d(x, f, options) * dy);
    const auto grads = tape.gradient(loss, {x, f});
    check_close(*grads[0], c["dx"], "the tape's gradient of the input");
    check_close(*grads[1], c["dfilter"], "the tape's gradient of the filter");
  }
}

void run_pool_cases(DType dtype) {
  for (const Json& c : fixture()["pool2d"].array()) {
    INFO(c["name"].str());
    const eagle::nn::Pool2DOptions options{pair_of(c["ksize"]), pair_of(c["strides"]),
                                           c["padding"].str()};
    const Shape x_shape = shape_of(c["x_shape"]);
    const Tensor x = pattern(x_shape, 1, dtype, c["ties"].boolean());
    const Tensor dy = pattern(shape_of(c["y_shape"]), 3, dtype);
    for (const std::string kind : {"max", "avg"}) {
      INFO(kind);
      const bool max = kind == "max";
      const Tensor y = max ? eagle::nn::max_pool2d(x, options) : eagle::nn::avg_pool2d(x, options);
      REQUIRE(y.shape() == shape_of(c["y_shape"]));
      check_close(y, c[kind]["y"], max ? "MaxPool" : "AvgPool");
      check_close(max ? eagle::nn::max_pool_grad(x, y, dy, options)
                      : eagle::nn::avg_pool_grad(x_shape, dy, options),
                  c[kind]["dx"], max ? "MaxPoolGrad" : "AvgPoolGrad");
      eagle::GradientTape tape;
      tape.watch(x);
      const Tensor pooled =
          max ? eagle::nn::max_pool2d(x, options) : eagle::nn::avg_pool2d(x, options);
      const auto grads = tape.gradient(eagle::reduce_sum(pooled * dy), {x});
      check_close(*grads[0], c[kind]["dx"], "the tape's gradient");
    }
  }
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

}  // namespace

TEST_CASE("the nn fixture was written by TensorFlow and covers the issue's cases") {
  CHECK(fixture()["generator"].str() == "tests/tools/gen_nn_fixture.py");
  CHECK(fixture()["tensorflow"].str() == "2.21.0");
  CHECK(fixture()["conv2d"].array().size() >= 20u);  // 6 of them grouped
  CHECK(fixture()["pool2d"].array().size() >= 9u);
  CHECK(fixture()["int_max_pool2d"].array().size() >= 5u);
  CHECK(fixture()["errors"].array().size() >= 22u);
}

TEST_CASE("the convolution provider is the one asked for") {
  const char* env = std::getenv("EAGLE_CONV_PROVIDER");
  (void)eagle::zeros({1}, DType::kFloat32);  // the runtime registers its kernels
  const std::vector<std::string> built = eagle::cpu::built_conv_providers();
  const std::string expected = env != nullptr && *env != '\0' ? env : built.back();
  CHECK(eagle::cpu::active_conv_provider() == expected);
#if defined(EAGLE_WITH_ONEDNN)
  CHECK(built == std::vector<std::string>{"reference", "onednn"});
#else
  CHECK(built == std::vector<std::string>{"reference"});
#endif
}

TEST_CASE("conv2d and its backprops give TensorFlow's values on the CPU") {
  auto scope = eagle::device("/CPU:0");
  SECTION("float64") { run_conv_cases(DType::kFloat64); }
  SECTION("float32") { run_conv_cases(DType::kFloat32); }
}

TEST_CASE("conv2d and its backprops give TensorFlow's values on a simulated GPU") {
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  auto scope = eagle::device("/GPU:0");
  SECTION("float64") { run_conv_cases(DType::kFloat64); }
  SECTION("float32") { run_conv_cases(DType::kFloat32); }
}

TEST_CASE("max_pool2d and avg_pool2d and their gradients give TensorFlow's values on the CPU") {
  auto scope = eagle::device("/CPU:0");
  SECTION("float64") { run_pool_cases(DType::kFloat64); }
  SECTION("float32") { run_pool_cases(DType::kFloat32); }
}

TEST_CASE("max_pool2d and avg_pool2d and their gradients give TensorFlow's values on a GPU") {
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  auto scope = eagle::device("/GPU:0");
  SECTION("float64") { run_pool_cases(DType::kFloat64); }
  SECTION("float32") { run_pool_cases(DType::kFloat32); }
}

TEST_CASE("the ops run on the device asked for under TensorFlow's names") {
  std::vector<std::string> lines;
  eagle::debugging::set_log_device_placement(true);
  eagle::debugging::set_log_sink(
      [&](eagle::debugging::LogLevel, std::string_view line) { lines.emplace_back(line); });
  {
    auto scope = eagle::device("/GPU:0");
    const Tensor x = pattern(Shape{1, 4, 4, 1}, 1, DType::kFloat32);
    const Tensor f = pattern(Shape{2, 2, 1, 1}, 2, DType::kFloat32);
    (void)eagle::nn::max_pool2d(eagle::nn::conv2d(x, f));
    (void)eagle::nn::avg_pool2d(x);
  }
  eagle::debugging::set_log_sink(nullptr);
  eagle::debugging::set_log_device_placement(false);
  const std::string gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
  for (const char* op : {"Conv2D", "MaxPool", "AvgPool"}) {
    CHECK(std::count(lines.begin(), lines.end(),
                     std::string("Executing op ") + op + " in device " + gpu) == 1);
  }
}

TEST_CASE("half-precision convolutions and pools round the float32 result") {
  for (const DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    const Tensor x = pattern(Shape{1, 6, 5, 3}, 1, DType::kFloat32);
    const Tensor f = pattern(Shape{3, 2, 3, 2}, 2, DType::kFloat32);
    const eagle::nn::Conv2DOptions options{{2, 1}, "SAME"};
    const Tensor want =
        eagle::cast(eagle::nn::conv2d(eagle::cast(eagle::cast(x, dtype), DType::kFloat32),
                                      eagle::cast(eagle::cast(f, dtype), DType::kFloat32), options),
                    dtype);
    const Tensor got = eagle::nn::conv2d(eagle::cast(x, dtype), eagle::cast(f, dtype), options);
    CHECK(got.dtype() == dtype);
    CHECK(eagle::cast(got, DType::kFloat32).to_vector<float>() ==
          eagle::cast(want, DType::kFloat32).to_vector<float>());
    const Tensor pooled = eagle::nn::max_pool2d(eagle::cast(x, dtype));
    CHECK(eagle::cast(pooled, DType::kFloat32).to_vector<float>() ==
          eagle::nn::max_pool2d(eagle::cast(eagle::cast(x, dtype), DType::kFloat32))
              .to_vector<float>());
  }
}

TEST_CASE("bad convolutions and pools get TensorFlow's errors") {
  for (const Json& c : fixture()["errors"].array()) {
    INFO(c["name"].str());
    const Tensor x = eagle::zeros(shape_of(c["x_shape"]), DType::kFloat32);
    try {
      const std::string op = c["op"].str();
      if (op == "conv2d") {
        const Tensor f = eagle::zeros(shape_of(c["filter_shape"]), DType::kFloat32);
        (void)eagle::nn::conv2d(
            x, f, {pair_of(c["strides"]), c["padding"].str(), pair_of(c["dilations"])});
      } else {
        const eagle::nn::Pool2DOptions options{pair_of(c["ksize"]), pair_of(c["strides"]),
                                               c["padding"].str()};
        (void)(op == "max_pool2d" ? eagle::nn::max_pool2d(x, options)
                                  : eagle::nn::avg_pool2d(x, options));
      }
      FAIL("no error");
    } catch (const eagle::Error& e) {
      CHECK(std::string(eagle::error_code_name(e.code())) == code_spelling(c["error"].str()));
      CHECK(std::string(e.what()) == c["message"].str());
    }
  }
}

TEST_CASE("bad padding, dtypes and backprop shapes get TensorFlow's errors") {
  const Tensor x = eagle::zeros({1, 5, 5, 2}, DType::kFloat32);
  const Tensor f = eagle::zeros({3, 3, 2, 4}, DType::kFloat32);
  using eagle::nn::Conv2DOptions;
  using eagle::nn::Pool2DOptions;
  CHECK_THROWS_MATCHES(eagle::nn::conv2d(x, f, {{1, 1}, "FOO"}), eagle::InvalidArgumentError,
                       Catch::Message("Value for attr 'padding' of \"FOO\" is not in the list of "
                                      "allowed values: \"SAME\", \"VALID\", \"EXPLICIT\" "
                                      "[Op:Conv2D]"));
  CHECK_THROWS_MATCHES(eagle::nn::avg_pool2d(x, {{2, 2}, std::nullopt, "same"}),
                       eagle::InvalidArgumentError,
                       Catch::Message("Value for attr 'padding' of \"same\" is not in the list of "
                                      "allowed values: \"SAME\", \"VALID\" [Op:AvgPool]"));
  CHECK_THROWS_MATCHES(
      eagle::nn::max_pool2d(x, {{2, 2}, std::nullopt, "EXPLICIT"}), eagle::InvalidArgumentError,
      Catch::Message("explicit_paddings attribute must contain 8 values, but got: 0 [Op:MaxPool]"));
  CHECK_THROWS_MATCHES(
      eagle::nn::conv2d(x, eagle::zeros({3, 3, 2, 4}, DType::kFloat64)),
      eagle::InvalidArgumentError,
      Catch::Message("cannot compute Conv2D as input #1(zero-based) was expected to be a float "
                     "tensor but is a double tensor [Op:Conv2D]"));
  CHECK_THROWS_MATCHES(
      eagle::nn::conv2d(eagle::zeros({1, 5, 5, 2}, DType::kInt64),
                        eagle::zeros({3, 3, 2, 4}, DType::kInt64)),
      eagle::InvalidArgumentError,
      Catch::Message("Value for attr 'T' of int64 is not in the list of allowed values: bfloat16, "
                     "half, float, double [Op:Conv2D]"));
  // Grouped: the backprops check the groups as Conv2D does (Note [Grouped convolution]).
  CHECK_THROWS_MATCHES(eagle::nn::conv2d(eagle::zeros({1, 5, 5, 0}, DType::kFloat32), f),
                       eagle::UnimplementedError,
                       Catch::Message("An input of depth 0 with a filter of depth 2 (zero groups) "
                                      "is not supported [Op:Conv2D]"));
  CHECK_THROWS_MATCHES(
      eagle::nn::conv2d_backprop_input({1, 5, 5, 4}, eagle::zeros({3, 3, 2, 5}, DType::kFloat32),
                                       eagle::zeros({1, 3, 3, 5}, DType::kFloat32)),
      eagle::InvalidArgumentError,
      Catch::Message("output depth must be evenly divisible by number of groups: 5 vs 2 "
                     "[Op:Conv2DBackpropInput]"));
  CHECK_THROWS_MATCHES(
      eagle::nn::conv2d_backprop_filter(eagle::zeros({1, 5, 5, 6}, DType::kFloat32), {3, 3, 2, 4},
                                        eagle::zeros({1, 3, 3, 4}, DType::kFloat32)),
      eagle::InvalidArgumentError,
      Catch::Message("output depth must be evenly divisible by number of groups: 4 vs 3 "
                     "[Op:Conv2DBackpropFilter]"));
  CHECK_THROWS_MATCHES(
      eagle::nn::conv2d_backprop_filter(eagle::zeros({1, 5, 5, 6}, DType::kFloat32), {3, 3, 4, 4},
                                        eagle::zeros({1, 3, 3, 4}, DType::kFloat32)),
      eagle::InvalidArgumentError,
      Catch::Message("Conv2DCustomBackpropFilter: input depth must be evenly divisible by filter "
                     "depth: 6 vs 4 [Op:Conv2DBackpropFilter]"));
  CHECK_THROWS_MATCHES(
      eagle::nn::conv2d_backprop_input({1, 5, 5, 2}, f,
                                       eagle::zeros({1, 3, 3, 5}, DType::kFloat32)),
      eagle::InvalidArgumentError,
      Catch::Message("Conv2DCustomBackpropInput: filter and out_backprop must have the same "
                     "out_depth [Op:Conv2DBackpropInput]"));
  CHECK_THROWS_MATCHES(
      eagle::nn::conv2d_backprop_input({1, 5, 5, 2}, f,
                                       eagle::zeros({1, 2, 3, 4}, DType::kFloat32)),
      eagle::InvalidArgumentError,
      Catch::Message("Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: "
                     "actual = 2, computed = 3 spatial_dim: 1 input: 5 filter: 3 output: 2 "
                     "stride: 1 dilation: 1 [Op:Conv2DBackpropInput]"));
  CHECK_THROWS_MATCHES(
      eagle::nn::conv2d_backprop_filter(x, {3, 3, 2, 4},
                                        eagle::zeros({1, 3, 3, 5}, DType::kFloat32)),
      eagle::InvalidArgumentError,
      Catch::Message("Conv2DCustomBackpropFilter: filter and out_backprop must have the same "
                     "out_depth [Op:Conv2DBackpropFilter]"));
  const Tensor pooled = eagle::nn::max_pool2d(x);
  CHECK_THROWS_MATCHES(
      eagle::nn::max_pool_grad(x, pooled, eagle::zeros({1, 2, 3, 2}, DType::kFloat32)),
      eagle::InvalidArgumentError,
      Catch::Message("Expected grad shape to be [1,2,2,2], but got [1,2,3,2] "
                     "[Op:MaxPoolGrad]"));
}

TEST_CASE("empty batches and channels give empty or zero results") {
  const Tensor x = eagle::zeros({0, 5, 5, 2}, DType::kFloat32);
  const Tensor f = eagle::ones({3, 3, 2, 4}, DType::kFloat32);
  CHECK(eagle::nn::conv2d(x, f).shape() == Shape{0, 3, 3, 4});
  const Tensor dw = eagle::nn::conv2d_backprop_filter(x, {3, 3, 2, 4},
                                                      eagle::zeros({0, 3, 3, 4}, DType::kFloat32));
  CHECK(dw.to_vector<float>() == std::vector<float>(72, 0.0f));
  CHECK(eagle::nn::conv2d(eagle::ones({1, 5, 5, 2}, DType::kFloat32),
                          eagle::ones({3, 3, 2, 0}, DType::kFloat32))
            .shape() == Shape{1, 3, 3, 0});
  CHECK(eagle::nn::max_pool2d(eagle::zeros({1, 5, 5, 0}, DType::kFloat32)).shape() ==
        Shape{1, 2, 2, 0});
}

namespace {

// Note [Grouped convolution]: a grouped Conv2D is the concatenation of each group's Conv2D of its
// input channels with its filters; its backprops likewise, group by group.
void check_grouped_against_composition(DType dtype) {
  struct Case {
    Shape x, f;
    eagle::nn::Conv2DOptions options;
  };
  const std::vector<Case> cases = {
      {{2, 6, 5, 6}, {3, 3, 3, 4}, {{1, 1}, "SAME"}},
      {{1, 9, 8, 6}, {3, 2, 2, 6}, {{2, 2}, "VALID"}},
      {{2, 4, 4, 4}, {1, 1, 1, 8}, {{1, 1}, "VALID"}},
      {{1, 7, 6, 4}, {4, 4, 2, 6}, {{1, 1}, "SAME"}},
      {{1, 8, 9, 4}, {3, 3, 2, 4}, {{1, 1}, "SAME", {2, 2}}},
      {{3, 5, 7, 8}, {2, 3, 2, 12}, {{2, 1}, "SAME"}},
  };
  for (const Case& c : cases) {
    const std::int64_t groups = c.x[3] / c.f[2];
    INFO("x " << c.x.to_string() << " filter " << c.f.to_string() << ": " << groups << " groups");
    const Tensor x = pattern(c.x, 1, dtype), f = pattern(c.f, 2, dtype);
    const Tensor y = eagle::nn::conv2d(x, f, c.options);
    const Tensor dy = pattern(y.shape(), 3, dtype);
    const auto xs = eagle::split(x, static_cast<int>(groups), 3);
    const auto fs = eagle::split(f, static_cast<int>(groups), 3);
    const auto dys = eagle::split(dy, static_cast<int>(groups), 3);
    std::vector<Tensor> ys, dxs, dfs;
    for (std::int64_t g = 0; g < groups; ++g) {
      ys.push_back(eagle::nn::conv2d(xs[g], fs[g], c.options));
      dxs.push_back(eagle::nn::conv2d_backprop_input(xs[g].shape(), fs[g], dys[g], c.options));
      dfs.push_back(eagle::nn::conv2d_backprop_filter(xs[g], fs[g].shape(), dys[g], c.options));
    }
    auto check = [&](const Tensor& got, const Tensor& want, const char* what) {
      INFO(what << " on " << got.device() << " as " << eagle::dtype_name(got.dtype()));
      REQUIRE(got.shape() == want.shape());
      const auto g = eagle::cast(got, DType::kFloat64).to_vector<double>();
      const auto w = eagle::cast(want, DType::kFloat64).to_vector<double>();
      const double tol = dtype == DType::kFloat64 ? 1e-12 : 1e-5;
      for (std::size_t i = 0; i < g.size(); ++i) {
        if (std::fabs(g[i] - w[i]) > tol * (1 + std::fabs(w[i]))) {
          FAIL("element " << i << ": " << g[i] << " vs the composition's " << w[i]);
        }
      }
    };
    check(y, eagle::concat(ys, 3), "Conv2D");
    check(eagle::nn::conv2d_backprop_input(c.x, f, dy, c.options), eagle::concat(dxs, 3),
          "Conv2DBackpropInput");
    check(eagle::nn::conv2d_backprop_filter(x, c.f, dy, c.options), eagle::concat(dfs, 3),
          "Conv2DBackpropFilter");
    eagle::GradientTape tape;
    tape.watch(std::vector<eagle::GradientSource>{x, f});
    const auto grads =
        tape.gradient(eagle::reduce_sum(eagle::nn::conv2d(x, f, c.options) * dy), {x, f});
    check(*grads[0], eagle::concat(dxs, 3), "the tape's gradient of the input");
    check(*grads[1], eagle::concat(dfs, 3), "the tape's gradient of the filter");
  }
}

template <class T>
Tensor int_tensor(const Json& values, const Shape& shape) {
  std::vector<T> v;
  for (const Json& e : values.array()) v.push_back(static_cast<T>(e.integer()));
  return eagle::constant(v, shape);
}

template <class T>
void check_int_max_pool(const Json& c) {
  const eagle::nn::Pool2DOptions options{pair_of(c["ksize"]), pair_of(c["strides"]),
                                         c["padding"].str()};
  const Tensor y = eagle::nn::max_pool2d(int_tensor<T>(c["x"], shape_of(c["x_shape"])), options);
  CHECK(y.dtype() == eagle::dtype_of_v<T>);
  REQUIRE(y.shape() == shape_of(c["y_shape"]));
  std::vector<T> want;
  for (const Json& e : c["y"].array()) want.push_back(static_cast<T>(e.integer()));
  CHECK(y.to_vector<T>() == want);
}

void run_int_max_pool_cases() {
  for (const Json& c : fixture()["int_max_pool2d"].array()) {
    INFO(c["name"].str());
    if (c["dtype"].str() == "int32") {
      check_int_max_pool<std::int32_t>(c);
    } else {
      check_int_max_pool<std::int64_t>(c);
    }
  }
}

}  // namespace

TEST_CASE("grouped conv2d and its backprops equal the per-group composition on the CPU") {
  auto scope = eagle::device("/CPU:0");
  SECTION("float64") { check_grouped_against_composition(DType::kFloat64); }
  SECTION("float32") { check_grouped_against_composition(DType::kFloat32); }
}

TEST_CASE("grouped conv2d and its backprops equal the per-group composition on a simulated GPU") {
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  auto scope = eagle::device("/GPU:0");
  SECTION("float64") { check_grouped_against_composition(DType::kFloat64); }
  SECTION("float32") { check_grouped_against_composition(DType::kFloat32); }
}

TEST_CASE("grouped half-precision convolutions round the float32 result") {
  const Tensor x = pattern(Shape{1, 6, 5, 4}, 1, DType::kFloat32);
  const Tensor f = pattern(Shape{3, 2, 2, 6}, 2, DType::kFloat32);
  for (const DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    const Tensor want = eagle::cast(
        eagle::nn::conv2d(eagle::cast(eagle::cast(x, dtype), DType::kFloat32),
                          eagle::cast(eagle::cast(f, dtype), DType::kFloat32), {{1, 1}, "SAME"}),
        dtype);
    const Tensor got =
        eagle::nn::conv2d(eagle::cast(x, dtype), eagle::cast(f, dtype), {{1, 1}, "SAME"});
    CHECK(eagle::cast(got, DType::kFloat32).to_vector<float>() ==
          eagle::cast(want, DType::kFloat32).to_vector<float>());
  }
}

TEST_CASE("integer max_pool2d gives TensorFlow's exact values on the CPU") {
  auto scope = eagle::device("/CPU:0");
  run_int_max_pool_cases();
}

TEST_CASE("integer max_pool2d asked for on a GPU runs on the CPU as in TensorFlow") {
  // TensorFlow's GPU MaxPool is floating only: soft placement takes int32/int64 to the CPU.
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  std::vector<std::string> lines;
  eagle::debugging::set_log_device_placement(true);
  eagle::debugging::set_log_sink(
      [&](eagle::debugging::LogLevel, std::string_view line) { lines.emplace_back(line); });
  {
    auto scope = eagle::device("/GPU:0");
    run_int_max_pool_cases();
  }
  eagle::debugging::set_log_sink(nullptr);
  eagle::debugging::set_log_device_placement(false);
  const std::string cpu =
      "Executing op MaxPool in device /job:localhost/replica:0/task:0/device:CPU:0";
  CHECK(std::count(lines.begin(), lines.end(), cpu) ==
        static_cast<std::ptrdiff_t>(fixture()["int_max_pool2d"].array().size()));
}

TEST_CASE("integer max_pool2d by hand: negative values, SAME padding never wins") {
  // 2x3 input, all negative; 2x2 SAME stride 1 windows at the last row and column see padding.
  const Tensor x = eagle::constant(std::vector<std::int32_t>{-5, -3, -8, -7, -9, -2}, {1, 2, 3, 1});
  const Tensor y = eagle::nn::max_pool2d(x, {{2, 2}, std::array<std::int64_t, 2>{1, 1}, "SAME"});
  CHECK(y.to_vector<std::int32_t>() == std::vector<std::int32_t>{-3, -2, -2, -7, -2, -2});
  const std::int64_t big = std::int64_t{1} << 40;
  const Tensor x64 = eagle::constant(std::vector<std::int64_t>{-big - 1, -big}, {1, 1, 2, 1});
  CHECK(eagle::nn::max_pool2d(x64, {{1, 2}, std::nullopt, "SAME"}).to_vector<std::int64_t>() ==
        std::vector<std::int64_t>{-big});
}

// Note [MaxPool and NaN]: found on an H200, where cuDNN propagated a NaN that oneDNN and the
// reference had dropped. Every position of a 3x3 window, on 1 and 2 threads, every floating dtype
// (float32 on the direct kernels, Note [Direct max pooling]) and the simulated GPU.
TEST_CASE("max_pool2d gives NaN for a window holding one wherever it lies and on every kernel") {
  struct RestoreThreads {
    ~RestoreThreads() { eagle::cpu::set_intra_op_threads(0); }
  } restore;
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  const eagle::nn::Pool2DOptions window{{3, 3}, std::array<std::int64_t, 2>{1, 1}, "VALID"};
  for (int threads : {1, 2}) {
    eagle::cpu::set_intra_op_threads(threads);
    for (const char* device : {"/CPU:0", "/GPU:0"}) {
      for (DType d : {eagle::kFloat32, eagle::kFloat64, eagle::kFloat16, eagle::kBFloat16}) {
        for (int at = 0; at < 9; ++at) {
          INFO(threads << " threads, " << device << ", " << eagle::dtype_name(d) << ", NaN at "
                       << at);
          // Channel 1 holds the NaN; channel 0 the same values without it.
          std::vector<float> v(18);
          for (int i = 0; i < 9; ++i) v[2 * i] = v[2 * i + 1] = 0.25f * static_cast<float>(i % 5);
          v[2 * at + 1] = NAN;
          eagle::Tensor y;
          eagle::Tensor grad;
          eagle::with_device(device, [&] {
            const Tensor x = eagle::cast(eagle::constant(v, {1, 3, 3, 2}), d);
            y = eagle::nn::max_pool2d(x, window);
            grad = eagle::nn::max_pool_grad(x, y, eagle::ones_like(y), window);
            return 0;
          });
          const std::vector<double> got = eagle::cast(y, eagle::kFloat64).to_vector<double>();
          CHECK(got[0] == 1.0);
          CHECK(std::isnan(got[1]));
          // The gradient goes to the NaN (the first maximum) in channel 1, to the first 1.0
          // (position 4) in channel 0.
          const std::vector<double> g = eagle::cast(grad, eagle::kFloat64).to_vector<double>();
          for (int i = 0; i < 9; ++i) {
            CHECK(g[static_cast<std::size_t>(2 * i)] == (i == 4 ? 1.0 : 0.0));
            CHECK(g[static_cast<std::size_t>(2 * i + 1)] == (i == at ? 1.0 : 0.0));
          }
        }
      }
    }
  }
}

TEST_CASE("integer max_pool2d has no gradient and AvgPool and MaxPoolGrad stay floating") {
  const Tensor x = eagle::constant(std::vector<std::int32_t>{1, 4, 3, 2}, {1, 2, 2, 1});
  eagle::GradientTape tape;
  tape.watch(x);  // a warning, as TensorFlow's: integer tensors are not watched
  const Tensor y = eagle::nn::max_pool2d(x);
  const auto grads = tape.gradient(eagle::cast(y, DType::kFloat32), {x});
  CHECK_FALSE(grads[0].has_value());
  CHECK_THROWS_MATCHES(eagle::nn::avg_pool2d(x), eagle::InvalidArgumentError,
                       Catch::Message("Value for attr 'T' of int32 is not in the list of allowed "
                                      "values: bfloat16, half, float, double [Op:AvgPool]"));
  CHECK_THROWS_MATCHES(eagle::nn::max_pool_grad(x, y, y), eagle::InvalidArgumentError,
                       Catch::Message("Value for attr 'T' of int32 is not in the list of allowed "
                                      "values: bfloat16, half, float, double [Op:MaxPoolGrad]"));
}

#if defined(EAGLE_WITH_ONEDNN)
namespace {

using eagle_test::close;
using eagle_test::pads;

// oneDNN's Conv2D and both backprops against the reference kernels for geometry `a` (its padding
// filled in here), and the op's own result y against the reference.
void check_conv_against_reference(eagle::opdefs::Conv2DAttrs a, const std::vector<float>& x,
                                  const std::vector<float>& f, const std::vector<float>& dy,
                                  const Tensor& y) {
  a = eagle_test::with_padding(a);
  std::vector<float> ref(y.num_elements()), dnn(y.num_elements());
  eagle::cpu::reference::conv2d(a, x.data(), f.data(), ref.data());
  eagle::cpu::onednn::conv2d(a, x.data(), f.data(), dnn.data());
  CHECK(close(dnn, ref));
  CHECK(close(y.to_vector<float>(), ref));
  std::vector<float> ref_dx(x.size()), dnn_dx(x.size());
  eagle::cpu::reference::conv2d_backprop_input(a, f.data(), dy.data(), ref_dx.data());
  eagle::cpu::onednn::conv2d_backprop_input(a, f.data(), dy.data(), dnn_dx.data());
  CHECK(close(dnn_dx, ref_dx));
  std::vector<float> ref_df(f.size()), dnn_df(f.size());
  eagle::cpu::reference::conv2d_backprop_filter(a, x.data(), dy.data(), ref_df.data());
  eagle::cpu::onednn::conv2d_backprop_filter(a, x.data(), dy.data(), dnn_df.data());
  CHECK(close(dnn_df, ref_df));
}

}  // namespace

TEST_CASE("oneDNN agrees with the reference kernels on random shapes") {
  std::mt19937 rng(17);
  std::uniform_int_distribution<int> small(1, 4), size(1, 12), kernel(1, 4);
  std::uniform_real_distribution<float> value(-1, 1);
  auto random = [&](std::int64_t n) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& x : v) x = value(rng);
    return v;
  };
  for (int trial = 0; trial < 60; ++trial) {
    const std::int64_t n = small(rng), c = small(rng), o = small(rng);
    const std::int64_t h = size(rng), w = size(rng), kh = kernel(rng), kw = kernel(rng);
    const eagle::nn::Conv2DOptions options{{small(rng), small(rng)},
                                           trial % 2 ? "SAME" : "VALID",
                                           {trial % 3 ? 1 : 2, trial % 5 ? 1 : 2}};
    const std::int64_t eh = (kh - 1) * options.dilations[0] + 1;
    const std::int64_t ew = (kw - 1) * options.dilations[1] + 1;
    if (options.padding == "VALID" && (eh > h || ew > w)) continue;
    INFO("trial " << trial << ": x [" << n << "," << h << "," << w << "," << c << "], filter ["
                  << kh << "," << kw << "," << c << "," << o << "], strides " << options.strides[0]
                  << "x" << options.strides[1] << " " << options.padding << " dilations "
                  << options.dilations[0] << "x" << options.dilations[1]);
    // The geometry from the front-end: a Conv2D's attributes as the tape records them.
    const Tensor xt = eagle::constant(random(n * h * w * c), {n, h, w, c});
    const Tensor ft = eagle::constant(random(kh * kw * c * o), {kh, kw, c, o});
    const Tensor y = eagle::nn::conv2d(xt, ft, options);
    const std::vector<float> x = xt.to_vector<float>(), f = ft.to_vector<float>();
    const std::vector<float> dy = random(y.num_elements());
    const eagle::opdefs::Conv2DAttrs a{n, h, w, c, kh, kw, o, y.shape()[1], y.shape()[2],
                                       options.strides[0], options.strides[1], options.dilations[0],
                                       options.dilations[1],
                                       // SAME's padding, as conv_ops.cpp computes it
                                       0, 0, 0, 0, options.padding == "SAME"};
    check_conv_against_reference(a, x, f, dy, y);

    // Pooling with the same input: windows of kh x kw, strides as above.
    const eagle::nn::Pool2DOptions pool{{kh, kw}, options.strides, options.padding};
    if (options.padding == "VALID" && (kh > h || kw > w)) continue;
    const Tensor pooled = eagle::nn::max_pool2d(xt, pool);
    eagle::opdefs::Pool2DAttrs p{n,
                                 h,
                                 w,
                                 c,
                                 kh,
                                 kw,
                                 pooled.shape()[1],
                                 pooled.shape()[2],
                                 options.strides[0],
                                 options.strides[1],
                                 0,
                                 0,
                                 0,
                                 0,
                                 options.padding == "SAME"};
    std::tie(p.pad_top, p.pad_bottom) = pads(p.same, h, p.out_height, p.stride_h, kh);
    std::tie(p.pad_left, p.pad_right) = pads(p.same, w, p.out_width, p.stride_w, kw);
    const std::vector<float> dp = random(pooled.num_elements());
    std::vector<float> r(pooled.num_elements()), d(pooled.num_elements());
    eagle::cpu::reference::max_pool(p, x.data(), r.data());
    eagle::cpu::direct_max_pool_kernels().max_pool(p, x.data(), d.data());
    CHECK(d == r);
    eagle::cpu::reference::avg_pool(p, x.data(), r.data());
    eagle::cpu::onednn::avg_pool(p, x.data(), d.data());
    CHECK(close(d, r));
    std::vector<float> rg(x.size()), dg(x.size());
    eagle::cpu::reference::max_pool_grad(p, x.data(), dp.data(), rg.data());
    eagle::cpu::direct_max_pool_kernels().max_pool_grad(p, x.data(), dp.data(), dg.data());
    CHECK(dg == rg);
    eagle::cpu::reference::avg_pool_grad(p, dp.data(), rg.data());
    eagle::cpu::onednn::avg_pool_grad(p, dp.data(), dg.data());
    CHECK(close(dg, rg));
  }
}

TEST_CASE("oneDNN agrees with the reference kernels on random grouped convolutions") {
  std::mt19937 rng(29);
  std::uniform_int_distribution<int> small(1, 3), groups_of(2, 4), size(1, 10), kernel(1, 3);
  std::uniform_real_distribution<float> value(-1, 1);
  auto random = [&](std::int64_t n) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& x : v) x = value(rng);
    return v;
  };
  int run = 0;
  for (int trial = 0; trial < 40; ++trial) {
    // Trial 1 (SAME) has 37 images: batch blocks of 16 (Note [Batch blocks]).
    const std::int64_t groups = groups_of(rng), n = trial == 1 ? 37 : small(rng);
    const std::int64_t c = groups * small(rng), o = groups * small(rng);
    const std::int64_t h = size(rng), w = size(rng), kh = kernel(rng), kw = kernel(rng);
    const eagle::nn::Conv2DOptions options{{small(rng), small(rng)},
                                           trial % 2 ? "SAME" : "VALID",
                                           {trial % 3 ? 1 : 2, trial % 5 ? 1 : 2}};
    const std::int64_t eh = (kh - 1) * options.dilations[0] + 1;
    const std::int64_t ew = (kw - 1) * options.dilations[1] + 1;
    if (options.padding == "VALID" && (eh > h || ew > w)) continue;
    ++run;
    INFO("trial " << trial << ": x [" << n << "," << h << "," << w << "," << c << "], filter ["
                  << kh << "," << kw << "," << c / groups << "," << o << "], strides "
                  << options.strides[0] << "x" << options.strides[1] << " " << options.padding
                  << " dilations " << options.dilations[0] << "x" << options.dilations[1]);
    const Tensor xt = eagle::constant(random(n * h * w * c), {n, h, w, c});
    const Tensor ft = eagle::constant(random(kh * kw * (c / groups) * o), {kh, kw, c / groups, o});
    const Tensor y = eagle::nn::conv2d(xt, ft, options);
    const std::vector<float> x = xt.to_vector<float>(), f = ft.to_vector<float>();
    const std::vector<float> dy = random(y.num_elements());
    eagle::opdefs::Conv2DAttrs a{n,
                                 h,
                                 w,
                                 c,
                                 kh,
                                 kw,
                                 o,
                                 y.shape()[1],
                                 y.shape()[2],
                                 options.strides[0],
                                 options.strides[1],
                                 options.dilations[0],
                                 options.dilations[1],
                                 0,
                                 0,
                                 0,
                                 0,
                                 options.padding == "SAME",
                                 groups};
    check_conv_against_reference(a, x, f, dy, y);
  }
  CHECK(run >= 20);
}

TEST_CASE("oneDNN runs the seed CNN's convolutions on its direct kernels") {
  // Note [oneDNN layouts]: its JIT kernels, neither the reference implementation oneDNN falls
  // back on nor the gemm-based one an hwio filter gets; on AVX-512 they take eagle's nhwc
  // activations in place.
  using eagle::cpu::onednn::ConvPass;
  const eagle::opdefs::Conv2DAttrs a{128, 13, 13, 32, 3, 3, 64, 11, 11,
                                     1,   1,  1,  1,  0, 0, 0,  0,  false};
  for (ConvPass pass : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardWeights}) {
    const std::string impl = eagle::cpu::onednn::conv2d_implementation(a, pass);
    INFO("pass " << static_cast<int>(pass) << ": " << impl);
    CHECK(impl.find("ref") == std::string::npos);
    if (__builtin_cpu_supports("avx2")) CHECK(impl.find("gemm") == std::string::npos);
    if (__builtin_cpu_supports("avx512f")) {
      CHECK(eagle::cpu::onednn::conv2d_activations_in_place(a, pass));
    }
  }
}

TEST_CASE("oneDNN computes unit-stride input gradients as forward convolutions") {
  // Note [Backprop-input as a forward convolution]: thin padding only, unit strides only.
  using eagle::opdefs::Conv2DAttrs;
  const auto geometry = [](std::int64_t n, std::int64_t h, std::int64_t c, std::int64_t k,
                           std::int64_t o, const eagle::nn::Conv2DOptions& options) {
    const Tensor y =
        eagle::nn::conv2d(eagle::zeros({n, h, h, c}), eagle::zeros({k, k, c, o}), options);
    return eagle_test::with_padding(opdefs::Conv2DAttrs{
        n, h, h, c, k, k, o, y.shape()[1], y.shape()[2], options.strides[0], options.strides[1],
        options.dilations[0], options.dilations[1], 0, 0, 0, 0, options.padding == "SAME"});
  };
  const opdefs::Conv2DAttrs same = geometry(37, 20, 8, 3, 16, {{1, 1}, "SAME"});
  const auto forward = eagle::cpu::onednn::backprop_input_as_forward(same);
  REQUIRE(forward.has_value());
  CHECK(forward->in_height == 20);
  CHECK(forward->in_channels == 16);
  CHECK(forward->out_channels == 8);
  CHECK(forward->pad_top == 1);
  CHECK(forward->pad_right == 1);
  CHECK_FALSE(eagle::cpu::onednn::backprop_input_as_forward(
      geometry(2, 20, 8, 3, 16, {{2, 2}, "SAME"})));  // strided
  CHECK_FALSE(eagle::cpu::onednn::backprop_input_as_forward(
      geometry(2, 5, 8, 3, 16, {{1, 1}, "VALID"})));  // 3x3 gradients padded to 7x7
  // Values: batch blocks (37 images), dilation, and SAME's uneven padding of an even filter.
  std::mt19937 rng(53);
  std::uniform_real_distribution<float> value(-1, 1);
  const opdefs::Conv2DAttrs cases[] = {same, geometry(3, 24, 6, 3, 10, {{1, 1}, "SAME", {2, 2}}),
                                       geometry(2, 30, 5, 4, 7, {{1, 1}, "SAME"}),
                                       geometry(2, 30, 5, 3, 12, {{1, 1}, "VALID"})};
  for (const opdefs::Conv2DAttrs& a : cases) {
    INFO("x [" << a.batch << "," << a.in_height << "," << a.in_width << "," << a.in_channels
               << "], filter " << a.filter_height << "x" << a.filter_width << ", pads " << a.pad_top
               << "," << a.pad_bottom << "," << a.pad_left << "," << a.pad_right);
    CHECK(eagle::cpu::onednn::backprop_input_as_forward(a).has_value());
    std::vector<float> f(a.filter_height * a.filter_width * a.in_channels * a.out_channels);
    std::vector<float> dy(a.batch * a.out_height * a.out_width * a.out_channels);
    for (float& v : f) v = value(rng);
    for (float& v : dy) v = value(rng);
    std::vector<float> want(a.batch * a.in_height * a.in_width * a.in_channels), got(want.size());
    eagle::cpu::reference::conv2d_backprop_input(a, f.data(), dy.data(), want.data());
    eagle::cpu::onednn::conv2d_backprop_input(a, f.data(), dy.data(), got.data());
    CHECK(close(got, want));
  }
}

TEST_CASE(
    "oneDNN convolutions and pools over batch blocks match the reference on any thread count") {
  // Note [Batch blocks]: 37 images are blocks of 16, 16 and 5; on 1, 2 and 3 threads the blocks
  // run on the intra-op pool and give the same bits, on 4 (more threads than blocks) one
  // primitive runs on an OpenMP team.
  struct RestoreThreads {
    ~RestoreThreads() { eagle::cpu::set_intra_op_threads(0); }
  } restore;
  std::mt19937 rng(37);
  std::uniform_real_distribution<float> value(-1, 1);
  auto random = [&](std::int64_t n) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& x : v) x = value(rng);
    return v;
  };
  // x [37, 9, 8, 20], filter [3, 3, 20, 24], strides 1, SAME (pads 1 on each side); pools 2x2/2.
  const eagle::opdefs::Conv2DAttrs a{37, 9, 8, 20, 3, 3, 24, 9, 8, 1, 1, 1, 1, 1, 1, 1, 1, true};
  const eagle::opdefs::Pool2DAttrs p{37, 9, 8, 20, 2, 2, 4, 4, 2, 2, 0, 0, 0, 0, false};
  const std::vector<float> x = random(37 * 9 * 8 * 20), f = random(3 * 3 * 20 * 24);
  const std::vector<float> dy = random(37 * 9 * 8 * 24), dp = random(37 * 4 * 4 * 20);
  struct Results {
    std::vector<float> y, dx, df, pooled, dpool, avg, davg;
  };
  auto compute = [&](auto conv2d, auto backprop_input, auto backprop_filter, auto max_pool,
                     auto max_pool_grad, auto avg_pool, auto avg_pool_grad) {
    Results r{std::vector<float>(dy.size()), std::vector<float>(x.size()),
              std::vector<float>(f.size()),  std::vector<float>(dp.size()),
              std::vector<float>(x.size()),  std::vector<float>(dp.size()),
              std::vector<float>(x.size())};
    conv2d(a, x.data(), f.data(), r.y.data());
    backprop_input(a, f.data(), dy.data(), r.dx.data());
    backprop_filter(a, x.data(), dy.data(), r.df.data());
    max_pool(p, x.data(), r.pooled.data());
    max_pool_grad(p, x.data(), dp.data(), r.dpool.data());
    avg_pool(p, x.data(), r.avg.data());
    avg_pool_grad(p, dp.data(), r.davg.data());
    return r;
  };
  namespace ref = eagle::cpu::reference;
  namespace dnn = eagle::cpu::onednn;
  const Results want =
      compute(ref::conv2d<float>, ref::conv2d_backprop_input<float>,
              ref::conv2d_backprop_filter<float>, ref::max_pool<float>, ref::max_pool_grad<float>,
              ref::avg_pool<float>, ref::avg_pool_grad<float>);
  std::vector<Results> got;
  for (int threads : {1, 2, 3, 4}) {
    INFO(threads << " threads");
    eagle::cpu::set_intra_op_threads(threads);
    const eagle::cpu::MaxPoolKernels& direct = eagle::cpu::direct_max_pool_kernels();
    const auto conv2d = [](const eagle::opdefs::Conv2DAttrs& g, const float* input,
                           const float* filter,
                           float* output) { dnn::conv2d(g, input, filter, output); };
    got.push_back(compute(conv2d, dnn::conv2d_backprop_input, dnn::conv2d_backprop_filter,
                          direct.max_pool, direct.max_pool_grad, dnn::avg_pool,
                          dnn::avg_pool_grad));
    const Results& r = got.back();
    CHECK(close(r.y, want.y));
    CHECK(close(r.dx, want.dx));
    CHECK(close(r.df, want.df));
    CHECK(r.pooled == want.pooled);
    CHECK(r.dpool == want.dpool);
    CHECK(close(r.avg, want.avg));
    CHECK(close(r.davg, want.davg));
  }
  for (int i : {1, 2}) {  // 2 and 3 threads: the bits of 1 thread
    INFO(i + 1 << " threads against 1");
    CHECK(got[i].y == got[0].y);
    CHECK(got[i].dx == got[0].dx);
    CHECK(got[i].df == got[0].df);
    CHECK(got[i].dpool == got[0].dpool);
    CHECK(got[i].avg == got[0].avg);
    CHECK(got[i].davg == got[0].davg);
  }
}
#endif
