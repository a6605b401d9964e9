// OpInfo entries of convolution and pooling (eagle/ops/nn.hpp): Conv2D, _FusedConv2D,
// Conv2DBackpropInput, Conv2DBackpropFilter, MaxPool, MaxPoolGrad, AvgPool, AvgPoolGrad (Note
// [OpInfo table]).
// Values against TensorFlow: nn_conv_test (tests/fixtures/tf_nn_conv.json).
#include <cmath>
#include <optional>

#include "eagle/ops/nn.hpp"
#include "op_info/error_texts.hpp"
#include "op_info/op_info.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

namespace {

using eagle::InvalidArgumentError;
using eagle::nn::Conv2DOptions;
using eagle::nn::Pool2DOptions;
using V = const Inputs&;
using Stride = std::array<std::int64_t, 2>;

// The cases of every conv and pool sample: VALID, SAME with an extra row (even kernel), strides,
// dilations, an empty batch, a grouped convolution (input depth twice the filter's) and a
// first layer (one input channel). The pools
// take the filter's spatial size as their window.
struct ConvCase {
  Shape x, filter;
  Conv2DOptions options;
};

const std::vector<ConvCase>& conv_cases() {
  static const std::vector<ConvCase> cases = {
      {{2, 9, 8, 3}, {3, 3, 3, 4}, {{1, 1}, "VALID"}},
      {{1, 7, 6, 2}, {4, 4, 2, 3}, {{1, 1}, "SAME"}},
      {{2, 10, 7, 2}, {3, 2, 2, 5}, {{3, 2}, "SAME"}},
      {{1, 11, 10, 3}, {3, 3, 3, 2}, {{2, 2}, "SAME", {2, 2}}},
      {{0, 5, 5, 2}, {3, 3, 2, 2}, {{1, 1}, "VALID"}},
      {{1, 14, 14, 16}, {3, 3, 16, 32}, {{1, 1}, "SAME"}},
      {{2, 7, 6, 4}, {3, 2, 2, 6}, {{2, 1}, "SAME"}},
      // One input channel, whole vectors of output channels (Note [Narrow convolutions]).
      {{2, 9, 8, 1}, {3, 3, 1, 32}, {{1, 1}, "SAME"}},
  };
  return cases;
}

std::string describe(const ConvCase& c) {
  std::string s = c.x.to_string() + " * " + c.filter.to_string() + " " + c.options.padding;
  if (c.options.strides != Stride{1, 1}) {
    s += " strides " + std::to_string(c.options.strides[0]) + "," +
         std::to_string(c.options.strides[1]);
  }
  if (c.options.dilations != Stride{1, 1}) {
    s += " dilations " + std::to_string(c.options.dilations[0]) + "," +
         std::to_string(c.options.dilations[1]);
  }
  return s;
}

Pool2DOptions pool_of(const ConvCase& c) {
  return {{c.filter[0], c.filter[1]}, c.options.strides, c.options.padding};
}

// A sum of `terms` products (the conv branch's bound): the sum_tol scaling applied to both the
// relative and the absolute part, as the values are of order 1.
Tol accumulation_tol(DType d, double terms) {
  Tol tol = float_tol(d);
  const double extra = accumulation_eps(d) * (4 + 2 * std::sqrt(terms));
  tol.rel += extra;
  tol.abs += extra;
  return tol;
}

// _FusedConv2D's: the sums are rounded to d before the bias is added, as Conv2D's output is
// before BiasAdd's (Note [Fused convolutions]). Two backends whose sums round to neighbouring
// values of d (a float16 sum of 9 terms accumulated in float32 in another order, seen on an H200)
// differ by one unit in the last place of the sum, however much of it the bias cancels: one ulp
// of d times |x * filter|, computed in float64, on top of the accumulation's tolerance.
Tol fused_tol(DType d, double terms, const Tensor& x, const Tensor& filter,
              const Conv2DOptions& options) {
  Tol tol = accumulation_tol(d, terms);
  tol.scale = eagle::with_device("/CPU:0", [&] {
    return eagle::abs(eagle::nn::conv2d(eagle::cast(x, DType::kFloat64),
                                        eagle::cast(filter, DType::kFloat64), options));
  });
  tol.scale_rel = unit_in_last_place(d);
  return tol;
}

Shape conv_output_shape(const ConvCase& c, DType d) {
  const Tensor x = make(d, c.x, Domain::kUnit, 1);
  const Tensor f = make(d, c.filter, Domain::kUnit, 2);
  return eagle::with_device("/CPU:0", [&] { return eagle::nn::conv2d(x, f, c.options); }).shape();
}

// Terms of each output element of a conv (and each element of its backprops, by symmetry of
// the bound): the filter's elements times the output's spatial size, as the conv branch did.
double conv_terms(const ConvCase& c, const Shape& y) {
  return static_cast<double>(c.filter.num_elements() * y[1] * y[2]);
}

// ---- Convolution --------------------------------------------------------------------------------

OpInfo conv2d_info() {
  OpInfo e{opdefs::OpId::kConv2D};
  e.call = [](V x) { return eagle::nn::conv2d(x[0], x[1]); };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (std::size_t i = 0; i < conv_cases().size(); ++i) {
      const ConvCase& c = conv_cases()[i];
      const Shape y = conv_output_shape(c, d);
      const Conv2DOptions options = c.options;
      out.push_back({describe(c),
                     {make(d, c.x, Domain::kUnit, seed_of(i, 1)),
                      make(d, c.filter, Domain::kUnit, seed_of(i, 2))},
                     [options](V x) { return eagle::nn::conv2d(x[0], x[1], options); },
                     accumulation_tol(d, conv_terms(c, y))});
    }
    return out;
  };
  e.errors = [] {
    const Tensor x = eagle::zeros({1, 5, 5, 2});
    const Tensor f = eagle::zeros({3, 3, 2, 4});
    const auto conv = [](Shape xs, Shape fs, Conv2DOptions o = {}) {
      return [xs, fs, o] { eagle::nn::conv2d(eagle::zeros(xs), eagle::zeros(fs), o); };
    };
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            conv({5, 5, 2}, {3, 3, 2, 4}),
            "convolution input must be 4-dimensional: [5,5,2] [Op:Conv2D]"),
        raises<InvalidArgumentError>(
            conv({1, 1, 5, 5, 2}, {3, 3, 2, 4}),
            "convolution input must be 4-dimensional: [1,1,5,5,2] [Op:Conv2D]"),
        raises<InvalidArgumentError>(
            conv({1, 5, 5, 2}, {3, 3, 2}),
            "convolution filter must be 4-dimensional: [3,3,2] [Op:Conv2D]"),
        raises<InvalidArgumentError>(
            conv({1, 5, 5, 2}, {3, 3, 3, 4}),
            "input depth must be evenly divisible by filter depth: 2 vs 3 [Op:Conv2D]"),
        raises<InvalidArgumentError>(conv({1, 5, 5, 0}, {3, 3, 0, 4}),
                                     "filter depth must be stricly positive, got 0 [Op:Conv2D]"),
        raises<InvalidArgumentError>(conv({1, 5, 5, 2}, {0, 3, 2, 4}),
                                     "filter must not have zero elements (i.e. all dimensions "
                                     "must be non-zero) [Op:Conv2D]"),
        raises<InvalidArgumentError>(conv({1, 5, 5, 2}, {3, 3, 2, 4}, {{0, 1}, "VALID"}),
                                     "Row and column strides should be larger than 0. [Op:Conv2D]"),
        raises<InvalidArgumentError>(conv({1, 5, 5, 2}, {3, 3, 2, 4}, {{1, -1}, "VALID"}),
                                     "Row and column strides should be larger than 0. [Op:Conv2D]"),
        raises<InvalidArgumentError>(conv({1, 5, 5, 2}, {3, 3, 2, 4}, {{1, 1}, "VALID", {0, 1}}),
                                     "Dilated rates should be larger than 0. [Op:Conv2D]"),
        raises<InvalidArgumentError>(
            conv({1, 5, 5, 2}, {3, 3, 2, 4}, {{1, 1}, "VALID", {3, 1}}),
            "Computed output size would be negative: -1 [input_size: 5, effective_filter_size: "
            "7, stride: 1] [Op:Conv2D]"),
        raises<InvalidArgumentError>(
            conv({1, 5, 5, 2}, {9, 3, 2, 4}, {{2, 1}, "VALID"}),
            "Computed output size would be negative: -1 [input_size: 5, effective_filter_size: "
            "9, stride: 2] [Op:Conv2D]"),
        raises<InvalidArgumentError>(
            conv({1, 5, 5, 2}, {3, 3, 2, 4}, {{1, 1}, "FOO"}),
            "Value for attr 'padding' of \"FOO\" is not in the list of allowed values: \"SAME\", "
            "\"VALID\", \"EXPLICIT\" [Op:Conv2D]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::nn::conv2d(x, eagle::zeros({3, 3, 2, 4}, DType::kFloat64));
            },
            "cannot compute Conv2D as input #1(zero-based) was expected to be a float tensor but "
            "is a double tensor [Op:Conv2D]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::nn::conv2d(eagle::zeros({1, 5, 5, 2}, DType::kInt64),
                                eagle::zeros({3, 3, 2, 4}, DType::kInt64));
            },
            not_allowed("Conv2D", "int64", kFloatingTexts)),
    };
  };
  e.gradients = {
      {"conv2d VALID", {{Shape{2, 5, 4, 2}}, {Shape{3, 2, 2, 3}}}, e.call},
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
      {"conv2d grouped SAME, 2 groups",
       {{Shape{1, 5, 4, 4}}, {Shape{3, 2, 2, 4}}},
       [](V x) {
         return eagle::nn::conv2d(x[0], x[1], {{1, 1}, "SAME"});
       }},
  };
  return e;
}

