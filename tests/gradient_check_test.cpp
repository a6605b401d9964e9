// Gradients against central finite differences in float64, on the CPU and on a simulated GPU:
// every OpInfo entry's gradient cases (tests/op_info/, Note [OpInfo table]; one ctest entry per
// op) and the compositions below, which no single op owns. The loss is sum(f(x) * w) for a fixed
// random w, so each output element carries a different upstream gradient.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"
#include "op_info/op_info.hpp"
#include "op_info/register_tests.hpp"

namespace {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;
using eagle_test::GradDomain;
using eagle_test::GradInput;
using eagle_test::GradSample;

std::vector<double> values_for(const GradInput& spec, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<double> v(static_cast<std::size_t>(spec.shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    double x = u(rng);
    switch (spec.domain) {
      case GradDomain::kPositive:
        x = std::fabs(x) + 0.5;
        break;
      case GradDomain::kAwayFromZero:
        x = x < 0 ? x - 0.5 : x + 0.5;
        break;
      case GradDomain::kUnit:
        x = x / 4;
        break;
      case GradDomain::kDistinct:  // far enough apart that no difference step reorders them
        x = static_cast<double>(i) * 0.37 - 1.1 + 0.01 * x;
        if (i % 2 == 1) x = -x;
        break;
      case GradDomain::kAny:
        break;
    }
    v[i] = x;
  }
  return v;
}

double loss_of(const GradSample& c, const std::vector<Tensor>& inputs, const Tensor& weights) {
  return eagle::reduce_sum(c.call(inputs) * weights).item<double>();
}

void check(const GradSample& c) {
  std::mt19937 rng(1234);
  std::vector<std::vector<double>> host;
  std::vector<Tensor> inputs;
  for (const GradInput& spec : c.inputs) {
    host.push_back(values_for(spec, rng));
    inputs.push_back(eagle::constant(host.back(), spec.shape));
  }
  const Tensor probe = c.call(inputs);
  std::vector<double> w(static_cast<std::size_t>(probe.num_elements()));
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (double& x : w) x = u(rng);
  const Tensor weights = eagle::constant(w, probe.shape());

  eagle::GradientTape tape;
  std::vector<eagle::GradientSource> sources(inputs.begin(), inputs.end());
  tape.watch(sources);
  const Tensor loss = eagle::reduce_sum(c.call(inputs) * weights);
  const auto grads = tape.gradient(loss, sources, {{}, eagle::UnconnectedGradients::kZero});

  constexpr double kStep = 1e-6;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    REQUIRE(grads[i].has_value());
    REQUIRE(grads[i]->shape() == c.inputs[i].shape);
    REQUIRE(grads[i]->dtype() == DType::kFloat64);
    const std::vector<double> analytic = grads[i]->to_vector<double>();
    for (std::size_t j = 0; j < host[i].size(); ++j) {
      std::vector<Tensor> plus = inputs;
      std::vector<Tensor> minus = inputs;
      std::vector<double> v = host[i];
      v[j] += kStep;
      plus[i] = eagle::constant(v, c.inputs[i].shape);
      v[j] -= 2 * kStep;
      minus[i] = eagle::constant(v, c.inputs[i].shape);
      const double numeric = (loss_of(c, plus, weights) - loss_of(c, minus, weights)) / (2 * kStep);
      INFO(c.what << ": input " << i << " element " << j);
      CHECK(analytic[j] == Approx(numeric).epsilon(c.tolerance).margin(c.tolerance));
    }
  }
}

void check_on_cpu_and_gpu(const std::vector<GradSample>& cases) {
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    auto scope = eagle::device(device);
    for (const GradSample& c : cases) {
      INFO("on " << device << ": " << c.what);
      check(c);
    }
  }
}

const bool registered = eagle_test::register_op_info_tests(
    ": gradients match finite differences on the CPU and a simulated GPU", "[gradient][opinfo]",
    [](const eagle_test::OpInfo& e) { check_on_cpu_and_gpu(e.gradients); },
    [](const eagle_test::OpInfo& e) { return !e.gradients.empty(); });

