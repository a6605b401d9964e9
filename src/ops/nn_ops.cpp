// The NN ops' front-ends (eagle::nn): validation with TensorFlow's texts, then TensorFlow's op or
// the ops TensorFlow composes the function from (tensorflow/python/ops/nn_ops.py, nn_impl.py).
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/python_repr.hpp"
#include "eagle/format.hpp"
#include "eagle/ops.hpp"
#include "eagle/ops/nn_activations.hpp"
#include "eagle/ops/nn_losses.hpp"
#include "eagle/ops/nn_normalization.hpp"
#include "opdefs/attrs.hpp"
#include "ops/op_support.hpp"

namespace eagle::nn {
namespace {

// A shape as Python prints a TensorShape's tuple in TensorFlow's ValueErrors: (2, 3), (3,), ().
std::string python_shape(const Shape& s) {
  std::string out = "(";
  for (int i = 0; i < s.rank(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.rank() == 1 ? ",)" : ")");
}

Tensor unary(opdefs::OpId op, const Tensor& x, const opdefs::OpAttrs& attrs = runtime::no_attrs()) {
  ops::check_defined(x, op);
  return ops::run_unary(op, x, x.shape(), x.dtype(), attrs);
}

std::vector<std::int64_t> dims_of(const Shape& s) {
  std::vector<std::int64_t> d;
  for (int i = 0; i < s.rank(); ++i) d.push_back(s[i]);
  return d;
}

// x with axes `axis` and `last` swapped (TensorFlow's _swap_axis for softmax over an axis).
Tensor swap_with_last(const Tensor& x, int axis) {
  std::vector<int> perm;
  for (int i = 0; i < x.rank(); ++i) perm.push_back(i);
  std::swap(perm[static_cast<std::size_t>(axis)], perm.back());
  return transpose(x, perm);
}

}  // namespace

Tensor relu6(const Tensor& features) { return unary(opdefs::OpId::kRelu6, features); }

Tensor leaky_relu(const Tensor& features, double alpha) {
  ops::check_defined(features, opdefs::OpId::kLeakyRelu);
  const Tensor x = is_integer(features.dtype()) ? cast(features, DType::kFloat32) : features;
  return unary(opdefs::OpId::kLeakyRelu, x, opdefs::OpAttrs{opdefs::LeakyReluAttrs{alpha}});
}

Tensor elu(const Tensor& features) { return unary(opdefs::OpId::kElu, features); }
Tensor selu(const Tensor& features) { return unary(opdefs::OpId::kSelu, features); }
Tensor softplus(const Tensor& features) { return unary(opdefs::OpId::kSoftplus, features); }
Tensor softsign(const Tensor& features) { return unary(opdefs::OpId::kSoftsign, features); }

Tensor gelu(const Tensor& features, bool approximate) {
  ops::check_defined(features, opdefs::OpId::kMul);
  if (!is_floating(features.dtype())) {
    throw InvalidArgumentError(fmt::format(
        "`features.dtype` must be a floating point tensor.Received:features.dtype=<dtype: '{}'>",
        dtype_name(features.dtype())));
  }
  const Tensor& x = features;
  const Tensor half_x = multiply(scalar_like(x, 0.5), x);
  if (approximate) {
    const Tensor cubed = pow(x, scalar_like(x, 3));
    const Tensor inner = add(x, multiply(scalar_like(x, 0.044715), cubed));
    const Tensor t = tanh(multiply(scalar_like(x, 0.7978845608028654), inner));
    return multiply(half_x, add(scalar_like(x, 1), t));
  }
  const Tensor scaled = multiply(negative(x), scalar_like(x, 0.7071067811865476));
  ops::check_defined(scaled, opdefs::OpId::kErfc);
  return multiply(half_x,
                  ops::run_unary(opdefs::OpId::kErfc, scaled, scaled.shape(), scaled.dtype()));
}

Tensor silu(const Tensor& features, double beta) {
  ops::check_defined(features, opdefs::OpId::kMul);
  const Tensor s = sigmoid(multiply(scalar_like(features, beta), features));
  return identity(multiply(features, s));
}
Tensor swish(const Tensor& features, double beta) { return silu(features, beta); }

Tensor log_softmax(const Tensor& logits, int axis) {
  ops::check_defined(logits, opdefs::OpId::kLogSoftmax);
  if (logits.rank() < 1) {
    ops::throw_invalid(
        opdefs::OpId::kLogSoftmax,
        fmt::format("logits must have >= 1 dimension, got {}", logits.shape().to_string()));
  }
  const int a = ops::normalize_axis(opdefs::OpId::kLogSoftmax, axis, logits.rank());
  if (a == logits.rank() - 1) return unary(opdefs::OpId::kLogSoftmax, logits);
  return swap_with_last(unary(opdefs::OpId::kLogSoftmax, swap_with_last(logits, a)), a);
}

Tensor bias_add(const Tensor& value, const Tensor& bias) {
  const Tensor inputs[2] = {value, bias};
  ops::check_defined(value, opdefs::OpId::kBiasAdd, 0);
  ops::check_defined(bias, opdefs::OpId::kBiasAdd, 1);
  ops::check_same_dtype(opdefs::OpId::kBiasAdd, inputs, 2);
  if (value.rank() < 2) {
    ops::throw_invalid(opdefs::OpId::kBiasAdd,
                       "Input tensor must be at least 2D: " + value.shape().to_string());
  }
  if (bias.rank() != 1) {
    ops::throw_invalid(opdefs::OpId::kBiasAdd, "Biases must be 1D: " + bias.shape().to_string());
  }
  if (bias.shape()[0] != value.shape()[value.rank() - 1]) {
    ops::throw_invalid(opdefs::OpId::kBiasAdd,
                       fmt::format("Must provide as many biases as the last dimension of the "
                                   "input tensor: {} vs. {}",
                                   bias.shape().to_string(), value.shape().to_string()));
  }
  return runtime::execute1(opdefs::OpId::kBiasAdd, value.dtype(), inputs, 2, value.shape(),
                           value.dtype());
}

Tensor dropout(const Tensor& x, double rate, const std::optional<Shape>& noise_shape,
               std::optional<std::uint64_t> seed) {
  ops::check_defined(x, opdefs::OpId::kMul);
  if (!(rate >= 0 && rate < 1)) {
    throw InvalidArgumentError(fmt::format(
        "`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={}",
        detail::python_float(rate)));
  }
  if (!is_floating(x.dtype())) {
    throw InvalidArgumentError(
        fmt::format("`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                    "x_dtype=<dtype: '{}'>",
                    dtype_name(x.dtype())));
  }
  const Tensor scaled = multiply(x, scalar_like(x, 1.0 / (1.0 - rate)));
  const Tensor draw = random_uniform(noise_shape ? *noise_shape : x.shape(), 0, 1, x.dtype(), seed);
  const Tensor keep = greater_equal(draw, scalar_like(draw, rate));
  return where(keep, scaled, scalar_like(x, 0));
}

// ---- Losses ------------------------------------------------------------------------------------

Tensor softmax_cross_entropy_with_logits(const Tensor& labels, const Tensor& logits) {
  constexpr opdefs::OpId kOp = opdefs::OpId::kSoftmaxCrossEntropyWithLogits;
  ops::check_defined(logits, kOp, 0);
  ops::check_defined(labels, kOp, 1);
  if (logits.rank() == 0) {  // TensorFlow's flattening slices the shape's last entry
    ops::throw_invalid(opdefs::OpId::kSlice,
                       "Expected begin[0] == 0 (got -1) and size[0] == 0 (got 1) when "
                       "input.dim_size(0) == 0");
  }
  Tensor p = labels;
  if (p.dtype() != logits.dtype() && is_floating(p.dtype())) p = cast(p, logits.dtype());
  const Shape& shape = logits.shape();
  const std::int64_t classes = shape[shape.rank() - 1];
  // The 2-D shapes the op sees, for its broadcasting check and message.
  const auto flat = [](const Shape& s) {
    if (s.rank() == 0) return Shape{1, 1};
    const std::int64_t last = s[s.rank() - 1];
    return Shape{last == 0 ? 0 : s.num_elements() / last, last};
  };
  if (p.shape() != shape) {
    const Shape fl = flat(shape), fp = flat(p.shape());
    bool broadcastable = p.rank() <= shape.rank();
    for (int i = 1; broadcastable && i <= p.rank(); ++i) {
      const std::int64_t d = p.shape()[p.rank() - i];
      broadcastable = d == 1 || d == shape[shape.rank() - i];
    }
    if (!broadcastable) {
      ops::throw_invalid(kOp, fmt::format("logits and labels must be broadcastable: "
                                          "logits_size={} labels_size={}",
                                          fl.to_string(), fp.to_string()));
    }
    p = broadcast_to(p, shape);
  }
  const bool two_d = shape.rank() == 2;
  const Shape rows{classes == 0 ? 0 : shape.num_elements() / classes, classes};
  const Tensor inputs[2] = {two_d ? logits : reshape(logits, dims_of(rows)),
                            two_d ? p : reshape(p, dims_of(rows))};
  ops::check_same_dtype(kOp, inputs, 2);
  const runtime::TensorSpec specs[2] = {{Shape{rows[0]}, logits.dtype()}, {rows, logits.dtype()}};
  Tensor results[2];
  runtime::execute(runtime::OpCall{kOp, logits.dtype(), inputs, 2, specs, 2}, results);
  if (two_d) return results[0];
  Shape loss_shape;
  for (int i = 0; i + 1 < shape.rank(); ++i) loss_shape.push_back(shape[i]);
  return reshape(results[0], dims_of(loss_shape));
}

Tensor sparse_softmax_cross_entropy_with_logits(const Tensor& labels, const Tensor& logits) {
  constexpr opdefs::OpId kOp = opdefs::OpId::kSparseSoftmaxCrossEntropyWithLogits;
  ops::check_defined(logits, kOp, 0);
  ops::check_defined(labels, kOp, 1);
  const Shape& shape = logits.shape();
  if (shape.rank() == 0) {
    throw InvalidArgumentError(
        fmt::format("`logits` cannot be a scalar. Received logits={}`", format_values(logits)));
  }
  if (labels.rank() != shape.rank() - 1) {
    throw InvalidArgumentError(fmt::format(
        "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape={} of "
        "rank {} and logits.shape={} of rank {}",
        python_shape(labels.shape()), labels.rank(), python_shape(shape), shape.rank()));
  }
  for (int i = 0; i < labels.rank(); ++i) {
    if (labels.shape()[i] != shape[i]) {
      throw InvalidArgumentError(fmt::format(
          "`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
          "labels.shape={} and logits.shape={}",
          python_shape(labels.shape()), python_shape(shape)));
    }
  }
  if (labels.dtype() != DType::kInt32 && labels.dtype() != DType::kInt64) {
    ops::throw_invalid(kOp, fmt::format("Value for attr 'Tlabels' of {} is not in the list of "
                                        "allowed values: int32, int64",
                                        dtype_runtime_name(labels.dtype())));
  }
  const std::int64_t classes = shape[shape.rank() - 1];
  const std::int64_t batch = labels.num_elements();
  if (batch > 0 && classes == 0) {
    ops::throw_invalid(kOp, fmt::format("Must have at least one class, but got logits shape {}",
                                        Shape{batch, classes}.to_string()));
  }
  const bool two_d = shape.rank() == 2;
  const Tensor inputs[2] = {two_d ? logits : reshape(logits, {batch, classes}),
                            two_d ? labels : reshape(labels, {batch})};
  const runtime::TensorSpec specs[2] = {{Shape{batch}, logits.dtype()},
                                        {Shape{batch, classes}, logits.dtype()}};
  Tensor results[2];
  runtime::execute(runtime::OpCall{kOp, logits.dtype(), inputs, 2, specs, 2}, results);
  if (two_d) return results[0];
  return reshape(results[0], dims_of(labels.shape()));
}

Tensor l2_loss(const Tensor& t) {
  ops::check_defined(t, opdefs::OpId::kL2Loss);
  return ops::run_unary(opdefs::OpId::kL2Loss, t, Shape{}, t.dtype());
}

Tensor one_hot(const Tensor& indices, std::int64_t depth, double on_value, double off_value,
               int axis, DType dtype) {
  constexpr opdefs::OpId kOp = opdefs::OpId::kOneHot;
  ops::check_defined(indices, kOp);
  if (indices.dtype() != DType::kInt32 && indices.dtype() != DType::kInt64) {
    ops::throw_invalid(kOp, fmt::format("Value for attr 'TI' of {} is not in the list of allowed "
                                        "values: int32, int64",
                                        dtype_runtime_name(indices.dtype())));
  }
  const int rank = indices.rank() + 1;
  if (axis < -1 || axis >= rank) {
    ops::throw_invalid(kOp, fmt::format("Expected axis to be -1 or between [0, {}).  But "
                                        "received: {}",
                                        rank, axis));
  }
  if (depth < 0) {
    ops::throw_invalid(kOp, fmt::format("depth must be non-negative, got: {}", depth));
  }
  const int a = axis == -1 ? rank - 1 : axis;
  Shape out;
  for (int i = 0, j = 0; i < rank; ++i) out.push_back(i == a ? depth : indices.shape()[j++]);
  return runtime::execute1(kOp, dtype, &indices, 1, out, dtype,
                           opdefs::OpAttrs{opdefs::OneHotAttrs{depth, a, on_value, off_value}});
}

// ---- Normalization -----------------------------------------------------------------------------

Moments moments(const Tensor& x, const std::vector<int>& axes, bool keepdims) {
  ops::check_defined(x, opdefs::OpId::kMean);
  const Tensor y = x.dtype() == DType::kFloat16 ? cast(x, DType::kFloat32) : x;
  const Tensor mean = reduce_mean(y, axes, /*keepdims=*/true);
  const Tensor frozen =
      ops::run_unary(opdefs::OpId::kStopGradient, mean, mean.shape(), mean.dtype());
  const Tensor variance = reduce_mean(squared_difference(y, frozen), axes, /*keepdims=*/true);
  Moments m{mean, variance};
  if (!keepdims) {
    m.mean = squeeze(m.mean, axes);
    m.variance = squeeze(m.variance, axes);
  }
  if (x.dtype() == DType::kFloat16) {
    m.mean = cast(m.mean, DType::kFloat16);
    m.variance = cast(m.variance, DType::kFloat16);
  }
  return m;
}

Tensor batch_normalization(const Tensor& x, const Tensor& mean, const Tensor& variance,
                           const Tensor& offset, const Tensor& scale, double variance_epsilon) {
  ops::check_defined(x, opdefs::OpId::kMul);
  ops::check_defined(mean, opdefs::OpId::kMul);
  ops::check_defined(variance, opdefs::OpId::kAddV2);
  Tensor inv = rsqrt(add(variance, scalar_like(variance, variance_epsilon)));
  if (scale.defined()) inv = multiply(inv, scale);
  const Tensor cast_inv = inv.dtype() == x.dtype() ? inv : cast(inv, x.dtype());
  const Tensor scaled = multiply(x, cast_inv);
  Tensor shift =
      offset.defined() ? subtract(offset, multiply(mean, inv)) : negative(multiply(mean, inv));
  if (shift.dtype() != x.dtype()) shift = cast(shift, x.dtype());
  return add(scaled, shift);
}

FusedBatchNorm fused_batch_norm(const Tensor& x, const Tensor& scale, const Tensor& offset,
                                const Tensor& mean, const Tensor& variance, double epsilon,
                                double exponential_avg_factor, bool is_training) {
  constexpr opdefs::OpId kOp = opdefs::OpId::kFusedBatchNormV3;
  ops::check_defined(x, kOp, 0);
  ops::check_defined(scale, kOp, 1);
  ops::check_defined(offset, kOp, 2);
  const DType u =
      x.dtype() == DType::kFloat16 || x.dtype() == DType::kBFloat16 ? DType::kFloat32 : x.dtype();
  // Training at factor 1 reads no statistics: TensorFlow passes empty tensors for None.
  const bool reads_statistics = !is_training || exponential_avg_factor != 1.0;
  const Tensor m = mean.defined() ? mean : zeros(Shape{0}, u);
  const Tensor v = variance.defined() ? variance : zeros(Shape{0}, u);
  const Tensor inputs[5] = {x, scale, offset, m, v};
  for (int i = 1; i < 5; ++i) {
    if (inputs[i].dtype() != u) {
      ops::throw_invalid(kOp, fmt::format("cannot compute {} as input #{}(zero-based) was "
                                          "expected to be a {} tensor but is a {} tensor",
                                          opdefs::op_name(kOp), i, dtype_runtime_name(u),
                                          dtype_runtime_name(inputs[i].dtype())));
    }
  }
  if (x.rank() != 4) {
    ops::throw_invalid(kOp, "input must be 4-dimensional" + x.shape().to_string());
  }
  const char* names[5] = {"x", "scale", "offset", "estimated_mean", "estimated_variance"};
  for (int i = 1; i < 5; ++i) {
    if (inputs[i].rank() != 1) {
      ops::throw_invalid(
          kOp, fmt::format("{} must be 1-dimensional{}", names[i], inputs[i].shape().to_string()));
    }
  }
  const std::int64_t channels = x.shape()[3];
  const char* short_names[5] = {"x", "scale", "offset", "mean", "variance"};
  for (int i = 1; i < 5; ++i) {
    if (inputs[i].shape()[0] == channels || (i >= 3 && !reads_statistics)) continue;
    ops::throw_invalid(kOp, fmt::format("{}{} must have the same number of elements as the "
                                        "channels of x, got {} and {}",
                                        i >= 3 ? "When is_training=false, " : "", short_names[i],
                                        inputs[i].shape()[0], channels));
  }
  const Shape c{channels};
  const runtime::TensorSpec specs[6] = {{x.shape(), x.dtype()}, {c, u}, {c, u}, {c, u}, {c, u},
                                        {Shape{0}, u}};
  const opdefs::OpAttrs attrs{
      opdefs::FusedBatchNormAttrs{epsilon, exponential_avg_factor, is_training}};
  Tensor r[6];
  runtime::execute(runtime::OpCall{kOp, x.dtype(), inputs, 5, specs, 6, attrs}, r);
  return FusedBatchNorm{r[0], r[1], r[2], r[3], r[4], r[5]};
}

}  // namespace eagle::nn