// _FusedConv2D: the conv cases with a bias, Relu on every other one (Note [Fused convolutions]).
// That its values are Conv2D + BiasAdd + Relu's bit for bit, and its gradient theirs:
// nn_conv_test.
OpInfo fused_conv2d_info() {
  OpInfo e{opdefs::OpId::k_FusedConv2D};
  e.call = [](V x) { return eagle::nn::fused_conv2d(x[0], x[1], x[2]); };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (std::size_t i = 0; i < conv_cases().size(); ++i) {
      const ConvCase& c = conv_cases()[i];
      const Shape y = conv_output_shape(c, d);
      const Conv2DOptions options = c.options;
      const auto activation =
          i % 2 == 0 ? eagle::nn::FusedActivation::kRelu : eagle::nn::FusedActivation::kNone;
      const Tensor x = make(d, c.x, Domain::kUnit, seed_of(i, 1));
      const Tensor filter = make(d, c.filter, Domain::kUnit, seed_of(i, 2));
      out.push_back({describe(c) + (i % 2 == 0 ? " + bias, relu" : " + bias"),
                     {x, filter, make(d, Shape{c.filter[3]}, Domain::kUnit, seed_of(i, 4))},
                     [options, activation](V x) {
                       return eagle::nn::fused_conv2d(x[0], x[1], x[2], options, activation);
                     },
                     fused_tol(d, conv_terms(c, y) + 1, x, filter, options)});
    }
    return out;
  };
  e.errors = [] {
    const auto fused = [](Shape xs, Shape fs, Shape bs, DType bias_dtype = DType::kFloat32) {
      return [xs, fs, bs, bias_dtype] {
        eagle::nn::fused_conv2d(eagle::zeros(xs), eagle::zeros(fs), eagle::zeros(bs, bias_dtype));
      };
    };
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            fused({5, 5, 2}, {3, 3, 2, 4}, {4}),
            "convolution input must be 4-dimensional: [5,5,2] [Op:_FusedConv2D]"),
        raises<InvalidArgumentError>(fused({1, 5, 5, 2}, {3, 3, 2, 4}, {1, 4}),
                                     "Biases must be 1D: [1,4] [Op:_FusedConv2D]"),
        raises<InvalidArgumentError>(fused({1, 5, 5, 2}, {3, 3, 2, 4}, {3}),
                                     "Must provide as many biases as the last dimension of the "
                                     "input tensor: [3] vs. [1,3,3,4] [Op:_FusedConv2D]"),
        raises<InvalidArgumentError>(
            fused({1, 5, 5, 2}, {3, 3, 2, 4}, {4}, DType::kFloat64),
            "cannot compute _FusedConv2D as input #2(zero-based) was expected to be a float "
            "tensor but is a double tensor [Op:_FusedConv2D]"),
    };
  };
  // Relu's kink is avoided: positive inputs, filter and bias keep every output positive.
  e.gradients = {
      {"fused_conv2d SAME, linear",
       {{Shape{1, 5, 4, 2}}, {Shape{3, 2, 2, 3}}, {Shape{3}}},
       [](V x) {
         return eagle::nn::fused_conv2d(x[0], x[1], x[2], {{1, 1}, "SAME"});
       }},
      {"fused_conv2d VALID stride 2, relu",
       {{Shape{1, 6, 5, 2}, GradDomain::kPositive},
        {Shape{3, 3, 2, 2}, GradDomain::kPositive},
        {Shape{2}, GradDomain::kPositive}},
       [](V x) {
         return eagle::nn::fused_conv2d(x[0], x[1], x[2], {{2, 2}, "VALID"},
                                        eagle::nn::FusedActivation::kRelu);
       }},
  };
  return e;
}

