// Gradients of the shape ops, Identity, CheckNumerics, Cast, ReadVariableOp and TopKV2
// (TensorFlow's array_grad.py, math_grad.py _CastGrad, nn_grad.py _TopKGrad).
#include <numeric>

#include <fmt/format.h>

#include "autodiff/grad_ops.hpp"
#include "autodiff/gradient_registry.hpp"
#include "eagle/debugging.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace eagle::autodiff {
namespace {

using Grads = std::vector<Tensor>;

// Reshape, ExpandDims, Squeeze: the gradient takes the input's shape back.
void reshape_grad(const GradContext& c, Grads& g) { g[0] = reshape_to(c.grad(), c.input_shape(0)); }

void transpose_grad(const GradContext& c, Grads& g) {
  const std::vector<int>& perm = c.attrs<opdefs::TransposeAttrs>().perm;  // normalized by transpose
  std::vector<int> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
  g[0] = transpose(c.grad(), inverse);
}

// Each input gets its own stretch of the gradient along the axis.
void concat_grad(const GradContext& c, Grads& g) {
  const int axis = c.attrs<opdefs::AxisAttrs>().axis;
  const Tensor grad = c.grad();
  std::vector<std::int64_t> begin(static_cast<std::size_t>(grad.rank()), 0);
  std::vector<std::int64_t> size(static_cast<std::size_t>(grad.rank()), -1);
  for (int i = 0; i < c.num_inputs(); ++i) {
    const std::int64_t extent = c.input_shape(i)[axis];
    if (c.needs_input_grad(i)) {
      size[static_cast<std::size_t>(axis)] = extent;
      g[static_cast<std::size_t>(i)] = slice(grad, begin, size);
    }
    begin[static_cast<std::size_t>(axis)] += extent;
  }
}

// The gradient placed back where the slice came from, zeros around it (TensorFlow pads).
void slice_grad(const GradContext& c, Grads& g) {
  const std::vector<std::int64_t>& begin = c.attrs<opdefs::SliceAttrs>().begin;
  const Shape& in = c.input_shape(0);
  Tensor grad = c.grad();
  for (int axis = 0; axis < in.rank(); ++axis) {
    const std::int64_t before = begin[static_cast<std::size_t>(axis)];
    const std::int64_t after = in[axis] - before - grad.shape()[axis];
    if (before == 0 && after == 0) continue;
    std::vector<Tensor> parts;
    Shape pad = grad.shape();
    if (before > 0) {
      pad[axis] = before;
      parts.push_back(zeros(pad, grad.dtype()));
    }
    parts.push_back(grad);
    if (after > 0) {
      pad[axis] = after;
      parts.push_back(zeros(pad, grad.dtype()));
    }
    grad = concat(parts, axis);
  }
  g[0] = grad;
}

void identity_grad(const GradContext& c, Grads& g) { g[0] = c.grad(); }

// IdentityN passes each gradient through; recorded by eagle::custom_gradient, its gradient is the
// user's grad_fn, from the gradients of the function's outputs (the trailing num_outputs outputs)
// to those of its inputs (Note [Custom gradients] in autodiff/custom_gradient.cpp).
void identity_n_grad(const GradContext& c, Grads& g) {
  const auto& a = c.attrs<opdefs::IdentityNAttrs>();
  if (a.grad_fn == nullptr) {
    // As TensorFlow: an output no target depends on passes zeros, not None.
    for (int i = 0; i < c.num_inputs(); ++i) {
      if (c.needs_input_grad(i)) g[static_cast<std::size_t>(i)] = c.grad(i);
    }
    return;
  }
  const int num_inputs = c.num_inputs() - a.num_outputs;
  std::vector<Tensor> output_grads;
  output_grads.reserve(static_cast<std::size_t>(a.num_outputs));
  for (int i = num_inputs; i < c.num_outputs(); ++i) output_grads.push_back(c.grad(i));
  std::vector<Tensor> input_grads = (*a.grad_fn)(output_grads);
  if (static_cast<int>(input_grads.size()) != num_inputs) {
    throw InvalidArgumentError(fmt::format(
        "custom_gradient function expected to return {} gradients, but returned {} instead.",
        num_inputs, input_grads.size()));
  }
  for (int i = 0; i < num_inputs; ++i) {
    Tensor& grad = input_grads[static_cast<std::size_t>(i)];
    if (!grad.defined()) continue;  // None: no gradient for this input
    if (grad.shape() != c.input_shape(i) || grad.dtype() != c.input_dtype(i)) {
      throw InvalidArgumentError(fmt::format(
          "custom_gradient function returned a gradient of shape {} and dtype {} for input {} of "
          "shape {} and dtype {}",
          grad.shape().to_string(), dtype_name(grad.dtype()), i, c.input_shape(i).to_string(),
          dtype_name(c.input_dtype(i))));
    }
    g[static_cast<std::size_t>(i)] = std::move(grad);
  }
}

// TensorFlow's _CheckNumericsGrad: an identity whose gradient is checked too.
void check_numerics_grad(const GradContext& c, Grads& g) {
  g[0] = debugging::check_numerics(
      c.grad(), "Not a number (NaN) or infinity (Inf) values detected in gradient. " +
                    c.attrs<opdefs::CheckNumericsAttrs>().message);
}

// Between floating types the gradient is cast back; to or from an integer there is none.
void cast_grad(const GradContext& c, Grads& g) {
  const DType from = c.input_dtype(0);
  const DType to = c.grad().dtype();
  if (is_floating(from) && is_floating(to)) g[0] = cast(c.grad(), from);
}

// The values' gradient scattered to the positions top_k took them from (the indices get none).
void top_k_grad(const GradContext& c, Grads& g) {
  const Shape& in = c.input_shape(0);
  const Tensor& indices = c.output(1);  // [..., k], int32
  const std::int64_t n = in[in.rank() - 1];
  // one_hot[..., j, i] = (indices[..., j] == i): [..., k, n]
  const Tensor positions = range(0, static_cast<int>(n));
  const Tensor hits = cast(equal(expand_dims(indices, -1), positions), c.grad().dtype());
  g[0] = reduce_sum(multiply(hits, expand_dims(c.grad(0), -1)), -2);
}

// Tile: the gradient viewed as [m0, d0, m1, d1, ...] and summed over the multiples.
void tile_grad(const GradContext& c, Grads& g) {
  const std::vector<std::int64_t>& multiples = c.attrs<opdefs::TileAttrs>().multiples;
  const Shape& in = c.input_shape(0);
  std::vector<std::int64_t> split_dims;
  std::vector<int> axes;
  for (int i = 0; i < in.rank(); ++i) {
    split_dims.push_back(multiples[static_cast<std::size_t>(i)]);
    split_dims.push_back(in[i]);
    axes.push_back(2 * i);
  }
  if (in.num_elements() == 0) {
    g[0] = zeros(in, c.grad().dtype());
    return;
  }
  g[0] = reshape_to(reduce_sum(reshape(c.grad(), split_dims), axes), in);
}

// Pad, PadV2: the input's window of the gradient.
void pad_grad(const GradContext& c, Grads& g) {
  const std::vector<std::int64_t>& before = c.attrs<opdefs::PadAttrs>().before;
  std::vector<std::int64_t> size;
  for (int i = 0; i < c.input_shape(0).rank(); ++i) size.push_back(c.input_shape(0)[i]);
  g[0] = slice(c.grad(), before, size);
}

// MirrorPad: each padded entry's gradient goes back to the entry it mirrors.
void mirror_pad_grad(const GradContext& c, Grads& g) {
  const auto& attrs = c.attrs<opdefs::PadAttrs>();
  const Shape& in = c.input_shape(0);
  Tensor grad = c.grad();
  for (int axis = 0; axis < in.rank(); ++axis) {
    const std::int64_t b = attrs.before[static_cast<std::size_t>(axis)];
    const std::int64_t a = attrs.after[static_cast<std::size_t>(axis)];
    const std::int64_t n = in[axis];
    if (a == 0 && b == 0) continue;
    std::vector<std::int64_t> source;
    for (std::int64_t j = 0; j < b + n + a; ++j) {
      const std::int64_t p = j - b;
      if (p < 0) {
        source.push_back(attrs.symmetric ? -p - 1 : -p);
      } else if (p >= n) {
        source.push_back(attrs.symmetric ? 2 * n - 1 - p : 2 * n - 2 - p);
      } else {
        source.push_back(p);
      }
    }
    grad = scatter_along_axis(grad, axis, source, n);
  }
  g[0] = grad;
}

void reverse_grad(const GradContext& c, Grads& g) {
  g[0] = reverse(c.grad(), c.attrs<opdefs::ReverseAttrs>().axes);
}

void cumsum_grad(const GradContext& c, Grads& g) {
  const auto& a = c.attrs<opdefs::ScanAttrs>();
  g[0] = cumsum(c.grad(), a.axis, a.exclusive, !a.reverse);
}

// TensorFlow's _CumprodGrad: cumsum(prod * grad, reversed) / x (NaN where x is 0, as there).
void cumprod_grad(const GradContext& c, Grads& g) {
  const auto& a = c.attrs<opdefs::ScanAttrs>();
  const Tensor& x = c.input(0);
  const Tensor out = cumsum(multiply(c.output(), c.grad()), a.axis, a.exclusive, !a.reverse);
  g[0] = divide(out, x);
}

// Split, SplitV, Unpack's inverse: the outputs' gradients joined (zeros for an unused output).
void split_grad(const GradContext& c, Grads& g) {
  const int axis = c.attrs<opdefs::AxisAttrs>().axis;
  std::vector<Tensor> parts;
  for (int i = 0; i < c.num_outputs(); ++i) parts.push_back(c.grad(i));
  if (parts.empty()) {
    g[0] = zeros(c.input_shape(0), c.input_dtype(0));
  } else if (c.op() == opdefs::OpId::kUnpack) {
    g[0] = stack(parts, axis);
  } else {
    g[0] = concat(parts, axis);
  }
}

void pack_grad(const GradContext& c, Grads& g) {
  const std::vector<Tensor> parts = unstack(c.grad(), c.attrs<opdefs::AxisAttrs>().axis);
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (c.needs_input_grad(i)) g[static_cast<std::size_t>(i)] = parts[static_cast<std::size_t>(i)];
  }
}

}  // namespace

