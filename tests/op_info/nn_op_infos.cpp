// OpInfo entries of the NN ops (eagle/ops/nn_activations.hpp, nn_losses.hpp,
// nn_normalization.hpp): the activations and their fused gradients, Erfc, LogSoftmax, BiasAdd,
// the cross entropies, OneHot, StopGradient, L2Loss and fused batch norm (Note [OpInfo table]).
// Values against TensorFlow: nn_ops_test (tests/fixtures/tf_nn_ops.json).
//
// The ops without a public front-end of their own (the fused gradients, BiasAddGrad, Erfc,
// StopGradient, FusedBatchNormGradV3, the cross entropies' backprop output) are called through
// the dispatcher as their callers in src/ call them; their inputs are never undefined there, so
// those entries do not check undefined inputs.
#include <cmath>
#include <limits>

#include "eagle/ops/nn_activations.hpp"
#include "eagle/ops/nn_losses.hpp"
#include "eagle/ops/nn_normalization.hpp"
#include "op_info/error_texts.hpp"
#include "op_info/op_info.hpp"
#include "opdefs/attrs.hpp"
#include "ops/op_support.hpp"
#include "runtime/dispatcher.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

namespace {

using eagle::InvalidArgumentError;
using V = const Inputs&;
namespace rt = eagle::runtime;
namespace ops = eagle::ops;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// One output of `shape` (the first input's dtype), through the dispatcher.
Tensor direct(opdefs::OpId op, const Inputs& in, const Shape& shape,
              const opdefs::OpAttrs& attrs = rt::no_attrs()) {
  return rt::execute1(op, in[0].dtype(), in.data(), static_cast<int>(in.size()), shape,
                      in[0].dtype(), attrs);
}

Tensor on_cpu(const std::function<Tensor()>& f) { return eagle::with_device("/CPU:0", f); }

// `terms` summed terms of order 1 whose result may cancel: the sum_tol scaling on both the
// relative and the absolute part.
Tol accumulation_tol(DType d, double terms) {
  Tol tol = float_tol(d);
  const double extra = accumulation_eps(d) * (4 + 2 * std::sqrt(terms));
  tol.rel += extra;
  tol.abs += extra;
  return tol;
}

// The gradient of sum(f(x)) as a function of x: its gradient runs f's gradient op's gradient.
Call second_derivative(std::function<Tensor(const Tensor&)> f) {
  return [f](V x) {
    eagle::GradientTape inner;
    inner.watch(x[0]);
    const Tensor y = eagle::reduce_sum(f(x[0]));
    return *inner.gradient(y, {x[0]})[0];
  };
}

std::vector<Sample> elementwise_samples(opdefs::OpId op, DType d, int inputs, Domain domain) {
  std::vector<Sample> out;
  const auto& shapes = elementwise_shapes();
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    Inputs in;
    for (int i = 0; i < inputs; ++i) {
      in.push_back(make(d, shapes[s], i == 0 ? domain : Domain::kGeneral,
                        seed_of(static_cast<int>(op), s, 20 + i), true));
    }
    out.push_back({shapes[s].to_string(), in});
  }
  return out;
}

// ---- Activations --------------------------------------------------------------------------------

OpInfo activation_info(opdefs::OpId op, Call call, std::string float_only, GradSample gradient) {
  OpInfo e{op};
  e.call = call;
  e.samples = [op](DType d) { return elementwise_samples(op, d, 1, Domain::kWide); };
  if (!float_only.empty()) {
    e.errors = [float_only, call] {
      return std::vector<ErrorCase>{raises<InvalidArgumentError>(
          [call] {
            call({eagle::constant({1, 2})});
          },
          not_allowed(float_only, "int32", kSoftmaxTexts))};
    };
  }
  e.gradients = {std::move(gradient)};
  return e;
}

OpInfo leaky_relu_info() {
  OpInfo e{opdefs::OpId::kLeakyRelu};
  e.call = [](V x) { return eagle::nn::leaky_relu(x[0]); };
  e.samples = [](DType d) {
    std::vector<Sample> out = elementwise_samples(opdefs::OpId::kLeakyRelu, d, 1, Domain::kWide);
    // Alpha above 1 (TensorFlow computes max(x, alpha * x) below 1 only) and 0.
    for (double alpha : {0.0, 0.3, 1.5}) {
      out.push_back({"[33] alpha " + show(alpha),
                     {make(d, {33}, Domain::kWide,
                           seed_of(static_cast<std::uint64_t>(alpha * 10), 21), true)},
                     [alpha](V x) { return eagle::nn::leaky_relu(x[0], alpha); }});
    }
    return out;
  };
  e.gradients = {{"leaky_relu", {{Shape{2, 3}, GradDomain::kAwayFromZero}}, [](V x) {
                    return eagle::nn::leaky_relu(x[0], 0.3);
                  }}};
  return e;
}