OpInfo conv2d_backprop_input_info() {
  OpInfo e{opdefs::OpId::kConv2DBackpropInput};
  // Inputs (filter, out_backprop); the input's shape is an attribute.
  e.call = [](V x) {
    const Shape& f = x[0].shape();
    const Shape& dy = x[1].shape();
    return eagle::nn::conv2d_backprop_input(Shape{dy[0], dy[1] + f[0] - 1, dy[2] + f[1] - 1, f[2]},
                                            x[0], x[1]);
  };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (std::size_t i = 0; i < conv_cases().size(); ++i) {
      const ConvCase& c = conv_cases()[i];
      const Shape y = conv_output_shape(c, d);
      const Conv2DOptions options = c.options;
      const Shape xs = c.x;
      out.push_back(
          {describe(c),
           {make(d, c.filter, Domain::kUnit, seed_of(i, 2)),
            make(d, y, Domain::kUnit, seed_of(i, 3))},
           [xs, options](V x) { return eagle::nn::conv2d_backprop_input(xs, x[0], x[1], options); },
           accumulation_tol(d, conv_terms(c, y))});
    }
    return out;
  };
  e.errors = [] {
    const Tensor f = eagle::zeros({3, 3, 2, 4});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [f] {
              eagle::nn::conv2d_backprop_input({1, 5, 5, 2}, f, eagle::zeros({1, 3, 3, 5}));
            },
            "Conv2DCustomBackpropInput: filter and out_backprop must have the same out_depth "
            "[Op:Conv2DBackpropInput]"),
        raises<InvalidArgumentError>(
            [f] {
              eagle::nn::conv2d_backprop_input({1, 5, 5, 2}, f, eagle::zeros({1, 2, 3, 4}));
            },
            "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: actual = 2, "
            "computed = 3 spatial_dim: 1 input: 5 filter: 3 output: 2 stride: 1 dilation: 1 "
            "[Op:Conv2DBackpropInput]"),
    };
  };
  e.gradients = {
      {"conv2d_backprop_input",
       {{Shape{3, 2, 2, 3}}, {Shape{1, 3, 2, 3}}},
       [](V x) {
         return eagle::nn::conv2d_backprop_input(Shape{1, 5, 4, 2}, x[0], x[1], {{2, 2}, "SAME"});
       }},
      {"conv2d_backprop_input grouped, 3 groups",
       {{Shape{2, 2, 1, 3}}, {Shape{1, 3, 2, 3}}},
       [](V x) {
         return eagle::nn::conv2d_backprop_input(Shape{1, 5, 4, 3}, x[0], x[1], {{2, 2}, "SAME"});
       }},
  };
  return e;
}