// Compositions: gradients through several ops, which no OpInfo entry owns.
std::vector<GradSample> compositions() {
  using V = const std::vector<Tensor>&;
  std::vector<GradSample> t = {
      {"reduce_logsumexp", {{Shape{3, 4}}}, [](V x) { return eagle::reduce_logsumexp(x[0], 1); }},
      {"reduce_variance", {{Shape{3, 4}}}, [](V x) { return eagle::reduce_variance(x[0], 0); }},
      {"sqrt, rsqrt, reciprocal second derivatives",
       {{Shape{2, 3}, GradDomain::kPositive}},
       [](V x) {
         eagle::GradientTape inner;
         inner.watch(x[0]);
         const Tensor y =
             eagle::reduce_sum(eagle::sqrt(x[0]) + eagle::rsqrt(x[0]) + eagle::reciprocal(x[0]));
         return *inner.gradient(y, {x[0]})[0];
       }},
      // Convolution and pooling (eagle/ops/nn.hpp), the backprops' own gradients included.
      {"conv2d VALID",
       {{Shape{2, 5, 4, 2}}, {Shape{3, 2, 2, 3}}},
       [](V x) { return eagle::nn::conv2d(x[0], x[1]); }},
      {"conv2d SAME stride 2",
       {{Shape{1, 6, 5, 2}}, {Shape{3, 3, 2, 2}}},
       [](V x) {
         return eagle::nn::conv2d(x[0], x[1], {{2, 2}, "SAME"});
       }},
      {"conv2d SAME dilation 2",
       {{Shape{1, 5, 5, 1}}, {Shape{2, 2, 1, 2}}},
       [](V x) {
         return eagle::nn::conv2d(x[0], x[1], {{1, 1}, "SAME", {2, 2}});
       }},
      {"conv2d_backprop_input",
       {{Shape{3, 2, 2, 3}}, {Shape{1, 3, 2, 3}}},
       [](V x) {
         return eagle::nn::conv2d_backprop_input(Shape{1, 5, 4, 2}, x[0], x[1], {{2, 2}, "SAME"});
       }},
      {"conv2d_backprop_filter",
       {{Shape{1, 5, 4, 2}}, {Shape{1, 3, 3, 3}}},
       [](V x) {
         return eagle::nn::conv2d_backprop_filter(x[0], Shape{3, 2, 2, 3}, x[1]);
       }},
      {"max_pool2d VALID",
       {{Shape{2, 4, 5, 2}, GradDomain::kDistinct}},
       [](V x) { return eagle::nn::max_pool2d(x[0]); }},
      {"max_pool2d SAME 3x3 stride 2",
       {{Shape{1, 5, 6, 2}, GradDomain::kDistinct}},
       [](V x) {
         return eagle::nn::max_pool2d(x[0], {{3, 3}, std::array<std::int64_t, 2>{2, 2}, "SAME"});
       }},
      {"avg_pool2d SAME 3x3 stride 2",
       {{Shape{1, 5, 6, 2}}},
       [](V x) {
         return eagle::nn::avg_pool2d(x[0], {{3, 3}, std::array<std::int64_t, 2>{2, 2}, "SAME"});
       }},
      {"avg_pool_grad",
       {{Shape{1, 3, 3, 2}}},
       [](V x) {
         return eagle::nn::avg_pool_grad(Shape{1, 5, 6, 2}, x[0],
                                         {{3, 3}, std::array<std::int64_t, 2>{2, 2}, "SAME"});
       }},
  };
  // The NN ops (eagle::nn). Relu6 and LeakyRelu stay away from their kinks (0 and 6).
  const Shape s23{2, 3}, s3{3};
  std::vector<GradSample> nn = {
      {"relu6",
       {{s23, GradDomain::kAwayFromZero}},
       [](V x) { return eagle::nn::relu6(x[0] * 4.0); }},
      {"leaky_relu",
       {{s23, GradDomain::kAwayFromZero}},
       [](V x) { return eagle::nn::leaky_relu(x[0], 0.3); }},
      {"elu", {{s23, GradDomain::kAwayFromZero}}, [](V x) { return eagle::nn::elu(x[0]); }},
      {"selu", {{s23, GradDomain::kAwayFromZero}}, [](V x) { return eagle::nn::selu(x[0]); }},
      {"gelu", {{s23}}, [](V x) { return eagle::nn::gelu(x[0]); }},
      {"gelu approximate", {{s23}}, [](V x) { return eagle::nn::gelu(x[0], true); }},
      {"softplus", {{s23}}, [](V x) { return eagle::nn::softplus(x[0] * 10.0); }},
      {"softsign",
       {{s23, GradDomain::kAwayFromZero}},
       [](V x) { return eagle::nn::softsign(x[0]); }},
      {"silu", {{s23}}, [](V x) { return eagle::nn::silu(x[0], 1.5); }},
      {"log_softmax", {{s23}}, [](V x) { return eagle::nn::log_softmax(x[0]); }},
      {"log_softmax axis 0", {{s23}}, [](V x) { return eagle::nn::log_softmax(x[0], 0); }},
      {"bias_add", {{Shape{2, 2, 3}}, {s3}}, [](V x) { return eagle::nn::bias_add(x[0], x[1]); }},
      {"bias_add gradient's gradient",
       {{s23}},
       [](V x) {
         eagle::GradientTape inner;
         const Tensor bias = eagle::constant(std::vector<double>{0.5, -1.0, 2.0});
         inner.watch(bias);
         const Tensor y = eagle::reduce_sum(eagle::square(eagle::nn::bias_add(x[0], bias)));
         return *inner.gradient(y, {bias})[0];
       }},
      // Labels are distributions (TensorFlow's backprop, softmax - labels, assumes rows that
      // sum to 1): positive values normalized inside the function.
      {"softmax_cross_entropy_with_logits",
       {{s23, GradDomain::kPositive}, {s23}},
       [](V x) {
         const Tensor labels = x[0] / eagle::reduce_sum(x[0], -1, true);
         return eagle::nn::softmax_cross_entropy_with_logits(labels, x[1]);
       }},
      {"softmax_cross_entropy_with_logits broadcast labels rank 3",
       {{Shape{1, 3}, GradDomain::kPositive}, {Shape{2, 2, 3}}},
       [](V x) {
         const Tensor labels = x[0] / eagle::reduce_sum(x[0], -1, true);
         return eagle::nn::softmax_cross_entropy_with_logits(labels, x[1]);
       }},
      {"softmax_cross_entropy_with_logits second derivative",
       {{s23}},
       [](V x) {
         eagle::GradientTape inner;
         inner.watch(x[0]);
         const Tensor labels = eagle::constant({{0.2, 0.3, 0.5}, {1.0, 0.0, 0.0}});
         const Tensor y =
             eagle::reduce_sum(eagle::nn::softmax_cross_entropy_with_logits(labels, x[0]));
         return *inner.gradient(y, {x[0]})[0];
       }},
      {"sparse_softmax_cross_entropy_with_logits",
       {{s23}},
       [](V x) {
         return eagle::nn::sparse_softmax_cross_entropy_with_logits(
             eagle::constant(std::vector<std::int64_t>{2, 0}), x[0]);
       }},
      {"sparse_softmax_cross_entropy_with_logits second derivative",
       {{s23}},
       [](V x) {
         eagle::GradientTape inner;
         inner.watch(x[0]);
         const Tensor y = eagle::reduce_sum(
             eagle::nn::sparse_softmax_cross_entropy_with_logits(eagle::constant({1, 2}), x[0]));
         return *inner.gradient(y, {x[0]})[0];
       }},
      {"l2_loss", {{s23}}, [](V x) { return eagle::nn::l2_loss(x[0]); }},
      {"moments",
       {{Shape{2, 2, 3}}},
       [](V x) {
         const auto m = eagle::nn::moments(x[0], {0, 1});
         return m.mean * 3.0 + m.variance;
       }},
      {"batch_normalization",
       {{s23}, {s3}, {s3, GradDomain::kPositive}, {s3}, {s3}},
       [](V x) { return eagle::nn::batch_normalization(x[0], x[1], x[2], x[3], x[4], 1e-3); }},
      {"fused_batch_norm training",
       {{Shape{2, 2, 1, 3}}, {s3}, {s3}},
       [](V x) { return eagle::nn::fused_batch_norm(x[0], x[1], x[2]).y; }},
      // The population statistics get no gradient (TensorFlow's None), so they are constants.
      {"fused_batch_norm inference",
       {{Shape{2, 1, 2, 3}}, {s3}, {s3}},
       [](V x) {
         const Tensor mean = eagle::constant(std::vector<double>{0.1, -0.2, 0.3});
         const Tensor variance = eagle::constant(std::vector<double>{0.5, 1.5, 2.0});
         return eagle::nn::fused_batch_norm(x[0], x[1], x[2], mean, variance, 1e-3, 1.0, false).y;
       }},
      {"dropout", {{s23}}, [](V x) { return eagle::nn::dropout(x[0], 0.5, std::nullopt, 7); }},
      {"relu6, leaky_relu, elu, selu second derivatives",
       {{s23, GradDomain::kAwayFromZero}},
       [](V x) {
         eagle::GradientTape inner;
         inner.watch(x[0]);
         const Tensor y = eagle::reduce_sum(eagle::square(eagle::nn::relu6(x[0] * 4.0)) +
                                            eagle::square(eagle::nn::leaky_relu(x[0])) +
                                            eagle::square(eagle::nn::elu(x[0])) +
                                            eagle::square(eagle::nn::selu(x[0])));
         return *inner.gradient(y, {x[0]})[0];
       }},
  };
  t.insert(t.end(), nn.begin(), nn.end());
  return t;
}

}  // namespace

TEST_CASE("gradients of compositions match finite differences on the CPU and a simulated GPU") {
  CHECK(registered);
  check_on_cpu_and_gpu(compositions());
}
