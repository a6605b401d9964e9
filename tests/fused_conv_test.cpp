// _FusedConv2D (Note [Fused convolutions]): the bits of Conv2D, BiasAdd and Relu, and of their
// gradients, on every floating dtype, on the CPU and a simulated GPU (ctest also runs this with
// EAGLE_CONV_PROVIDER=reference); and keras::layers::Conv2D asking for it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "eagle/keras.hpp"

namespace {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;
using eagle::nn::FusedActivation;

struct Case {
  std::string what;
  Shape x, filter;
  eagle::nn::Conv2DOptions options;
};

// A first layer (the narrow kernels), 37 images (oneDNN's batch blocks), a grouped and a strided
// VALID convolution with odd channel counts.
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"1 input channel", {3, 9, 8, 1}, {3, 3, 1, 32}, {{1, 1}, "SAME"}},
      {"37 images", {37, 9, 8, 20}, {3, 3, 20, 24}, {{1, 1}, "SAME"}},
      {"2 groups", {2, 7, 6, 4}, {3, 2, 2, 6}, {{2, 1}, "SAME"}},
      {"strided VALID", {2, 10, 7, 3}, {3, 2, 3, 5}, {{3, 2}, "VALID"}},
  };
  return all;
}

// Values in [-1, 1) with a NaN at element 5 when `nan` (Relu lets it through).
Tensor values(const Shape& shape, std::uint64_t seed, DType dtype, bool nan = false) {
  Tensor t = eagle::random_uniform(shape, -1, 1, DType::kFloat64, seed);
  if (nan) {
    std::vector<double> v = t.to_vector<double>();
    v[5] = NAN;
    t = eagle::constant(v, shape);
  }
  return eagle::cast(t, dtype);
}

// Equal as values (NaN with NaN) with the same signs: the same bits for every result here.
bool same_values(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  const std::vector<double> x = eagle::cast(a, DType::kFloat64).to_vector<double>();
  const std::vector<double> y = eagle::cast(b, DType::kFloat64).to_vector<double>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) && std::isnan(y[i])) continue;
    if (x[i] != y[i] || std::signbit(x[i]) != std::signbit(y[i])) return false;
  }
  return true;
}

Tensor unfused(const Tensor& x, const Tensor& f, const Tensor& b,
               const eagle::nn::Conv2DOptions& options, FusedActivation activation) {
  const Tensor y = eagle::nn::bias_add(eagle::nn::conv2d(x, f, options), b);
  return activation == FusedActivation::kRelu ? eagle::relu(y) : y;
}

const char* name_of(FusedActivation a) { return a == FusedActivation::kRelu ? "relu" : "none"; }

}  // namespace

TEST_CASE("_FusedConv2D gives the bits of Conv2D BiasAdd and Relu on every dtype and device") {
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    for (DType d : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
      for (const Case& c : cases()) {
        for (FusedActivation a : {FusedActivation::kNone, FusedActivation::kRelu}) {
          INFO(device << " " << eagle::dtype_name(d) << " " << c.what << " " << name_of(a));
          eagle::with_device(device, [&] {
            const Tensor x = values(c.x, 1, d, true), f = values(c.filter, 2, d);
            const Tensor b = values(Shape{c.filter[3]}, 3, d);
            const Tensor fused = eagle::nn::fused_conv2d(x, f, b, c.options, a);
            CHECK(same_values(fused, unfused(x, f, b, c.options, a)));
            // The NaN reached some outputs, and Relu zeroed others.
            const std::vector<double> v = eagle::cast(fused, DType::kFloat64).to_vector<double>();
            CHECK(std::any_of(v.begin(), v.end(), [](double e) { return std::isnan(e); }));
            if (a == FusedActivation::kRelu) {
              CHECK(std::any_of(v.begin(), v.end(), [](double e) { return e == 0; }));
            }
            return 0;
          });
        }
      }
    }
  }
}

TEST_CASE("the gradients of _FusedConv2D are those of Conv2D BiasAdd and Relu bit for bit") {
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    for (DType d : {DType::kFloat32, DType::kFloat64}) {
      for (const Case& c : cases()) {
        for (FusedActivation a : {FusedActivation::kNone, FusedActivation::kRelu}) {
          INFO(device << " " << eagle::dtype_name(d) << " " << c.what << " " << name_of(a));
          eagle::with_device(device, [&] {
            const Tensor x = values(c.x, 4, d), f = values(c.filter, 5, d);
            const Tensor b = values(Shape{c.filter[3]}, 6, d);
            const Tensor dy = values(eagle::nn::conv2d(x, f, c.options).shape(), 7, d);
            const auto gradients = [&](bool fused) {
              eagle::GradientTape tape;
              tape.watch(std::vector<eagle::GradientSource>{x, f, b});
              const Tensor y = fused ? eagle::nn::fused_conv2d(x, f, b, c.options, a)
                                     : unfused(x, f, b, c.options, a);
              return tape.gradient(eagle::reduce_sum(y * dy), {x, f, b});
            };
            const auto want = gradients(false), got = gradients(true);
            for (int i = 0; i < 3; ++i) {
              INFO("input " << i);
              REQUIRE(got[i].has_value());
              CHECK(same_values(*got[i], *want[i]));
            }
            return 0;
          });
        }
      }
    }
  }
}