OpInfo conv2d_backprop_filter_info() {
  OpInfo e{opdefs::OpId::kConv2DBackpropFilter};
  // Inputs (input, out_backprop); the filter's shape is an attribute.
  e.call = [](V x) {
    const Shape& in = x[0].shape();
    const Shape& dy = x[1].shape();
    return eagle::nn::conv2d_backprop_filter(
        x[0], Shape{in[1] - dy[1] + 1, in[2] - dy[2] + 1, in[3], dy[3]}, x[1]);
  };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (std::size_t i = 0; i < conv_cases().size(); ++i) {
      const ConvCase& c = conv_cases()[i];
      const Shape y = conv_output_shape(c, d);
      const Conv2DOptions options = c.options;
      const Shape fs = c.filter;
      // Each filter element sums batch * out_height * out_width products.
      out.push_back(
          {describe(c),
           {make(d, c.x, Domain::kUnit, seed_of(i, 1)), make(d, y, Domain::kUnit, seed_of(i, 3))},
           [fs, options](V x) {
             return eagle::nn::conv2d_backprop_filter(x[0], fs, x[1], options);
           },
           accumulation_tol(d, conv_terms(c, y) * static_cast<double>(c.x[0]))});
    }
    return out;
  };
  e.errors = [] {
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [] {
              eagle::nn::conv2d_backprop_filter(eagle::zeros({1, 5, 5, 2}), {3, 3, 2, 4},
                                                eagle::zeros({1, 3, 3, 5}));
            },
            "Conv2DCustomBackpropFilter: filter and out_backprop must have the same out_depth "
            "[Op:Conv2DBackpropFilter]"),
    };
  };
  e.gradients = {
      {"conv2d_backprop_filter",
       {{Shape{1, 5, 4, 2}}, {Shape{1, 3, 3, 3}}},
       [](V x) {
         return eagle::nn::conv2d_backprop_filter(x[0], Shape{3, 2, 2, 3}, x[1]);
       }},
      {"conv2d_backprop_filter grouped, 2 groups",
       {{Shape{1, 5, 4, 4}}, {Shape{1, 3, 3, 4}}},
       [](V x) {
         return eagle::nn::conv2d_backprop_filter(x[0], Shape{3, 2, 2, 4}, x[1]);
       }},
  };
  return e;
}

