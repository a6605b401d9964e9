// Every gradient against central finite differences in float64 (an OpInfo-style table: the op,
// how to call it, its inputs' shapes and domain), on the CPU and on a simulated GPU, over shapes
// with broadcasting, size-1 and size-0 dimensions. The loss is sum(f(x) * w) for a fixed random
// w, so each output element carries a different upstream gradient.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"

namespace {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;

enum class Domain { kAny, kPositive, kAwayFromZero, kUnit, kDistinct };

struct InputSpec {
  Shape shape;
  Domain domain = Domain::kAny;
};

struct GradCase {
  std::string name;
  std::vector<InputSpec> inputs;
  std::function<Tensor(const std::vector<Tensor>&)> fn;
  double tolerance = 1e-6;
};

std::vector<double> values_for(const InputSpec& spec, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<double> v(static_cast<std::size_t>(spec.shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    double x = u(rng);
    switch (spec.domain) {
      case Domain::kPositive:
        x = std::fabs(x) + 0.5;
        break;
      case Domain::kAwayFromZero:
        x = x < 0 ? x - 0.5 : x + 0.5;
        break;
      case Domain::kUnit:
        x = x / 4;
        break;
      case Domain::kDistinct:  // far enough apart that no difference step reorders them
        x = static_cast<double>(i) * 0.37 - 1.1 + 0.01 * x;
        if (i % 2 == 1) x = -x;
        break;
      case Domain::kAny:
        break;
    }
    v[i] = x;
  }
  return v;
}

double loss_of(const GradCase& c, const std::vector<Tensor>& inputs, const Tensor& weights) {
  return eagle::reduce_sum(c.fn(inputs) * weights).item<double>();
}

void check(const GradCase& c) {
  std::mt19937 rng(1234);
  std::vector<std::vector<double>> host;
  std::vector<Tensor> inputs;
  for (const InputSpec& spec : c.inputs) {
    host.push_back(values_for(spec, rng));
    inputs.push_back(eagle::constant(host.back(), spec.shape));
  }
  const Tensor probe = c.fn(inputs);
  std::vector<double> w(static_cast<std::size_t>(probe.num_elements()));
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (double& x : w) x = u(rng);
  const Tensor weights = eagle::constant(w, probe.shape());

  eagle::GradientTape tape;
  std::vector<eagle::GradientSource> sources(inputs.begin(), inputs.end());
  tape.watch(sources);
  const Tensor loss = eagle::reduce_sum(c.fn(inputs) * weights);
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
      INFO(c.name << ": input " << i << " element " << j);
      CHECK(analytic[j] == Approx(numeric).epsilon(c.tolerance).margin(c.tolerance));
    }
  }
}

Tensor in0(const std::vector<Tensor>& x) { return x[0]; }

