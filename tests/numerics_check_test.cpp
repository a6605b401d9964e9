// tf.debugging's numerics checks: check_numerics (CheckNumerics) and its gradient,
// enable_check_numerics (TensorFlow's check_numerics callback texts), and what a NaN in a
// gradient does to apply_gradients (nothing is checked, as in TensorFlow, unless asked).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"

namespace {

using eagle::Tensor;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kInfD = std::numeric_limits<double>::infinity();

#define CHECK_ERROR(expr, Type, text) CHECK_THROWS_MATCHES(expr, Type, Catch::Message(text))

// enable_check_numerics for one test, off again however the test ends.
struct NumericsChecked {
  NumericsChecked() { eagle::debugging::enable_check_numerics(); }
  ~NumericsChecked() { eagle::debugging::disable_check_numerics(); }
};

void check_numerics_on(const char* device) {
  auto scope = eagle::device(device);
  const Tensor fine = eagle::constant({1.0f, -2.0f});
  const Tensor same = eagle::debugging::check_numerics(fine, "fine");
  CHECK(same.to_vector<float>() == std::vector<float>{1.0f, -2.0f});
  CHECK_ERROR(eagle::debugging::check_numerics(eagle::constant({1.0f, kNaN}), "my msg"),
              eagle::InvalidArgumentError, "my msg : Tensor had NaN values [Op:CheckNumerics]");
  CHECK_ERROR(eagle::debugging::check_numerics(eagle::constant({1.0, -kInfD}), "my msg"),
              eagle::InvalidArgumentError, "my msg : Tensor had Inf values [Op:CheckNumerics]");
  CHECK_ERROR(eagle::debugging::check_numerics(eagle::constant({kInf, kNaN}), "both"),
              eagle::InvalidArgumentError,
              "both : Tensor had Inf and NaN values [Op:CheckNumerics]");
  CHECK_ERROR(eagle::debugging::check_numerics(
                  eagle::cast(eagle::constant({kNaN}), eagle::kFloat16), "half"),
              eagle::InvalidArgumentError, "half : Tensor had NaN values [Op:CheckNumerics]");
  CHECK(eagle::debugging::check_numerics(eagle::zeros({0, 3}), "empty").shape() ==
        eagle::Shape{0, 3});
}

}  // namespace

TEST_CASE("check_numerics passes finite tensors and raises TensorFlow's texts, CPU") {
  check_numerics_on("/CPU:0");
}

TEST_CASE("check_numerics passes finite tensors and raises TensorFlow's texts, simulated GPU") {
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  check_numerics_on("/GPU:0");
}

TEST_CASE("check_numerics takes floating tensors only") {
  CHECK_ERROR(eagle::debugging::check_numerics(eagle::constant({1, 2}), "m"),
              eagle::InvalidArgumentError,
              "Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, "
              "float, double [Op:CheckNumerics]");
}

TEST_CASE("the gradient of check_numerics checks the gradient, TensorFlow's text") {
  const Tensor x = eagle::constant({1.0f, 2.0f});
  eagle::GradientTape tape;
  tape.watch(x);
  const Tensor y = eagle::debugging::check_numerics(x * x, "square");
  eagle::GradientOptions options;
  options.output_gradients = {eagle::constant({1.0f, kNaN})};
  CHECK_ERROR(tape.gradient(y, {x}, options), eagle::InvalidArgumentError,
              "Not a number (NaN) or infinity (Inf) values detected in gradient. square : Tensor "
              "had NaN values [Op:CheckNumerics]");
}