// ---- Pooling ------------------------------------------------------------------------------------

Shape pooled_shape(const ConvCase& c, DType d) {
  const Tensor x = make(d, c.x, Domain::kUnit, 1);
  return eagle::with_device("/CPU:0", [&] { return eagle::nn::max_pool2d(x, pool_of(c)); }).shape();
}

OpInfo max_pool_info() {
  OpInfo e{opdefs::OpId::kMaxPool};
  e.call = [](V x) { return eagle::nn::max_pool2d(x[0]); };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (std::size_t i = 0; i < conv_cases().size(); ++i) {
      const ConvCase& c = conv_cases()[i];
      const Pool2DOptions pool = pool_of(c);
      // Specials: NaN and infinities inside windows (NaN wins on both backends' kernels).
      out.push_back({describe(c),
                     {make(d, c.x, Domain::kUnit, seed_of(i, 1), i == 0)},
                     [pool](V x) { return eagle::nn::max_pool2d(x[0], pool); }});
    }
    return out;
  };
  e.errors = [] {
    const auto pool = [](Shape xs, Pool2DOptions o) {
      return [xs, o] { eagle::nn::max_pool2d(eagle::zeros(xs), o); };
    };
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            pool({5, 5, 2}, {{2, 2}, Stride{2, 2}, "VALID"}),
            "tensor_in_shape must have 2 spatial dimensions. 3 0 [Op:MaxPool]"),
        raises<InvalidArgumentError>(
            pool({1, 1, 5, 5, 2}, {{2, 2}, Stride{2, 2}, "VALID"}),
            "tensor_in_shape must have 2 spatial dimensions. 5 0 [Op:MaxPool]"),
        raises<InvalidArgumentError>(pool({1, 5, 5, 2}, {{0, 2}, Stride{2, 2}, "VALID"}),
                                     "Sliding window ksize must be positive. The specified or "
                                     "inferred ksize is: 1,0,2,1 [Op:MaxPool]"),
        raises<InvalidArgumentError>(pool({1, 5, 5, 2}, {{2, 2}, Stride{2, 0}, "VALID"}),
                                     "Stride must be > 0, but got 0 [Op:MaxPool]"),
        raises<InvalidArgumentError>(
            pool({1, 5, 5, 2}, {{7, 2}, Stride{1, 1}, "VALID"}),
            "Computed output size would be negative: -1 [input_size: 5, effective_filter_size: "
            "7, stride: 1] [Op:MaxPool]"),
        raises<InvalidArgumentError>(
            pool({1, 5, 5, 2}, {{2, 2}, std::nullopt, "EXPLICIT"}),
            "explicit_paddings attribute must contain 8 values, but got: 0 [Op:MaxPool]"),
    };
  };
  e.gradients = {
      {"max_pool2d VALID",
       {{Shape{2, 4, 5, 2}, GradDomain::kDistinct}},
       [](V x) { return eagle::nn::max_pool2d(x[0]); }},
      {"max_pool2d SAME 3x3 stride 2",
       {{Shape{1, 5, 6, 2}, GradDomain::kDistinct}},
       [](V x) {
         return eagle::nn::max_pool2d(x[0], {{3, 3}, Stride{2, 2}, "SAME"});
       }},
  };
  return e;
}

