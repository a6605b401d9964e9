// eagle::custom_gradient and eagle::identity_n (Note [Custom gradients]): TensorFlow's
// log1pexp example, the function's own ops unrecorded, the errors, nesting, and the same on a
// simulated GPU.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"

namespace {

using eagle::CustomGradientResult;
using eagle::GradientTape;
using eagle::Tensor;

// TensorFlow's documented example: log(1 + e^x), whose plain gradient e^x / (1 + e^x) is NaN
// at x = 100 in float32 (inf / inf); the custom gradient 1 - 1 / (1 + e^x) is 1.
std::vector<Tensor> log1pexp(const Tensor& x) {
  return eagle::custom_gradient(
      [](const std::vector<Tensor>& in) {
        const Tensor e = eagle::exp(in[0]);
        CustomGradientResult r;
        r.outputs = {eagle::log(1.0f + e)};
        r.grad_fn = [e](const std::vector<Tensor>& dy) {
          return std::vector<Tensor>{dy[0] * (1.0f - 1.0f / (1.0f + e))};
        };
        return r;
      },
      {x});
}

void check_log1pexp(const std::string& device) {
  auto scope = eagle::device(device);
  const Tensor x = eagle::constant({0.0f, 100.0f});
  GradientTape tape;
  tape.watch(x);
  const Tensor y = log1pexp(x)[0];
  CHECK(y.device().find(device.substr(1)) != std::string::npos);
  const Tensor g = *tape.gradient(y, {x})[0];
  CHECK(g.to_vector<float>() == std::vector<float>{0.5f, 1.0f});
  // The plain formula's gradient is NaN there: what the custom gradient is for.
  GradientTape plain;
  plain.watch(x);
  const Tensor naive = eagle::log(1.0f + eagle::exp(x));
  CHECK(std::isnan((*plain.gradient(naive, {x})[0]).to_vector<float>()[1]));
}

}  // namespace

TEST_CASE("custom_gradient: TensorFlow's log1pexp example on the CPU and a simulated GPU") {
  check_log1pexp("/CPU:0");
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  check_log1pexp("/GPU:0");
}

TEST_CASE("custom_gradient: the function's ops are not recorded, grad_fn gives the gradient") {
  const Tensor x = eagle::constant({1.0f, 2.0f});
  const Tensor w = eagle::constant(3.0f);
  int forward_calls = 0;
  int backward_calls = 0;
  const auto f = [&](const std::vector<Tensor>& in) {
    ++forward_calls;
    CustomGradientResult r;
    r.outputs = {in[0] * in[1], in[0] + 1.0f};  // two outputs
    r.grad_fn = [&](const std::vector<Tensor>& dy) {
      ++backward_calls;
      CHECK(dy.size() == 2);
      // A deliberately "wrong" gradient: 10 for x, none for w.
      return std::vector<Tensor>{dy[0] * 10.0f + dy[1] * 0.0f, Tensor()};
    };
    return r;
  };
  GradientTape tape({true});
  tape.watch(x);
  tape.watch(w);
  const std::vector<Tensor> out = eagle::custom_gradient(f, {x, w});
  REQUIRE(out.size() == 2);
  CHECK(out[0].to_vector<float>() == std::vector<float>{3.0f, 6.0f});
  CHECK(out[1].to_vector<float>() == std::vector<float>{2.0f, 3.0f});
  const auto g = tape.gradient(out[0], {x, w});
  CHECK(g[0]->to_vector<float>() == std::vector<float>{10.0f, 10.0f});
  CHECK_FALSE(g[1].has_value());  // grad_fn gave none
  // Only output 1 is a target: dy[0] is zeros.
  CHECK(tape.gradient(out[1], {x})[0]->to_vector<float>() == std::vector<float>{0.0f, 0.0f});
  CHECK(forward_calls == 1);
  CHECK(backward_calls == 2);
  // Ops after the function are recorded as usual.
  GradientTape outer;
  outer.watch(x);
  const Tensor z = eagle::custom_gradient(f, {x, w})[0] * 2.0f;
  CHECK(outer.gradient(z, {x})[0]->to_vector<float>() == std::vector<float>{20.0f, 20.0f});
}