// The fused gradients: (gradients, features) or (gradients, outputs), TensorFlow's order.
OpInfo activation_grad_info(opdefs::OpId op, opdefs::OpAttrs attrs,
                            std::optional<GradSample> gradient) {
  OpInfo e{op};
  e.call = [op, attrs](V x) { return direct(op, x, x[0].shape(), attrs); };
  e.samples = [op](DType d) { return elementwise_samples(op, d, 2, Domain::kWide); };
  e.check_undefined_inputs = false;
  if (gradient) e.gradients = {std::move(*gradient)};
  return e;
}

std::vector<OpInfo> activation_infos() {
  const Shape s23{2, 3};
  const GradDomain away = GradDomain::kAwayFromZero;
  std::vector<OpInfo> out = {
      activation_info(opdefs::OpId::kRelu6, [](V x) { return eagle::nn::relu6(x[0]); }, "",
                      {"relu6", {{s23, away}}, [](V x) { return eagle::nn::relu6(x[0] * 4.0); }}),
      activation_info(opdefs::OpId::kElu, [](V x) { return eagle::nn::elu(x[0]); }, "Elu",
                      {"elu", {{s23, away}}, [](V x) { return eagle::nn::elu(x[0]); }}),
      activation_info(opdefs::OpId::kSelu, [](V x) { return eagle::nn::selu(x[0]); }, "Selu",
                      {"selu", {{s23, away}}, [](V x) { return eagle::nn::selu(x[0]); }}),
      activation_info(opdefs::OpId::kSoftplus, [](V x) { return eagle::nn::softplus(x[0]); },
                      "Softplus",
                      {"softplus", {{s23}}, [](V x) { return eagle::nn::softplus(x[0] * 10.0); }}),
      activation_info(opdefs::OpId::kSoftsign, [](V x) { return eagle::nn::softsign(x[0]); },
                      "Softsign",
                      {"softsign", {{s23, away}}, [](V x) { return eagle::nn::softsign(x[0]); }}),
      leaky_relu_info(),
      activation_grad_info(
          opdefs::OpId::kRelu6Grad, rt::no_attrs(),
          GradSample{
              "relu6 second derivative", {{s23, away}}, second_derivative([](const Tensor& t) {
                return eagle::square(eagle::nn::relu6(t * 4.0));
              })}),
      activation_grad_info(
          opdefs::OpId::kLeakyReluGrad, opdefs::OpAttrs{opdefs::LeakyReluAttrs{0.2}},
          GradSample{
              "leaky_relu second derivative", {{s23, away}}, second_derivative([](const Tensor& t) {
                return eagle::square(eagle::nn::leaky_relu(t));
              })}),
      activation_grad_info(
          opdefs::OpId::kEluGrad, rt::no_attrs(),
          GradSample{"elu second derivative", {{s23, away}}, second_derivative([](const Tensor& t) {
                       return eagle::square(eagle::nn::elu(t));
                     })}),
      activation_grad_info(
          opdefs::OpId::kSeluGrad, rt::no_attrs(),
          GradSample{
              "selu second derivative", {{s23, away}}, second_derivative([](const Tensor& t) {
                return eagle::square(eagle::nn::selu(t));
              })}),
      activation_grad_info(opdefs::OpId::kSoftsignGrad, rt::no_attrs(), std::nullopt),
  };
  // LeakyReluGrad with another alpha.
  OpInfo& leaky_grad = out[7];
  const auto base = leaky_grad.samples;
  leaky_grad.samples = [base](DType d) {
    std::vector<Sample> s = base(d);
    s.push_back({"[33] alpha 1.5",
                 {make(d, {33}, Domain::kWide, 31, true), make(d, {33}, Domain::kWide, 32, true)},
                 [](V x) {
                   return direct(opdefs::OpId::kLeakyReluGrad, x, x[0].shape(),
                                 opdefs::OpAttrs{opdefs::LeakyReluAttrs{1.5}});
                 }});
    return s;
  };
  return out;
}

OpInfo erfc_info() {
  OpInfo e{opdefs::OpId::kErfc};
  // gelu's building block (eagle::nn::gelu).
  e.call = [](V x) {
    return ops::run_unary(opdefs::OpId::kErfc, x[0], x[0].shape(), x[0].dtype());
  };
  e.samples = [](DType d) { return elementwise_samples(opdefs::OpId::kErfc, d, 1, Domain::kWide); };
  e.check_undefined_inputs = false;
  e.gradients = {{"erfc", {{Shape{2, 3}}}, e.call}};
  return e;
}