OpInfo max_pool_grad_info() {
  OpInfo e{opdefs::OpId::kMaxPoolGrad};
  // Inputs (orig_input, orig_output, grad).
  e.call = [](V x) { return eagle::nn::max_pool_grad(x[0], x[1], x[2]); };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (std::size_t i = 0; i < conv_cases().size(); ++i) {
      const ConvCase& c = conv_cases()[i];
      const Pool2DOptions pool = pool_of(c);
      // Ties (kSmall): the gradient goes to the first maximum of the window on every backend.
      const Tensor x = make(d, c.x, i % 2 ? Domain::kSmall : Domain::kUnit, seed_of(i, 1));
      const Tensor pooled =
          eagle::with_device("/CPU:0", [&] { return eagle::nn::max_pool2d(x, pool); });
      const Tensor grad = make(d, pooled.shape(), Domain::kUnit, seed_of(i, 4));
      // Overlapping windows add several gradients into one element.
      out.push_back({describe(c) + (i % 2 ? " with ties" : ""),
                     {x, pooled, grad},
                     [pool](V in) { return eagle::nn::max_pool_grad(in[0], in[1], in[2], pool); },
                     accumulation_tol(d, static_cast<double>(c.filter[0] * c.filter[1]))});
    }
    return out;
  };
  e.errors = [] {
    const Tensor x = eagle::zeros({1, 5, 5, 2});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [x] {
              eagle::nn::max_pool_grad(x, eagle::nn::max_pool2d(x), eagle::zeros({1, 2, 3, 2}));
            },
            "Expected grad shape to be [1,2,2,2], but got [1,2,3,2] [Op:MaxPoolGrad]"),
    };
  };
  return e;
}

