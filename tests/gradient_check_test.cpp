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
  };
  // The NN ops' composites (eagle::nn: each runs several ops) and second derivatives through
  // several gradient ops; the single-op cases are in tests/op_info/nn_op_infos.cpp. Relu6 and
  // LeakyRelu stay away from their kinks (0 and 6).
  const Shape s23{2, 3}, s3{3};
  std::vector<GradSample> nn = {
      {"gelu", {{s23}}, [](V x) { return eagle::nn::gelu(x[0]); }},
      {"gelu approximate", {{s23}}, [](V x) { return eagle::nn::gelu(x[0], true); }},
      {"silu", {{s23}}, [](V x) { return eagle::nn::silu(x[0], 1.5); }},
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
      {"sparse_softmax_cross_entropy_with_logits second derivative",
       {{s23}},
       [](V x) {
         eagle::GradientTape inner;
         inner.watch(x[0]);
         const Tensor y = eagle::reduce_sum(
             eagle::nn::sparse_softmax_cross_entropy_with_logits(eagle::constant({1, 2}), x[0]));
         return *inner.gradient(y, {x[0]})[0];
       }},
      {"moments",
       {{Shape{2, 2, 3}}},
       [](V x) {
         const auto m = eagle::nn::moments(x[0], {0, 1});
         return m.mean * 3.0 + m.variance;
       }},
      {"batch_normalization",
       {{s23}, {s3}, {s3, GradDomain::kPositive}, {s3}, {s3}},
       [](V x) { return eagle::nn::batch_normalization(x[0], x[1], x[2], x[3], x[4], 1e-3); }},
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
  // Gathers with batch dimensions, whose gradients scatter through UnsortedSegmentSum (an
  // index the forward op never read must not land in another batch entry's rows).
  t.push_back({"gather axis 2 batch_dims 1 with outer dims", {{Shape{2, 3, 4, 2}}}, [](V x) {
                 return eagle::gather(x[0], eagle::constant({{3, 3, 0}, {1, 2, 1}}), 2, 1);
               }});
  t.push_back(
      {"gather_nd batch_dims 1", {{Shape{2, 3, 4}}}, [](V x) {
         return eagle::gather_nd(x[0], eagle::constant({{{1, 2}, {1, 2}}, {{0, 3}, {2, 0}}}), 1);
       }});
  return t;
}

}  // namespace

TEST_CASE("gradients of compositions match finite differences on the CPU and a simulated GPU") {
  CHECK(registered);
  check_on_cpu_and_gpu(compositions());
}