OpInfo stop_gradient_info() {
  OpInfo e{opdefs::OpId::kStopGradient};
  // moments' building block (eagle::nn::moments).
  e.call = [](V x) {
    return ops::run_unary(opdefs::OpId::kStopGradient, x[0], x[0].shape(), x[0].dtype());
  };
  e.tolerance = exact_tol;
  e.samples = [](DType d) {
    return elementwise_samples(opdefs::OpId::kStopGradient, d, 1, Domain::kWide);
  };
  e.check_undefined_inputs = false;
  return e;
}

// ---- LogSoftmax, BiasAdd ------------------------------------------------------------------------

OpInfo log_softmax_info() {
  OpInfo e{opdefs::OpId::kLogSoftmax};
  e.call = [](V x) { return eagle::nn::log_softmax(x[0]); };
  e.samples = [](DType d) {
    struct Case {
      Shape shape;
      double scale;  // logits are kWide values times this
      int axis;
    };
    const std::vector<Case> cases = {{{1}, 1, -1},       {{7, 1}, 1, -1}, {{5, 33}, 1, -1},
                                     {{3, 1025}, 1, -1}, {{4097}, 1, -1}, {{2, 3, 33}, 1, -1},
                                     {{0, 5}, 1, -1},    {{5, 0}, 1, -1}, {{4, 33}, 100, -1},
                                     {{2, 7}, 1e-3, -1}, {{33, 5}, 1, 0}, {{2, 33, 3}, 1, 1}};
    std::vector<Sample> out;
    for (std::size_t c = 0; c < cases.size(); ++c) {
      const Case& k = cases[c];
      const Tensor wide = make(d, k.shape, Domain::kWide, seed_of(c, 40));
      const Tensor x = on_cpu([&] { return wide * make_values(d, {k.scale}, {}); });
      // x - max - log(sum exp): the log of a sum of n terms, absolute in the logits' scale.
      const int axis = k.axis < 0 ? k.shape.rank() - 1 : k.axis;
      const std::int64_t n = k.shape[axis];
      Tol tol = float_tol(d);
      tol.scale = on_cpu([&] { return abs64(x) + 1.0; });
      tol.scale_rel = accumulation_eps(d) * (4 + 2 * std::sqrt(static_cast<double>(n)));
      const int a = k.axis;
      out.push_back(
          {k.shape.to_string() + " logits times " + show(k.scale) + " axis " + std::to_string(a),
           {x},
           [a](V in) { return eagle::nn::log_softmax(in[0], a); },
           tol});
    }
    // Rows: all equal; one -inf; all -inf; a NaN; a +inf; one huge logit.
    std::vector<double> rows(6 * 33, 0.5);
    rows[1 * 33 + 3] = -kInf;
    for (int i = 0; i < 33; ++i) rows[static_cast<std::size_t>(2 * 33 + i)] = -kInf;
    rows[3 * 33 + 32] = kNaN;
    rows[4 * 33 + 7] = kInf;
    rows[5 * 33 + 20] = 60000;
    out.push_back({"special rows", {make_values(d, rows, {6, 33})}});
    return out;
  };
  e.errors = [] {
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>([] { eagle::nn::log_softmax(eagle::constant(1.0f)); },
                                     "logits must have >= 1 dimension, got [] [Op:LogSoftmax]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::nn::log_softmax(eagle::constant({1, 2}));
            },
            not_allowed("LogSoftmax", "int32", kSoftmaxTexts)),
    };
  };
  e.gradients = {
      {"log_softmax", {{Shape{2, 3}}}, e.call},
      {"log_softmax axis 0", {{Shape{2, 3}}}, [](V x) { return eagle::nn::log_softmax(x[0], 0); }},
  };
  return e;
}

const std::vector<Shape>& bias_shapes() {
  static const std::vector<Shape> shapes = {{2, 3}, {5, 7, 33},   {4, 1025}, {1, 1},         {0, 3},
                                            {3, 0}, {2, 3, 4, 5}, {129, 17}, {2, 2, 2, 2, 3}};
  return shapes;
}