void register_array_gradients(GradientRegistry& r) {
  r.add(opdefs::OpId::kReshape, reshape_grad);
  r.add(opdefs::OpId::kExpandDims, reshape_grad);
  r.add(opdefs::OpId::kSqueeze, reshape_grad);
  r.add(opdefs::OpId::kTranspose, transpose_grad);
  r.add(opdefs::OpId::kConcatV2, concat_grad);
  r.add(opdefs::OpId::kSlice, slice_grad);
  r.add(opdefs::OpId::kIdentity, identity_grad);
  r.add(opdefs::OpId::kReadVariableOp, identity_grad);
  r.add(opdefs::OpId::kCheckNumerics, check_numerics_grad);
  r.add(opdefs::OpId::kIdentityN, identity_n_grad);
  r.add(opdefs::OpId::kCast, cast_grad);
  r.add(opdefs::OpId::kTopKV2, top_k_grad, kSaveNone, save(1));
  r.add(opdefs::OpId::kTile, tile_grad);
  r.add(opdefs::OpId::kPad, pad_grad);
  r.add(opdefs::OpId::kPadV2, pad_grad);
  r.add(opdefs::OpId::kMirrorPad, mirror_pad_grad);
  r.add(opdefs::OpId::kReverseV2, reverse_grad);
  r.add(opdefs::OpId::kCumsum, cumsum_grad);
  r.add(opdefs::OpId::kCumprod, cumprod_grad, save(0), save(0));
  r.add(opdefs::OpId::kSplit, split_grad);
  r.add(opdefs::OpId::kSplitV, split_grad);
  r.add(opdefs::OpId::kUnpack, split_grad);
  r.add(opdefs::OpId::kPack, pack_grad);
}

}  // namespace eagle::autodiff