std::vector<GradCase> cases() {
  using V = const std::vector<Tensor>&;
  const Shape s23{2, 3};
  const Shape s3{3};
  const Shape s13{1, 3};
  const Shape s21{2, 1};
  std::vector<GradCase> t = {
      {"add broadcast", {{s23}, {s3}}, [](V x) { return x[0] + x[1]; }},
      {"add size-1 broadcast", {{s21}, {s13}}, [](V x) { return x[0] + x[1]; }},
      {"sub broadcast", {{s3}, {s23}}, [](V x) { return x[0] - x[1]; }},
      {"mul broadcast", {{s23}, {s21}}, [](V x) { return x[0] * x[1]; }},
      {"div broadcast", {{s23}, {s3, Domain::kAwayFromZero}}, [](V x) { return x[0] / x[1]; }},
      {"maximum", {{s23}, {s23}}, [](V x) { return eagle::maximum(x[0], x[1]); }},
      {"minimum broadcast", {{s23}, {s3}}, [](V x) { return eagle::minimum(x[0], x[1]); }},
      {"pow", {{s23, Domain::kPositive}, {s23}}, [](V x) { return eagle::pow(x[0], x[1]); }},
      {"floormod",
       {{s23}, {s23, Domain::kAwayFromZero}},
       [](V x) { return eagle::floormod(x[0], x[1]); }},
      {"squared_difference",
       {{s23}, {s3}},
       [](V x) { return eagle::squared_difference(x[0], x[1]); }},
      {"negative", {{s23}}, [](V x) { return -x[0]; }},
      {"abs", {{s23, Domain::kAwayFromZero}}, [](V x) { return eagle::abs(x[0]); }},
      {"exp", {{s23}}, [](V x) { return eagle::exp(x[0]); }},
      {"log", {{s23, Domain::kPositive}}, [](V x) { return eagle::log(x[0]); }},
      {"sqrt", {{s23, Domain::kPositive}}, [](V x) { return eagle::sqrt(x[0]); }},
      {"square", {{s23}}, [](V x) { return eagle::square(x[0]); }},
      {"relu", {{s23, Domain::kAwayFromZero}}, [](V x) { return eagle::relu(x[0]); }},
      {"sigmoid", {{s23}}, [](V x) { return eagle::sigmoid(x[0]); }},
      {"tanh", {{s23}}, [](V x) { return eagle::tanh(x[0]); }},
      {"rsqrt", {{s23, Domain::kPositive}}, [](V x) { return eagle::rsqrt(x[0]); }},
      {"reciprocal", {{s23, Domain::kAwayFromZero}}, [](V x) { return eagle::reciprocal(x[0]); }},
      {"log1p", {{s23, Domain::kUnit}}, [](V x) { return eagle::log1p(x[0]); }},
      {"erf", {{s23}}, [](V x) { return eagle::erf(x[0]); }},
      {"sin", {{s23}}, [](V x) { return eagle::sin(x[0]); }},
      {"cos", {{s23}}, [](V x) { return eagle::cos(x[0]); }},
      {"reduce_sum axis", {{Shape{2, 3, 4}}}, [](V x) { return eagle::reduce_sum(x[0], 1); }},
      {"reduce_sum all", {{s23}}, [](V x) { return eagle::reduce_sum(x[0]); }},
      {"reduce_mean keepdims",
       {{Shape{2, 3, 4}}},
       [](V x) {
         return eagle::reduce_mean(x[0], {0, 2}, true);
       }},
      {"reduce_max",
       {{Shape{3, 4}, Domain::kDistinct}},
       [](V x) { return eagle::reduce_max(x[0], 1); }},
      {"reduce_min",
       {{Shape{3, 4}, Domain::kDistinct}},
       [](V x) { return eagle::reduce_min(x[0], 0); }},
      {"reduce_prod", {{Shape{3, 4}}}, [](V x) { return eagle::reduce_prod(x[0], 1); }},
      {"reduce_logsumexp", {{Shape{3, 4}}}, [](V x) { return eagle::reduce_logsumexp(x[0], 1); }},
      {"reduce_variance", {{Shape{3, 4}}}, [](V x) { return eagle::reduce_variance(x[0], 0); }},
      {"matmul", {{Shape{2, 3}}, {Shape{3, 4}}}, [](V x) { return eagle::matmul(x[0], x[1]); }},
      {"matmul transpose_a",
       {{Shape{3, 2}}, {Shape{3, 4}}},
       [](V x) { return eagle::matmul(x[0], x[1], true, false); }},
      {"matmul transpose_b",
       {{Shape{2, 3}}, {Shape{4, 3}}},
       [](V x) { return eagle::matmul(x[0], x[1], false, true); }},
      {"matmul both transposed",
       {{Shape{3, 2}}, {Shape{4, 3}}},
       [](V x) { return eagle::matmul(x[0], x[1], true, true); }},
      {"batch matmul broadcast",
       {{Shape{2, 2, 3}}, {Shape{3, 2}}},
       [](V x) { return eagle::matmul(x[0], x[1]); }},
      {"batch matmul size-1 batch",
       {{Shape{1, 2, 3}}, {Shape{2, 3, 2}}},
       [](V x) { return eagle::matmul(x[0], x[1]); }},
      {"add_n",
       {{s23}, {s23}, {s23}},
       [](V x) {
         return eagle::add_n({x[0], x[1], x[2]});
       }},
      {"softmax", {{Shape{2, 4}}}, [](V x) { return eagle::softmax(x[0]); }},
      {"top_k",
       {{Shape{2, 5}, Domain::kDistinct}},
       [](V x) { return eagle::top_k(x[0], 2).values; }},
      {"reshape",
       {{s23}},
       [](V x) {
         return eagle::reshape(x[0], {3, 2});
       }},
      {"transpose",
       {{Shape{2, 3, 4}}},
       [](V x) {
         return eagle::transpose(x[0], {2, 0, 1});
       }},
      {"expand_dims", {{s23}}, [](V x) { return eagle::expand_dims(x[0], 1); }},
      {"squeeze", {{Shape{2, 1, 3}}}, [](V x) { return eagle::squeeze(x[0]); }},
      {"concat",
       {{s23}, {Shape{2, 1}}},
       [](V x) {
         return eagle::concat({x[0], x[1]}, 1);
       }},
      {"slice",
       {{Shape{3, 4}}},
       [](V x) {
         return eagle::slice(x[0], {1, 1}, {2, -1});
       }},
      {"identity", {{s23}}, [](V x) { return eagle::identity(x[0]); }},
      {"tile",
       {{s23}},
       [](V x) {
         return eagle::tile(x[0], {2, 2});
       }},
      {"pad",
       {{s23}},
       [](V x) {
         return eagle::pad(x[0], {{1, 0}, {2, 1}});
       }},
      {"pad constant",
       {{s23}},
       [](V x) {
         return eagle::pad(x[0], {{1, 1}, {0, 2}}, "CONSTANT", 3);
       }},
      {"pad reflect",
       {{Shape{3, 4}}},
       [](V x) {
         return eagle::pad(x[0], {{2, 1}, {1, 3}}, "REFLECT");
       }},
      {"pad symmetric",
       {{Shape{3, 4}}},
       [](V x) {
         return eagle::pad(x[0], {{1, 2}, {3, 2}}, "SYMMETRIC");
       }},
      {"reverse",
       {{Shape{2, 3, 2}}},
       [](V x) {
         return eagle::reverse(x[0], {0, 2});
       }},
      {"cumsum", {{Shape{3, 4}}}, [](V x) { return eagle::cumsum(x[0], 1); }},
      {"cumsum exclusive reverse",
       {{Shape{3, 4}}},
       [](V x) { return eagle::cumsum(x[0], 0, true, true); }},
      {"cumprod",
       {{Shape{2, 4}, Domain::kAwayFromZero}},
       [](V x) { return eagle::cumprod(x[0], 1); }},
      {"split",
       {{Shape{2, 6}}},
       [](V x) {
         auto parts = eagle::split(x[0], 3, 1);
         return parts[0] * parts[2];  // parts[1] unused: its gradient is zero
       }},
      {"split sizes",
       {{Shape{5, 2}}},
       [](V x) {
         auto parts = eagle::split(x[0], std::vector<std::int64_t>{2, -1}, 0);
         return eagle::reduce_sum(parts[1], 0) + parts[0][0];
       }},
      {"stack",
       {{s3}, {s3}},
       [](V x) {
         return eagle::stack({x[0], x[1]}, 1);
       }},
      {"unstack", {{s23}}, [](V x) { return eagle::unstack(x[0], 1)[2]; }},
      {"gather",
       {{Shape{4, 3}}},
       [](V x) {
         return eagle::gather(x[0], eagle::constant({3, 0, 3}));
       }},
      {"gather axis 1",
       {{Shape{2, 4, 3}}},
       [](V x) {
         return eagle::gather(x[0], eagle::constant({{1, 1}, {0, 3}}), 1);
       }},
      {"gather batch_dims",
       {{Shape{2, 4}}},
       [](V x) {
         return eagle::gather(x[0], eagle::constant({{1, 1, 0}, {3, 2, 2}}), 1, 1);
       }},
      {"gather_nd",
       {{Shape{3, 4, 2}}},
       [](V x) {
         return eagle::gather_nd(x[0], eagle::constant({{0, 1}, {2, 3}, {0, 1}}));
       }},
      {"gather axis 1 batch_dims 1 with outer dims",
       {{Shape{2, 3, 4, 2}}},
       [](V x) {
         return eagle::gather(x[0], eagle::constant({{3, 3, 0}, {1, 2, 1}}), 2, 1);
       }},
      {"gather_nd batch_dims 1",
       {{Shape{2, 3, 4}}},
       [](V x) {
         return eagle::gather_nd(x[0], eagle::constant({{{1, 2}, {1, 2}}, {{0, 3}, {2, 0}}}), 1);
       }},
      {"unsorted_segment_sum",
       {{Shape{4, 3}}},
       [](V x) {
         return eagle::math::unsorted_segment_sum(x[0], eagle::constant({2, -1, 0, 2}), 3);
       }},
      {"unsorted_segment_sum 2-d ids int64",
       {{Shape{2, 2, 3}}},
       [](V x) {
         return eagle::math::unsorted_segment_sum(
             x[0], eagle::constant({{1, 0}, {1, 1}}, eagle::kInt64), 2);
       }},
      {"check_numerics",
       {{s23}},
       [](V x) { return eagle::debugging::check_numerics(x[0] * x[0], "fine"); }},
      {"where select",
       {{s23}, {s3}},
       [](V x) {
         return eagle::where(eagle::constant({true, false, true}), x[0], x[1]);
       }},
      {"strided_slice",
       {{Shape{5, 4}}},
       [](V x) {
         return eagle::strided_slice(x[0], {4, 0}, {0, 4}, {-2, 3});
       }},
      {"index with step",
       {{Shape{6, 3}}},
       [](V x) {
         return x[0][eagle::Slice{1, std::nullopt, 2}];
       }},
      {"einsum matmul",
       {{Shape{2, 3}}, {Shape{3, 4}}},
       [](V x) {
         return eagle::einsum("ij,jk->ik", {x[0], x[1]});
       }},
      {"einsum outer summed label",
       {{Shape{2, 3}}, {Shape{4}}},
       [](V x) {
         return eagle::einsum("ij,k->k", {x[0], x[1]});
       }},
      {"einsum ellipsis broadcast",
       {{Shape{2, 1, 2, 3}}, {Shape{5, 3, 2}}},
       [](V x) {
         return eagle::einsum("...ij,...jk->...ik", {x[0], x[1]});
       }},
      {"einsum transpose",
       {{Shape{2, 3, 4}}},
       [](V x) { return eagle::einsum("abc->cb", {x[0]}); }},
      {"relu grad twice",
       {{s23, Domain::kAwayFromZero}},
       [](V x) {
         eagle::GradientTape inner;
         inner.watch(x[0]);
         const Tensor y = eagle::reduce_sum(eagle::square(eagle::relu(x[0])));
         return *inner.gradient(y, {x[0]})[0];
       }},
      {"sigmoid second derivative",
       {{s23}},
       [](V x) {
         eagle::GradientTape inner;
         inner.watch(x[0]);
         const Tensor y = eagle::reduce_sum(eagle::sigmoid(x[0]));
         return *inner.gradient(y, {x[0]})[0];
       }},
      {"tanh second derivative",
       {{s23}},
       [](V x) {
         eagle::GradientTape inner;
         inner.watch(x[0]);
         const Tensor y = eagle::reduce_sum(eagle::tanh(x[0]));
         return *inner.gradient(y, {x[0]})[0];
       }},
      {"sqrt, rsqrt, reciprocal second derivatives",
       {{s23, Domain::kPositive}},
       [](V x) {
         eagle::GradientTape inner;
         inner.watch(x[0]);
         const Tensor y =
             eagle::reduce_sum(eagle::sqrt(x[0]) + eagle::rsqrt(x[0]) + eagle::reciprocal(x[0]));
         return *inner.gradient(y, {x[0]})[0];
       }},
      {"size-0 dimension", {{Shape{0, 3}}, {s3}}, [](V x) { return x[0] * x[1]; }},
  };
  (void)in0;
  return t;
}

}  // namespace

TEST_CASE("every gradient matches finite differences on the CPU") {
  auto scope = eagle::device("/CPU:0");
  for (const GradCase& c : cases()) {
    SECTION(c.name) { check(c); }
  }
}

TEST_CASE("every gradient matches finite differences on a simulated GPU") {
  auto scope = eagle::device("/GPU:0");
  for (const GradCase& c : cases()) {
    SECTION(c.name) { check(c); }
  }
}