OpInfo bias_add_info() {
  OpInfo e{opdefs::OpId::kBiasAdd};
  e.call = [](V x) { return eagle::nn::bias_add(x[0], x[1]); };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (std::size_t s = 0; s < bias_shapes().size(); ++s) {
      const Shape& shape = bias_shapes()[s];
      const Tensor value = make(d, shape, Domain::kGeneral, seed_of(s, 50), true);
      const Tensor bias = make(d, {shape[shape.rank() - 1]}, Domain::kGeneral, seed_of(s, 51));
      out.push_back({shape.to_string(), {value, bias}});
    }
    return out;
  };
  e.errors = [] {
    const Tensor x = eagle::zeros({2, 3});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [] { eagle::nn::bias_add(eagle::zeros({3}), eagle::zeros({3})); },
            "Input tensor must be at least 2D: [3] [Op:BiasAdd]"),
        raises<InvalidArgumentError>([x] { eagle::nn::bias_add(x, eagle::zeros({2})); },
                                     "Must provide as many biases as the last dimension of the "
                                     "input tensor: [2] vs. [2,3] [Op:BiasAdd]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::nn::bias_add(x, eagle::zeros({1, 3}));
            },
            "Biases must be 1D: [1,3] [Op:BiasAdd]"),
        raises<InvalidArgumentError>(
            [x] { eagle::nn::bias_add(x, eagle::zeros({3}, DType::kFloat64)); },
            "cannot compute BiasAdd as input #1(zero-based) was expected to be a float tensor but "
            "is a double tensor [Op:BiasAdd]"),
    };
  };
  e.gradients = {{"bias_add", {{Shape{2, 2, 3}}, {Shape{3}}}, [](V x) {
                    return eagle::nn::bias_add(x[0], x[1]);
                  }}};
  return e;
}

OpInfo bias_add_grad_info() {
  OpInfo e{opdefs::OpId::kBiasAddGrad};
  // The sum of out_backprop over every dimension but the last.
  e.call = [](V x) {
    const Shape& s = x[0].shape();
    return direct(opdefs::OpId::kBiasAddGrad, x, Shape{s[s.rank() - 1]});
  };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (std::size_t s = 0; s < bias_shapes().size(); ++s) {
      const Shape& shape = bias_shapes()[s];
      const Domain domain = eagle::is_floating(d) ? Domain::kUnit : Domain::kGeneral;
      const Tensor g = make(d, shape, domain, seed_of(s, 52));
      const std::int64_t last = shape[shape.rank() - 1];
      const std::int64_t rows = last == 0 ? 0 : shape.num_elements() / last;
      const Tensor magnitudes =
          on_cpu([&] { return direct(opdefs::OpId::kBiasAddGrad, {abs64(g)}, Shape{last}); });
      out.push_back({shape.to_string(), {g}, {}, sum_tol(d, rows, magnitudes)});
    }
    // The seed CNN's first layer at batch 8: thousands of rows over few channels (a GPU splits
    // the rows over blocks and adds the partial sums).
    const Shape first_layer{8, 26, 26, 32};
    const Tensor g = make(d, first_layer, eagle::is_floating(d) ? Domain::kUnit : Domain::kGeneral,
                          seed_of(bias_shapes().size(), 52));
    const Tensor magnitudes =
        on_cpu([&] { return direct(opdefs::OpId::kBiasAddGrad, {abs64(g)}, Shape{32}); });
    out.push_back({first_layer.to_string(), {g}, {}, sum_tol(d, 8 * 26 * 26, magnitudes)});
    return out;
  };
  e.check_undefined_inputs = false;
  // Moved from gradient_check_test's compositions: its gradient runs BiasAddGrad's gradient.
  e.gradients = {{"bias_add gradient's gradient", {{Shape{2, 3}}}, [](V x) {
                    eagle::GradientTape inner;
                    const Tensor bias = eagle::constant(std::vector<double>{0.5, -1.0, 2.0});
                    inner.watch(bias);
                    const Tensor y =
                        eagle::reduce_sum(eagle::square(eagle::nn::bias_add(x[0], bias)));
                    return *inner.gradient(y, {bias})[0];
                  }}};
  return e;
}

// ---- Losses -------------------------------------------------------------------------------------

// Both outputs of a cross entropy on 2-D logits: (loss [batch], backprop [batch, classes]).
std::pair<Tensor, Tensor> cross_entropy(opdefs::OpId op, const Tensor& logits,
                                        const Tensor& labels) {
  const Shape& s = logits.shape();
  const Tensor inputs[2] = {logits, labels};
  const rt::TensorSpec specs[2] = {{Shape{s[0]}, logits.dtype()}, {s, logits.dtype()}};
  Tensor r[2];
  rt::execute(rt::OpCall{op, logits.dtype(), inputs, 2, specs, 2}, r);
  return {r[0], r[1]};
}