TEST_CASE("_FusedConv2D without Relu gives the gradient of a linear layer") {
  // y = x * f + b on a 1x1 image: dy/dx = f, dy/df = x, dy/db = 1.
  const Tensor x = eagle::constant({2.0f}, Shape{1, 1, 1, 1});
  const Tensor f = eagle::constant({-3.0f}, Shape{1, 1, 1, 1});
  const Tensor b = eagle::constant({0.5f});
  eagle::GradientTape tape;
  tape.watch(std::vector<eagle::GradientSource>{x, f, b});
  const Tensor y = eagle::nn::fused_conv2d(x, f, b);
  CHECK(y.to_vector<float>() == std::vector<float>{-5.5f});
  const auto g = tape.gradient(y, {x, f, b});
  CHECK(g[0]->to_vector<float>() == std::vector<float>{-3.0f});
  CHECK(g[1]->to_vector<float>() == std::vector<float>{2.0f});
  CHECK(g[2]->to_vector<float>() == std::vector<float>{1.0f});
  // With Relu the output is clamped to 0 and nothing flows back.
  eagle::GradientTape relu_tape;
  relu_tape.watch(std::vector<eagle::GradientSource>{x, f, b});
  const Tensor clamped = eagle::nn::fused_conv2d(x, f, b, {}, FusedActivation::kRelu);
  CHECK(clamped.to_vector<float>() == std::vector<float>{0.0f});
  const auto zero = relu_tape.gradient(clamped, {x, f, b});
  CHECK(zero[0]->to_vector<float>() == std::vector<float>{0.0f});
  CHECK(zero[2]->to_vector<float>() == std::vector<float>{0.0f});
}

TEST_CASE("keras Conv2D runs one _FusedConv2D for a linear or relu activation with a bias") {
  namespace keras = eagle::keras;
  namespace layers = eagle::keras::layers;
  const Tensor x = values(Shape{2, 6, 5, 3}, 8, DType::kFloat32);
  layers::Conv2DOptions no_bias;
  no_bias.use_bias = false;
  struct Expectation {
    std::string what;
    std::shared_ptr<layers::Conv2D> layer;
    std::vector<std::string> ops;  // with the reads of the kernel and bias variables
  };
  const std::vector<Expectation> expectations = {
      {"relu",
       std::make_shared<layers::Conv2D>(4, 3, "relu"),
       {"ReadVariableOp", "ReadVariableOp", "_FusedConv2D"}},
      {"linear",
       std::make_shared<layers::Conv2D>(4, 3),
       {"ReadVariableOp", "ReadVariableOp", "_FusedConv2D"}},
      {"relu as a function",
       std::make_shared<layers::Conv2D>(4, 3,
                                        keras::activations::Activation(&keras::activations::relu)),
       {"ReadVariableOp", "ReadVariableOp", "_FusedConv2D"}},
      {"tanh",
       std::make_shared<layers::Conv2D>(4, 3, "tanh"),
       {"ReadVariableOp", "Conv2D", "ReadVariableOp", "BiasAdd", "Tanh"}},
      {"relu without a bias",
       std::make_shared<layers::Conv2D>(4, 3, "relu", no_bias),
       {"ReadVariableOp", "Conv2D", "Relu"}},
  };
  for (const Expectation& e : expectations) {
    INFO(e.what);
    (void)(*e.layer)(x);  // builds the layer's variables
    eagle_test::CapturedLog log;
    const Tensor y = (*e.layer)(x);
    std::vector<std::string> ops;
    for (const std::string& line : log.take()) {
      const std::string prefix = "Executing op ";
      if (line.rfind(prefix, 0) != 0) continue;
      ops.push_back(line.substr(prefix.size(), line.find(' ', prefix.size()) - prefix.size()));
    }
    CHECK(ops == e.ops);
    // The same values as Keras's formula.
    Tensor want = eagle::nn::conv2d(x, e.layer->kernel());
    if (e.layer->options().use_bias) want = eagle::nn::bias_add(want, e.layer->bias());
    CHECK(same_values(y, e.what == "tanh"     ? eagle::tanh(want)
                         : e.what == "linear" ? want
                                              : eagle::relu(want)));
  }
}