TEST_CASE("enable_check_numerics names the op, its output, the counts and the inputs") {
  const NumericsChecked checked;
  CHECK(eagle::debugging::check_numerics_enabled());
  CHECK_ERROR(eagle::log(eagle::constant({-1.0f, 2.0f})), eagle::InvalidArgumentError,
              "\n\n!!! Detected Infinity or NaN in output 0 of eagerly-executing op \"Log\" (# of "
              "outputs: 1) !!!\n  dtype: <dtype: 'float32'>\n  shape: (2,)\n  # of +NaN "
              "elements: 1\n\n  Input tensor: eagle.Tensor([-1.  2.], shape=(2,), "
              "dtype=float32)\n\n : Tensor had NaN values");
  const Tensor special = eagle::constant({1.0f, kInf, -kInf, kNaN, kNaN});
  CHECK_ERROR(eagle::multiply(special, eagle::constant(1.0f)), eagle::InvalidArgumentError,
              "\n\n!!! Detected Infinity or NaN in output 0 of eagerly-executing op \"Mul\" (# of "
              "outputs: 1) !!!\n  dtype: <dtype: 'float32'>\n  shape: (5,)\n  # of -Inf "
              "elements: 1\n  # of +Inf elements: 1\n  # of +NaN elements: 2\n\n  Input tensors "
              "(2):\n         0: eagle.Tensor([  1.  inf -inf  nan  nan], shape=(5,), "
              "dtype=float32)\n         1: eagle.Tensor(1.0, shape=(), dtype=float32)\n\n : "
              "Tensor had -Inf, +Inf, and NaN values");
  CHECK_ERROR(eagle::add(eagle::constant({{1.0, kInfD}}, eagle::kFloat64),
                         eagle::constant(1.0, eagle::kFloat64)),
              eagle::InvalidArgumentError,
              "\n\n!!! Detected Infinity or NaN in output 0 of eagerly-executing op \"AddV2\" (# "
              "of outputs: 1) !!!\n  dtype: <dtype: 'float64'>\n  shape: (1, 2)\n  # of +Inf "
              "elements: 1\n\n  Input tensors (2):\n         0: eagle.Tensor([[ 1. inf]], "
              "shape=(1, 2), dtype=float64)\n         1: eagle.Tensor(1.0, shape=(), "
              "dtype=float64)\n\n : Tensor had +Inf values");
  // TensorFlow's SAFE_OPS only move values: a NaN they pass on was some other op's output.
  CHECK(eagle::reshape(special, {5, 1}).shape() == eagle::Shape{5, 1});
  CHECK(eagle::maximum(special, special).shape() == eagle::Shape{5});
  // Integer outputs are not checked; finite ones pass.
  CHECK(eagle::add(eagle::constant({1, 2}), eagle::constant(1)).to_vector<int>() ==
        std::vector<int>{2, 3});
  CHECK(eagle::exp(eagle::constant({0.0f})).item<float>() == 1.0f);
}

TEST_CASE("enable_check_numerics on a simulated GPU, and off again") {
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  const Tensor x = eagle::with_device("/GPU:0", [] { return eagle::constant({0.0f, 1.0f}); });
  {
    const NumericsChecked checked;
    auto scope = eagle::device("/GPU:0");
    CHECK_THROWS_WITH(eagle::divide(eagle::constant({1.0f, 1.0f}), x),
                      Catch::Contains("op \"RealDiv\" (# of outputs: 1)") &&
                          Catch::EndsWith(": Tensor had +Inf values"));
  }
  CHECK_FALSE(eagle::debugging::check_numerics_enabled());
  CHECK(std::isinf(eagle::divide(eagle::constant({1.0f, 1.0f}), x).to_vector<float>()[0]));
}

TEST_CASE("a NaN gradient reaches apply_gradients unchecked, as in TensorFlow, unless checked") {
  eagle::Variable w(eagle::constant({1.0f, 2.0f}), {"w"});
  eagle::Variable b(eagle::constant({1.0f}), {"b"});
  eagle::optimizers::SGDOptions options;
  options.learning_rate = 1.0;
  eagle::optimizers::SGD sgd(options);
  sgd.apply_gradients({{eagle::constant({kNaN, 1.0f}), w}});
  const auto updated = w.read_value().to_vector<float>();
  CHECK(std::isnan(updated[0]));
  CHECK(updated[1] == 1.0f);
  // check_numerics on each gradient first: the error names it, and nothing is updated.
  const Tensor bad = eagle::constant({kNaN});
  CHECK_ERROR(sgd.apply_gradients({{eagle::constant({1.0f, 1.0f}), w},
                                   {eagle::debugging::check_numerics(bad, "gradient of b"), b}}),
              eagle::InvalidArgumentError,
              "gradient of b : Tensor had NaN values [Op:CheckNumerics]");
  CHECK(b.read_value().item<float>() == 1.0f);
  CHECK(sgd.iterations() == 1);
}