// The loss sums `classes` terms labels * (logsumexp - logits), each of the logits' scale.
Tol loss_tol(DType d, const Tensor& logits, const Tensor& labels) {
  const Shape& s = logits.shape();
  const std::int64_t classes = s[s.rank() - 1];
  Tol tol = float_tol(d);
  tol.scale = on_cpu([&] {
    const Tensor l = abs64(logits);
    const Tensor shift = eagle::reduce_max(l, -1, true) + 1.0;
    const Tensor p = labels.dtype() == d ? abs64(labels) : eagle::ones_like(l);
    return eagle::reduce_sum(p * (l + shift), -1);
  });
  tol.scale_rel = accumulation_eps(d) * (4 + 2 * std::sqrt(static_cast<double>(classes)));
  return tol;
}

const std::vector<Shape>& logits_shapes() {
  static const std::vector<Shape> shapes = {{1, 1}, {5, 33}, {3, 1025}, {0, 5}, {65, 7}, {2, 1}};
  return shapes;
}

OpInfo softmax_cross_entropy_info() {
  OpInfo e{opdefs::OpId::kSoftmaxCrossEntropyWithLogits};
  // Inputs (logits, labels), the op's order.
  e.call = [](V x) { return eagle::nn::softmax_cross_entropy_with_logits(x[1], x[0]); };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (std::size_t s = 0; s < logits_shapes().size(); ++s) {
      const Shape& shape = logits_shapes()[s];
      const Tensor logits = make(d, shape, Domain::kWide, seed_of(s, 60));
      const Tensor labels = make(d, shape, Domain::kPositive, seed_of(s, 61));
      const Tol tol = loss_tol(d, logits, labels);
      out.push_back({shape.to_string() + " loss", {logits, labels}, {}, tol});
      out.push_back(
          {shape.to_string() + " backprop",
           {logits, labels},
           [](V x) {
             return cross_entropy(opdefs::OpId::kSoftmaxCrossEntropyWithLogits, x[0], x[1]).second;
           },
           accumulation_tol(d, static_cast<double>(shape[1]))});
    }
    // Labels broadcast against rank-3 logits (reshaped to 2-D by the front-end).
    const Tensor logits = make(d, {2, 4, 9}, Domain::kWide, 62);
    const Tensor labels = make(d, {1, 9}, Domain::kPositive, 63);
    out.push_back(
        {"[2,4,9] logits, [1,9] labels", {logits, labels}, {}, accumulation_tol(d, 9 * 20)});
    return out;
  };
  e.errors = [] {
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [] {
              eagle::nn::softmax_cross_entropy_with_logits(eagle::zeros({2, 4}),
                                                           eagle::zeros({2, 3}));
            },
            "logits and labels must be broadcastable: logits_size=[2,3] labels_size=[2,4] "
            "[Op:SoftmaxCrossEntropyWithLogits]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::nn::softmax_cross_entropy_with_logits(eagle::constant(1.0f),
                                                           eagle::constant(1.0f));
            },
            "Expected begin[0] == 0 (got -1) and size[0] == 0 (got 1) when input.dim_size(0) == 0 "
            "[Op:Slice]"),
    };
  };
  // Labels are distributions (TensorFlow's backprop, softmax - labels, assumes rows that sum to
  // 1): positive values normalized inside the function.
  e.gradients = {
      {"softmax_cross_entropy_with_logits",
       {{Shape{2, 3}, GradDomain::kPositive}, {Shape{2, 3}}},
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
  };
  return e;
}