TEST_CASE("custom_gradient without a recording tape runs the function and nothing else") {
  int backward_calls = 0;
  const std::vector<Tensor> out = eagle::custom_gradient(
      [&](const std::vector<Tensor>& in) {
        CustomGradientResult r;
        r.outputs = {in[0] * 2.0f};
        r.grad_fn = [&](const std::vector<Tensor>& dy) {
          ++backward_calls;
          return dy;
        };
        return r;
      },
      {eagle::constant(4.0f)});
  CHECK(out[0].item<float>() == 8.0f);
  CHECK(backward_calls == 0);
}

TEST_CASE("custom_gradient errors: the gradient count and shape, a missing grad_fn") {
  const Tensor x = eagle::constant({1.0f, 2.0f});
  const auto with_grads = [&](std::vector<Tensor> grads) {
    GradientTape tape;
    tape.watch(x);
    const Tensor y = eagle::custom_gradient(
        [grads](const std::vector<Tensor>& in) {
          CustomGradientResult r;
          r.outputs = {in[0] * 1.0f};
          r.grad_fn = [grads](const std::vector<Tensor>&) { return grads; };
          return r;
        },
        {x})[0];
    tape.gradient(y, {x});
  };
  CHECK_THROWS_MATCHES(
      with_grads({x, x}), eagle::InvalidArgumentError,
      Catch::Message(
          "custom_gradient function expected to return 1 gradients, but returned 2 instead."));
  CHECK_THROWS_MATCHES(with_grads({eagle::constant({1.0, 2.0, 3.0})}), eagle::InvalidArgumentError,
                       Catch::Message("custom_gradient function returned a gradient of shape [3] "
                                      "and dtype float32 for input 0 of shape [2] and dtype "
                                      "float32"));
  CHECK_THROWS_MATCHES(with_grads({eagle::cast(x, eagle::kFloat64)}), eagle::InvalidArgumentError,
                       Catch::Message("custom_gradient function returned a gradient of shape [2] "
                                      "and dtype float64 for input 0 of shape [2] and dtype "
                                      "float32"));
  GradientTape tape;
  tape.watch(x);
  CHECK_THROWS_MATCHES(eagle::custom_gradient(
                           [](const std::vector<Tensor>& in) {
                             CustomGradientResult r;
                             r.outputs = in;
                             return r;
                           },
                           {x}),
                       eagle::InvalidArgumentError,
                       Catch::Message("custom_gradient function returned no grad_fn"));
}

TEST_CASE("custom_gradient under nested tapes: both see the one IdentityN") {
  const Tensor x = eagle::constant(2.0f);
  GradientTape outer;
  outer.watch(x);
  GradientTape inner;
  inner.watch(x);
  const Tensor y = eagle::custom_gradient(
      [](const std::vector<Tensor>& in) {
        CustomGradientResult r;
        r.outputs = {in[0] * in[0]};
        const Tensor saved = in[0];
        r.grad_fn = [saved](const std::vector<Tensor>& dy) {
          return std::vector<Tensor>{dy[0] * 2.0f * saved};
        };
        return r;
      },
      {x})[0];
  CHECK(inner.gradient(y, {x})[0]->item<float>() == 4.0f);
  CHECK(outer.gradient(y, {x})[0]->item<float>() == 4.0f);
}

TEST_CASE("identity_n: every input unchanged, in one op, gradients passed through") {
  eagle::debugging::set_log_device_placement(true);
  std::vector<std::string> lines;
  eagle::debugging::set_log_sink(
      [&](eagle::debugging::LogLevel, std::string_view line) { lines.emplace_back(line); });
  const Tensor a = eagle::constant({1.0f, 2.0f});
  const Tensor b = eagle::constant(std::vector<std::int32_t>{7});
  lines.clear();
  const std::vector<Tensor> out = eagle::identity_n({a, b});
  eagle::debugging::set_log_device_placement(false);
  eagle::debugging::set_log_sink(nullptr);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("Executing op IdentityN in device ", 0) == 0);
  REQUIRE(out.size() == 2);
  CHECK(out[0].to_vector<float>() == std::vector<float>{1.0f, 2.0f});
  CHECK(out[1].to_vector<std::int32_t>() == std::vector<std::int32_t>{7});
  CHECK(out[1].dtype() == eagle::kInt32);
  CHECK(eagle::identity_n({}).empty());
  GradientTape tape;
  tape.watch(a);
  const Tensor y = eagle::identity_n({a, a * 3.0f})[1];
  CHECK(tape.gradient(y, {a})[0]->to_vector<float>() == std::vector<float>{3.0f, 3.0f});
}