OpInfo avg_pool_info() {
  OpInfo e{opdefs::OpId::kAvgPool};
  e.call = [](V x) { return eagle::nn::avg_pool2d(x[0]); };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (std::size_t i = 0; i < conv_cases().size(); ++i) {
      const ConvCase& c = conv_cases()[i];
      const Pool2DOptions pool = pool_of(c);
      out.push_back({describe(c),
                     {make(d, c.x, Domain::kUnit, seed_of(i, 1))},
                     [pool](V x) { return eagle::nn::avg_pool2d(x[0], pool); },
                     accumulation_tol(d, static_cast<double>(c.filter[0] * c.filter[1]))});
    }
    return out;
  };
  e.errors = [] {
    const auto pool = [](Shape xs, Pool2DOptions o) {
      return [xs, o] { eagle::nn::avg_pool2d(eagle::zeros(xs), o); };
    };
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            pool({5, 5, 2}, {{2, 2}, Stride{2, 2}, "VALID"}),
            "tensor_in_shape must have 2 spatial dimensions. 3 0 [Op:AvgPool]"),
        raises<InvalidArgumentError>(pool({1, 5, 5, 2}, {{2, 0}, Stride{2, 2}, "VALID"}),
                                     "ksize must be a positive int32 value, got:0 [Op:AvgPool]"),
        raises<InvalidArgumentError>(pool({1, 5, 5, 2}, {{2, 2}, Stride{0, 2}, "VALID"}),
                                     "Stride must be > 0, but got 0 [Op:AvgPool]"),
        raises<InvalidArgumentError>(
            pool({1, 5, 5, 2}, {{2, 7}, Stride{1, 1}, "VALID"}),
            "Computed output size would be negative: -1 [input_size: 5, effective_filter_size: "
            "7, stride: 1] [Op:AvgPool]"),
        raises<InvalidArgumentError>(
            pool({1, 5, 5, 2}, {{2, 2}, std::nullopt, "same"}),
            "Value for attr 'padding' of \"same\" is not in the list of allowed values: \"SAME\", "
            "\"VALID\" [Op:AvgPool]"),
    };
  };
  e.gradients = {
      {"avg_pool2d SAME 3x3 stride 2",
       {{Shape{1, 5, 6, 2}}},
       [](V x) {
         return eagle::nn::avg_pool2d(x[0], {{3, 3}, Stride{2, 2}, "SAME"});
       }},
  };
  return e;
}

OpInfo avg_pool_grad_info() {
  OpInfo e{opdefs::OpId::kAvgPoolGrad};
  // Input (grad); the original input's shape is an attribute. Default 2x2 windows, stride 2.
  e.call = [](V x) {
    const Shape& g = x[0].shape();
    return eagle::nn::avg_pool_grad(Shape{g[0], 2 * g[1], 2 * g[2], g[3]}, x[0]);
  };
  e.samples = [](DType d) {
    std::vector<Sample> out;
    for (std::size_t i = 0; i < conv_cases().size(); ++i) {
      const ConvCase& c = conv_cases()[i];
      const Pool2DOptions pool = pool_of(c);
      const Shape xs = c.x;
      out.push_back({describe(c),
                     {make(d, pooled_shape(c, d), Domain::kUnit, seed_of(i, 4))},
                     [xs, pool](V x) { return eagle::nn::avg_pool_grad(xs, x[0], pool); },
                     accumulation_tol(d, static_cast<double>(c.filter[0] * c.filter[1]))});
    }
    return out;
  };
  e.gradients = {
      {"avg_pool_grad",
       {{Shape{1, 3, 3, 2}}},
       [](V x) {
         return eagle::nn::avg_pool_grad(Shape{1, 5, 6, 2}, x[0], {{3, 3}, Stride{2, 2}, "SAME"});
       }},
  };
  return e;
}

}  // namespace

std::vector<OpInfo> conv_op_infos() {
  return {conv2d_info(),
          fused_conv2d_info(),
          conv2d_backprop_input_info(),
          conv2d_backprop_filter_info(),
          max_pool_info(),
          max_pool_grad_info(),
          avg_pool_info(),
          avg_pool_grad_info()};
}

}  // namespace eagle_test