OpInfo sparse_softmax_cross_entropy_info() {
  OpInfo e{opdefs::OpId::kSparseSoftmaxCrossEntropyWithLogits};
  // Inputs (logits, labels), the op's order.
  e.call = [](V x) { return eagle::nn::sparse_softmax_cross_entropy_with_logits(x[1], x[0]); };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (std::size_t s = 0; s < logits_shapes().size(); ++s) {
      const Shape& shape = logits_shapes()[s];
      const Tensor logits = make(d, shape, Domain::kWide, seed_of(s, 70));
      for (DType label_type : {DType::kInt32, DType::kInt64}) {
        std::vector<double> v;
        for (std::int64_t i = 0; i < shape[0]; ++i)
          v.push_back(static_cast<double>((i * 7) % shape[1]));
        const Tensor labels = make_values(label_type, v, {shape[0]});
        const std::string what = shape.to_string() + " " + str(label_type) + " labels";
        out.push_back({what + " loss", {logits, labels}, {}, loss_tol(d, logits, labels)});
        out.push_back({what + " backprop",
                       {logits, labels},
                       [](V x) {
                         return cross_entropy(opdefs::OpId::kSparseSoftmaxCrossEntropyWithLogits,
                                              x[0], x[1])
                             .second;
                       },
                       accumulation_tol(d, static_cast<double>(shape[1]))});
      }
    }
    return out;
  };
  e.errors = [] {
    const auto sparse = [](Tensor labels, Tensor logits) {
      return
          [labels, logits] { eagle::nn::sparse_softmax_cross_entropy_with_logits(labels, logits); };
    };
    const Tensor logits = eagle::zeros({2, 3});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            sparse(eagle::constant(std::vector<std::int64_t>{3, 10}),
                   eagle::fill(Shape{2, 10}, 1.0)),
            "Received a label value of 10 which is outside the valid range of [0, 10).  Label "
            "values: 3 10 [Op:SparseSoftmaxCrossEntropyWithLogits]"),
        raises<InvalidArgumentError>(
            sparse(eagle::constant(std::vector<std::int64_t>{-1, 1}), logits),
            "Received a label value of -1 which is outside the valid range of [0, 3).  Label "
            "values: -1 1 [Op:SparseSoftmaxCrossEntropyWithLogits]"),
        raises<InvalidArgumentError>(
            sparse(eagle::zeros({1, 2}, DType::kInt32), logits),
            "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape=(1, "
            "2) of rank 2 and logits.shape=(2, 3) of rank 2"),
        raises<InvalidArgumentError>(
            sparse(eagle::zeros({3}, DType::kInt32), logits),
            "`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
            "labels.shape=(3,) and logits.shape=(2, 3)"),
        raises<InvalidArgumentError>(
            sparse(eagle::zeros({2}), logits),
            "Value for attr 'Tlabels' of float is not in the list of allowed values: int32, int64 "
            "[Op:SparseSoftmaxCrossEntropyWithLogits]"),
        raises<InvalidArgumentError>(sparse(eagle::zeros({2}, DType::kInt32), eagle::zeros({2, 0})),
                                     "Must have at least one class, but got logits shape [2,0] "
                                     "[Op:SparseSoftmaxCrossEntropyWithLogits]"),
    };
  };
  e.gradients = {{"sparse_softmax_cross_entropy_with_logits", {{Shape{2, 3}}}, [](V x) {
                    return eagle::nn::sparse_softmax_cross_entropy_with_logits(
                        eagle::constant(std::vector<std::int64_t>{2, 0}), x[0]);
                  }}};
  return e;
}

OpInfo l2_loss_info() {
  OpInfo e{opdefs::OpId::kL2Loss};
  e.call = [](V x) { return eagle::nn::l2_loss(x[0]); };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    const auto& shapes = elementwise_shapes();
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      const Tensor x = make(d, shapes[s], Domain::kUnit, seed_of(s, 80));
      // Positive terms: the result is its own sum of magnitudes.
      const Tensor magnitudes = on_cpu([&] { return eagle::nn::l2_loss(abs64(x)); });
      out.push_back(
          {shapes[s].to_string(), {x}, {}, sum_tol(d, shapes[s].num_elements(), magnitudes)});
    }
    return out;
  };
  e.errors = [] {
    return std::vector<ErrorCase>{raises<InvalidArgumentError>(
        [] {
          eagle::nn::l2_loss(eagle::constant({1, 2}));
        },
        not_allowed("L2Loss", "int32", kSoftmaxTexts))};
  };
  e.gradients = {{"l2_loss", {{Shape{2, 3}}}, e.call}};
  return e;
}

OpInfo one_hot_info() {
  OpInfo e{opdefs::OpId::kOneHot};
  // Keyed by the output dtype; the indices are int32 or int64.
  e.call = [](V x) { return eagle::nn::one_hot(x[0], 4); };
  e.tolerance = exact_tol;
  e.samples = [](DType d) {
    std::vector<Sample> out;
    const std::vector<Shape> shapes = {{}, {0}, {7}, {3, 5}, {2, 3, 4}, {1025}};
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      for (DType index_type : {DType::kInt32, DType::kInt64}) {
        // Values in [-1, depth]: out-of-range indices give a row of off_value.
        std::vector<double> v;
        for (std::int64_t i = 0; i < shapes[s].num_elements(); ++i) {
          v.push_back(static_cast<double>((i * 5 + static_cast<std::int64_t>(s)) % 6) - 1);
        }
        const Tensor indices = make_values(index_type, v, shapes[s]);
        for (int axis : {-1, 0}) {
          for (std::int64_t depth : {4, 0}) {
            const double on = d == DType::kBool ? 1 : 5, off = d == DType::kBool ? 0 : -2;
            out.push_back({shapes[s].to_string() + " " + str(index_type) + " depth " +
                               std::to_string(depth) + " axis " + std::to_string(axis),
                           {indices},
                           [depth, on, off, axis, d](V x) {
                             return eagle::nn::one_hot(x[0], depth, on, off, axis, d);
                           }});
          }
        }
      }
    }
    return out;
  };
  e.errors = [] {
    const Tensor i = eagle::constant({0, 1});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [i] { eagle::nn::one_hot(i, 3, 1, 0, 3); },
            "Expected axis to be -1 or between [0, 2).  But received: 3 [Op:OneHot]"),
        raises<InvalidArgumentError>(
            [i] { eagle::nn::one_hot(i, 3, 1, 0, -2); },
            "Expected axis to be -1 or between [0, 2).  But received: -2 [Op:OneHot]"),
        raises<InvalidArgumentError>([i] { eagle::nn::one_hot(i, -1); },
                                     "depth must be non-negative, got: -1 [Op:OneHot]"),
    };
  };
  return e;
}

