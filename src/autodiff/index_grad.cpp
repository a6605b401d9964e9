// Gradients of the indexing ops: GatherV2, GatherNd, SelectV2, StridedSlice, Einsum,
// UnsortedSegmentSum. A gather's gradient adds each upstream entry back at
// the index it was taken from: UnsortedSegmentSum, as in TensorFlow (Note [Gather gradients]).
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

// Note [Gather gradients]
// ~~~~~~~~~~~~~~~~~~~~~~~
// The gradient of a gather is a scatter-add: UnsortedSegmentSum of the upstream rows by the
// indices they were read from, which TensorFlow's IndexedSlices densify to. Memory is the
// gradient itself (a one-hot contraction, which eagle used before the op existed, needed
// indices x extent). With batch dimensions each batch entry b scatters into its own block of
// segments, b * extent + index; an index the forward op did not read (out of range: zeros on a
// GPU) gets segment -1, which the sum drops, so it cannot land in another batch entry's block.
// `index` [batch, count] (int32/int64) into an extent of `n`: the segment ids [batch * count].
Tensor batched_segment_ids(const Tensor& index, std::int64_t batch, std::int64_t n) {
  Tensor ids = cast(index, DType::kInt64);
  if (batch <= 1 || n == 0) return reshape(ids, {-1});
  const Tensor offsets =
      reshape(range(0.0, static_cast<double>(batch * n), static_cast<double>(n), DType::kInt64),
              {batch, 1});
  const Tensor read = logical_and(greater_equal(ids, scalar_like(ids, 0)),
                                  less(ids, scalar_like(ids, static_cast<double>(n))));
  return reshape(where(read, add(ids, offsets), scalar_like(ids, -1)), {-1});
}

// params [batch, outer, N, inner]; indices [batch, count]; out [batch, outer, count, inner].
void gather_grad(const GradContext& c, Grads& g) {
  const auto& a = c.attrs<opdefs::GatherAttrs>();
  const Shape& params = c.input_shape(0);
  const Shape& indices = c.input_shape(1);
  const std::int64_t batch = product(params, 0, a.batch_dims);
  const std::int64_t outer = product(params, a.batch_dims, a.axis);
  const std::int64_t n = params[a.axis];
  const std::int64_t inner = product(params, a.axis + 1, params.rank());
  const std::int64_t count = product(indices, a.batch_dims, indices.rank());
  // Rows [batch * count, outer * inner] summed into [batch * N, outer * inner].
  Tensor rows = reshape(c.grad(), {batch, outer, count, inner});
  if (outer > 1) rows = transpose(rows, {0, 2, 1, 3});
  rows = reshape(rows, {batch * count, outer * inner});
  const Tensor ids = batched_segment_ids(reshape(c.input(1), {batch, count}), batch, n);
  Tensor sums = reshape(unsorted_segment_sum(rows, ids, batch * n), {batch, n, outer, inner});
  if (outer > 1) sums = transpose(sums, {0, 2, 1, 3});
  g[0] = reshape_to(sums, params);
}

// params [batch, P_0..P_{d-1}, S...], indices [batch, ..., d]: the d coordinates flattened to
// one index into the P block (-1 when a coordinate is out of range).
void gather_nd_grad(const GradContext& c, Grads& g) {
  const int batch_dims = c.attrs<opdefs::GatherNdAttrs>().batch_dims;
  const Shape& params = c.input_shape(0);
  const Shape& indices = c.input_shape(1);
  const int depth = static_cast<int>(indices[indices.rank() - 1]);
  const std::int64_t batch = product(params, 0, batch_dims);
  const std::int64_t n = product(params, batch_dims, batch_dims + depth);
  const std::int64_t slice = product(params, batch_dims + depth, params.rank());
  const std::int64_t count = product(indices, batch_dims, indices.rank() - 1);
  std::vector<std::int64_t> strides(static_cast<std::size_t>(depth), 1);
  std::vector<std::int64_t> dims(static_cast<std::size_t>(depth));
  for (int k = depth - 1; k >= 0; --k) {
    dims[static_cast<std::size_t>(k)] = params[batch_dims + k];
    if (k < depth - 1) {
      strides[static_cast<std::size_t>(k)] =
          strides[static_cast<std::size_t>(k) + 1] * params[batch_dims + k + 1];
    }
  }
  const Tensor coords = cast(c.input(1), DType::kInt64);
  const Tensor in_range = reduce_all(
      logical_and(greater_equal(coords, scalar_like(coords, 0)), less(coords, constant(dims))), -1);
  const Tensor flat = reduce_sum(multiply(coords, constant(strides)), -1);
  const Tensor linear = where(in_range, flat, scalar_like(flat, -1));
  const Tensor rows = reshape(c.grad(), {batch * count, slice});
  const Tensor ids = batched_segment_ids(reshape(linear, {batch, count}), batch, n);
  g[0] = reshape_to(unsorted_segment_sum(rows, ids, batch * n), params);
}

// TensorFlow's _GatherDropNegatives: the upstream rows gathered back by the ids, zeros for the
// rows a negative id dropped.
void unsorted_segment_sum_grad(const GradContext& c, Grads& g) {
  const Tensor& ids = c.input(1);
  const Tensor grad = c.grad();
  const Tensor gathered = gather(grad, maximum(ids, scalar_like(ids, 0)));
  Shape kept = ids.shape();
  while (kept.rank() < gathered.rank()) kept.push_back(1);
  const Tensor read = reshape_to(greater_equal(ids, scalar_like(ids, 0)), kept);
  g[0] = where(read, gathered, scalar_like(gathered, 0));
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
  const auto& a = c.attrs<opdefs::StridedSliceAttrs>();
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
  const auto& a = c.attrs<opdefs::EinsumAttrs>();
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
  r.add(opdefs::OpId::kGatherV2, gather_grad, save(1));
  r.add(opdefs::OpId::kGatherNd, gather_nd_grad, save(1));
  r.add(opdefs::OpId::kSelectV2, select_grad, save(0));
  r.add(opdefs::OpId::kStridedSlice, strided_slice_grad);
  r.add(opdefs::OpId::kEinsum, einsum_grad, kSaveAll);
  r.add(opdefs::OpId::kUnsortedSegmentSum, unsorted_segment_sum_grad, save(1));
}

}  // namespace eagle::autodiff
