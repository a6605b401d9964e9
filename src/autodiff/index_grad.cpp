// Gradients of the indexing ops: GatherV2, GatherNd, SelectV2, StridedSlice, Einsum. A gather's
// gradient adds each upstream entry back at the index it was taken from; without a scatter-add
// kernel eagle does that as one contraction with a one-hot matrix of the indices (einsum), which
// every backend runs (memory: indices x gathered extent, fine for gathers of classes and
// labels; an UnsortedSegmentSum kernel is the step for embedding tables).
#include <fmt/format.h>

#include "autodiff/grad_ops.hpp"
#include "autodiff/gradient_registry.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace eagle::autodiff {
namespace {

using Grads = std::vector<Tensor>;

std::int64_t product(const Shape& s, int from, int to) {
  std::int64_t p = 1;
  for (int i = from; i < to; ++i) p *= s[i];
  return p;
}

// one_hot[..., n] = (index == n), of `dtype`.
Tensor one_hot(const Tensor& index, std::int64_t depth, DType dtype) {
  const Tensor positions =
      cast(range(0.0, static_cast<double>(depth), 1.0, DType::kInt64), index.dtype());
  return cast(equal(expand_dims(index, -1), positions), dtype);
}

// params [batch, outer, N, inner]; indices [batch, count]; out [batch, outer, count, inner].
void gather_grad(const GradContext& c, Grads& g) {
  const auto& a = c.attrs<ops::GatherAttrs>();
  const Shape& params = c.input_shape(0);
  const Shape& indices = c.input_shape(1);
  const std::int64_t batch = product(params, 0, a.batch_dims);
  const std::int64_t outer = product(params, a.batch_dims, a.axis);
  const std::int64_t n = params[a.axis];
  const std::int64_t inner = product(params, a.axis + 1, params.rank());
  const std::int64_t count = product(indices, a.batch_dims, indices.rank());
  const Tensor grad = c.grad();
  const Tensor hot = reshape(one_hot(c.input(1), n, grad.dtype()), {batch, count, n});
  const Tensor upstream = reshape(grad, {batch, outer, count, inner});
  g[0] = reshape_to(einsum("bcn,bocs->bons", {hot, upstream}), params);
}

// params [batch, P_0..P_{d-1}, S...], indices [batch, ..., d]: the d coordinates flattened to
// one index into the P block.
void gather_nd_grad(const GradContext& c, Grads& g) {
  const int batch_dims = c.attrs<ops::GatherNdAttrs>().batch_dims;
  const Shape& params = c.input_shape(0);
  const Shape& indices = c.input_shape(1);
  const int depth = static_cast<int>(indices[indices.rank() - 1]);
  const std::int64_t batch = product(params, 0, batch_dims);
  const std::int64_t n = product(params, batch_dims, batch_dims + depth);
  const std::int64_t slice = product(params, batch_dims + depth, params.rank());
  const std::int64_t count = product(indices, batch_dims, indices.rank() - 1);
  std::vector<std::int64_t> strides(static_cast<std::size_t>(depth), 1);
  for (int k = depth - 2; k >= 0; --k) {
    strides[static_cast<std::size_t>(k)] =
        strides[static_cast<std::size_t>(k) + 1] * params[batch_dims + k + 1];
  }
  const Tensor linear =
      reduce_sum(multiply(cast(c.input(1), DType::kInt64), constant(strides)), -1);
  const Tensor grad = c.grad();
  const Tensor hot = reshape(one_hot(linear, n, grad.dtype()), {batch, count, n});
  const Tensor upstream = reshape(grad, {batch, count, slice});
  g[0] = reshape_to(einsum("bcn,bcs->bns", {hot, upstream}), params);
}

void select_grad(const GradContext& c, Grads& g) {
  const Tensor& condition = c.input(0);
  const Tensor grad = c.grad();
  const Tensor zero = scalar_like(grad, 0);
  if (c.needs_input_grad(1)) g[1] = sum_to(where(condition, grad, zero), c.input_shape(1));
  if (c.needs_input_grad(2)) g[2] = sum_to(where(condition, zero, grad), c.input_shape(2));
}

// The gradient in the slice's dense form (one dimension per input dimension), each dimension
// scattered back to the positions start + j * step it was read from.
void strided_slice_grad(const GradContext& c, Grads& g) {
  const auto& a = c.attrs<ops::StridedSliceAttrs>();
  const Shape& in = c.input_shape(0);
  Tensor grad = reshape(c.grad(), a.size);
  for (int axis = 0; axis < in.rank(); ++axis) {
    const auto d = static_cast<std::size_t>(axis);
    if (a.step[d] == 1 && a.start[d] == 0 && a.size[d] == in[axis]) continue;
    std::vector<std::int64_t> source;
    for (std::int64_t j = 0; j < a.size[d]; ++j) source.push_back(a.start[d] + j * a.step[d]);
    grad = scatter_along_axis(grad, axis, source, in[axis]);
  }
  g[0] = grad;
}

std::string spelled(const std::string& subscripts) {
  std::string out;
  for (char ch : subscripts) out += ch == '0' ? std::string("...") : std::string(1, ch);
  return out;
}

// d/d(operand i) of an einsum: the upstream gradient contracted with the other operand, to the
// labels of operand i that the output or the other operand has; labels summed away inside operand
// i alone come back by broadcasting, and an ellipsis that broadcast is summed back (sum_to).
Tensor einsum_operand_grad(const GradContext& c, int i) {
  const auto& a = c.attrs<ops::EinsumAttrs>();
  const std::string& mine = a.input_subscripts[static_cast<std::size_t>(i)];
  const std::string& out = a.output_subscripts;
  const bool binary = a.input_subscripts.size() == 2;
  const std::string other = binary ? a.input_subscripts[static_cast<std::size_t>(1 - i)] : "";
  for (std::size_t p = 0; p < mine.size(); ++p) {
    if (mine[p] != '0' && mine.find(mine[p], p + 1) != std::string::npos) {
      throw UnimplementedError(
          fmt::format("The gradient of Einsum with a label repeated within one operand ('{}') "
                      "is not implemented [Op:Einsum]",
                      a.equation));
    }
  }
  std::string kept;  // my labels the gradient equation can produce
  for (char ch : mine) {
    if (ch == '0' || out.find(ch) != std::string::npos || other.find(ch) != std::string::npos) {
      kept.push_back(ch);
    }
  }
  const std::string equation =
      spelled(out) + (binary ? "," + spelled(other) : "") + "->" + spelled(kept);
  std::vector<Tensor> operands{c.grad()};
  if (binary) operands.push_back(c.input(1 - i));
  Tensor grad = einsum(equation, operands);
  const Shape& shape = c.input_shape(i);
  const int ellipsis_rank =
      shape.rank() - static_cast<int>(mine.size()) + (mine.find('0') != std::string::npos ? 1 : 0);
  // The ellipsis block of `grad` may be longer or wider than mine: sum it back.
  const std::size_t at = kept.find('0');
  if (at != std::string::npos) {
    const int before = static_cast<int>(at);
    const int block = grad.rank() - static_cast<int>(kept.size()) + 1;
    Shape block_shape;
    for (int k = 0; k < ellipsis_rank; ++k) {
      block_shape.push_back(shape[static_cast<int>(mine.find('0')) + k]);
    }
    if (block != ellipsis_rank || [&] {
          for (int k = 0; k < block; ++k) {
            if (grad.shape()[before + k] != block_shape[k]) return true;
          }
          return false;
        }()) {
      // Move the block first, sum it to the operand's block (sum_to drops extra leading
      // dimensions and sums broadcast ones), move it back to where it was.
      std::vector<int> perm;
      for (int k = 0; k < block; ++k) perm.push_back(before + k);
      for (int k = 0; k < grad.rank(); ++k) {
        if (k < before || k >= before + block) perm.push_back(k);
      }
      Tensor moved = transpose(grad, perm);
      Shape target = block_shape;
      for (int k = block; k < moved.rank(); ++k) target.push_back(moved.shape()[k]);
      moved = sum_to(moved, target);
      std::vector<int> back;
      for (int k = 0; k < moved.rank(); ++k) {
        back.push_back(k < before                   ? ellipsis_rank + k
                       : k < before + ellipsis_rank ? k - before
                                                    : k);
      }
      grad = transpose(moved, back);
    }
  }
  if (kept.size() == mine.size()) return reshape_to(grad, shape);
  // Labels summed away inside this operand: size 1 there, then broadcast.
  Shape with_ones;
  int g_axis = 0;
  int s_axis = 0;
  for (char ch : mine) {
    if (ch == '0') {
      for (int k = 0; k < ellipsis_rank; ++k) with_ones.push_back(grad.shape()[g_axis++]);
      s_axis += ellipsis_rank;
    } else if (kept.find(ch) != std::string::npos) {
      with_ones.push_back(grad.shape()[g_axis++]);
      ++s_axis;
    } else {
      with_ones.push_back(1);
      ++s_axis;
    }
  }
  return broadcast_to(reshape_to(grad, with_ones), shape);
}

void einsum_grad(const GradContext& c, Grads& g) {
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (c.needs_input_grad(i)) g[static_cast<std::size_t>(i)] = einsum_operand_grad(c, i);
  }
}

}  // namespace

void register_index_gradients(GradientRegistry& r) {
  r.add(OpId::kGatherV2, gather_grad, save(1));
  r.add(OpId::kGatherNd, gather_nd_grad, save(1));
  r.add(OpId::kSelectV2, select_grad, save(0));
  r.add(OpId::kStridedSlice, strided_slice_grad);
  r.add(OpId::kEinsum, einsum_grad, kSaveAll);
}

}  // namespace eagle::autodiff