// ---- Batch norm ---------------------------------------------------------------------------------

// The statistics' dtype: float32 for the 16-bit floats, as TensorFlow's U.
DType stats_dtype(DType d) {
  return d == DType::kFloat16 || d == DType::kBFloat16 ? DType::kFloat32 : d;
}

struct BatchNormCase {
  Shape x;
  bool is_training;
  double factor;
};

const std::vector<BatchNormCase>& batch_norm_cases() {
  static const std::vector<BatchNormCase> cases = {
      {{2, 3, 4, 5}, true, 1.0},
      {{1, 1, 1, 3}, true, 1.0},
      {{4, 7, 9, 16}, true, 1.0},
      {{2, 3, 4, 5}, true, 0.25},
      {{2, 3, 4, 5}, false, 1.0},
      {{3, 5, 5, 33}, false, 1.0},
      // Thousands of rows over few channels: a GPU splits the rows over blocks.
      {{8, 26, 26, 32}, true, 1.0}};
  return cases;
}

std::string describe(const BatchNormCase& c) {
  return c.x.to_string() + (c.is_training ? " training factor " + show(c.factor) : " inference");
}

// x, scale, offset, and mean and variance where the case reads them (else TensorFlow's None:
// undefined, which the front-end replaces by empty tensors).
Inputs batch_norm_inputs(const BatchNormCase& c, DType d, std::size_t i) {
  const DType u = stats_dtype(d);
  const Shape ch{c.x[3]};
  Inputs in = {make(d, c.x, Domain::kUnit, seed_of(i, 90)),
               make(u, ch, Domain::kUnit, seed_of(i, 91)),
               make(u, ch, Domain::kUnit, seed_of(i, 92))};
  if (!c.is_training || c.factor != 1.0) {
    in.push_back(make(u, ch, Domain::kUnit, seed_of(i, 93)));
    in.push_back(make(u, ch, Domain::kPositive, seed_of(i, 94)));
  }
  return in;
}

Tensor input_or_none(const Inputs& in, std::size_t i) { return i < in.size() ? in[i] : Tensor(); }

OpInfo fused_batch_norm_info() {
  OpInfo e{opdefs::OpId::kFusedBatchNormV3};
  e.call = [](V x) { return eagle::nn::fused_batch_norm(x[0], x[1], x[2]).y; };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    const char* names[5] = {"y", "batch_mean", "batch_variance", "reserve_space_1",
                            "reserve_space_2"};
    for (std::size_t i = 0; i < batch_norm_cases().size(); ++i) {
      const BatchNormCase& c = batch_norm_cases()[i];
      const Inputs in = batch_norm_inputs(c, d, i);
      // Mean and variance sum batch * height * width terms; y is normalized by them.
      const double n = static_cast<double>(c.x[0] * c.x[1] * c.x[2]);
      for (int k = 0; k < 5; ++k) {
        const bool training = c.is_training;
        const double factor = c.factor;
        out.push_back({describe(c) + " " + names[k], in,
                       [k, training, factor](V x) {
                         const auto r = eagle::nn::fused_batch_norm(
                             x[0], x[1], x[2], input_or_none(x, 3), input_or_none(x, 4), 0.001,
                             factor, training);
                         const Tensor outputs[5] = {r.y, r.batch_mean, r.batch_variance,
                                                    r.reserve_space_1, r.reserve_space_2};
                         return outputs[k];
                       },
                       accumulation_tol(k == 0 ? d : stats_dtype(d), 4 * n)});
      }
    }
    return out;
  };
  e.errors = [] {
    const Tensor x = eagle::zeros({2, 2, 2, 3});
    const Tensor c3 = eagle::zeros({3});
    const Tensor c2 = eagle::zeros({2});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [c3] {
              eagle::nn::fused_batch_norm(eagle::zeros({2, 3}), c3, c3);
            },
            "input must be 4-dimensional[2,3] [Op:FusedBatchNormV3]"),
        raises<InvalidArgumentError>([x, c2, c3] { eagle::nn::fused_batch_norm(x, c2, c3); },
                                     "scale must have the same number of elements as the channels "
                                     "of x, got 2 and 3 [Op:FusedBatchNormV3]"),
        raises<InvalidArgumentError>([x, c2, c3] { eagle::nn::fused_batch_norm(x, c3, c2); },
                                     "offset must have the same number of elements as the "
                                     "channels of x, got 2 and 3 [Op:FusedBatchNormV3]"),
        raises<InvalidArgumentError>(
            [x, c3] {
              eagle::nn::fused_batch_norm(x, eagle::zeros({1, 3}), c3);
            },
            "scale must be 1-dimensional[1,3] [Op:FusedBatchNormV3]"),
        raises<InvalidArgumentError>(
            [x, c2, c3] { eagle::nn::fused_batch_norm(x, c3, c3, c2, c3, 0.001, 1.0, false); },
            "When is_training=false, mean must have the same number of elements as the channels "
            "of x, got 2 and 3 [Op:FusedBatchNormV3]"),
        raises<InvalidArgumentError>(
            [x, c2, c3] { eagle::nn::fused_batch_norm(x, c3, c3, c3, c2, 0.001, 1.0, false); },
            "When is_training=false, variance must have the same number of elements as the "
            "channels of x, got 2 and 3 [Op:FusedBatchNormV3]"),
    };
  };
  const Shape s3{3};
  e.gradients = {
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
  };
  return e;
}

OpInfo fused_batch_norm_grad_info() {
  OpInfo e{opdefs::OpId::kFusedBatchNormGradV3};
  // Inputs (y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3), as the
  // gradient of FusedBatchNormV3 calls it (src/autodiff/nn_grad.cpp); outputs x_backprop,
  // scale_backprop, offset_backprop and two empty ones.
  const auto run = [](V x, bool training, int k) {
    const Shape ch{x[1].shape()[3]};
    const DType u = x[2].dtype();
    const rt::TensorSpec specs[5] = {
        {x[1].shape(), x[1].dtype()}, {ch, u}, {ch, u}, {Shape{0}, u}, {Shape{0}, u}};
    Tensor r[5];
    rt::execute(rt::OpCall{opdefs::OpId::kFusedBatchNormGradV3, x[1].dtype(), x.data(), 6, specs, 5,
                           opdefs::OpAttrs{opdefs::FusedBatchNormAttrs{0.001, 1.0, training}}},
                r);
    return r[k];
  };
  e.call = [run](V x) { return run(x, true, 0); };
  e.samples = [run](DType d) {
    std::vector<Sample> out;
    const char* names[3] = {"x_backprop", "scale_backprop", "offset_backprop"};
    for (std::size_t i = 0; i < batch_norm_cases().size(); ++i) {
      const BatchNormCase& c = batch_norm_cases()[i];
      const Inputs in = batch_norm_inputs(c, d, i);
      const auto bn = eagle::with_device("/CPU:0", [&] {
        return eagle::nn::fused_batch_norm(in[0], in[1], in[2], input_or_none(in, 3),
                                           input_or_none(in, 4), 0.001, c.factor, c.is_training);
      });
      const Tensor dy = make(d, c.x, Domain::kUnit, seed_of(i, 95));
      const Inputs grad_in = {
          dy, in[0], in[1], bn.reserve_space_1, bn.reserve_space_2, bn.reserve_space_3};
      const double n = static_cast<double>(c.x[0] * c.x[1] * c.x[2]);
      for (int k = 0; k < 3; ++k) {
        const bool training = c.is_training;
        out.push_back({describe(c) + " " + names[k], grad_in,
                       [run, training, k](V x) { return run(x, training, k); },
                       accumulation_tol(k == 0 ? d : stats_dtype(d), 4 * n)});
      }
    }
    return out;
  };
  e.check_undefined_inputs = false;
  return e;
}

}  // namespace

std::vector<OpInfo> nn_op_infos() {
  std::vector<OpInfo> out = activation_infos();
  out.push_back(erfc_info());
  out.push_back(log_softmax_info());
  out.push_back(bias_add_info());
  out.push_back(bias_add_grad_info());
  out.push_back(softmax_cross_entropy_info());
  out.push_back(sparse_softmax_cross_entropy_info());
  out.push_back(one_hot_info());
  out.push_back(stop_gradient_info());
  out.push_back(l2_loss_info());
  out.push_back(fused_batch_norm_info());
  out.push_back(fused_batch_norm_grad_info());
  return out;
}

}  // namespace eagle_test
