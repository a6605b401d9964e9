// Shape ops: reshape, transpose, expand_dims, squeeze, concat, slice, stack, unstack, split,
// tile, pad, reverse, broadcast_to, shape, tensordot; the indexing ops gather, gather_nd, where,
// boolean_mask, strided_slice. Python-style indexing (t[i], t[Slice{a, b}], t.index({...})) is
// on Tensor itself (eagle/tensor.hpp) and runs strided_slice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"

namespace eagle {

Tensor reshape(const Tensor& x, const std::vector<std::int64_t>& shape);  // one -1 allowed
Tensor transpose(const Tensor& x, const std::vector<int>& perm = {});     // {} reverses axes
Tensor expand_dims(const Tensor& x, int axis);
Tensor squeeze(const Tensor& x, const std::vector<int>& axes = {});  // {}: every size-1 axis
Tensor concat(const std::vector<Tensor>& values, int axis);
// size[i] == -1 takes everything from begin[i] to the end.
Tensor slice(const Tensor& x, const std::vector<std::int64_t>& begin,
             const std::vector<std::int64_t>& size);

// tf.stack / tf.unstack (ops Pack, Unpack): join tensors of one shape along a new axis, or cut one
// into the slices along an axis (an axis of size 0 gives no tensors).
Tensor stack(const std::vector<Tensor>& values, int axis = 0);
std::vector<Tensor> unstack(const Tensor& x, int axis = 0);
// tf.split: num_split equal parts along `axis` (op Split), or parts of the given sizes, one of
// which may be -1 for the rest (op SplitV). A one-element size list must be spelled as a vector
// (split(x, std::vector<std::int64_t>{3})): split(x, {3}) is three equal parts.
std::vector<Tensor> split(const Tensor& x, int num_split, int axis = 0);
std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& size_splits,
                          int axis = 0);
// tf.tile: x repeated multiples[i] times along each dimension i.
Tensor tile(const Tensor& x, const std::vector<std::int64_t>& multiples);
// tf.pad: paddings[i] = {before, after} for dimension i. mode (any case): "CONSTANT" fills with
// constant_values (op Pad when it is 0, so -0.0 pads with +0.0, else PadV2; the value is converted
// to x's dtype, so int64 fills past 2^53 round as in fill()), "REFLECT" mirrors without the edge
// and "SYMMETRIC" with it (op MirrorPad).
Tensor pad(const Tensor& x, const std::vector<std::vector<std::int64_t>>& paddings,
           const std::string& mode = "CONSTANT", double constant_values = 0);
// tf.reverse (op ReverseV2): x with the listed axes reversed (negative axes count from the end).
Tensor reverse(const Tensor& x, const std::vector<int>& axis);
// x broadcast to `shape` (NumPy rules; x's shape must broadcast to exactly `shape`).
Tensor broadcast_to(const Tensor& x, const Shape& shape);
// tf.shape: the shape as an int32 vector.
Tensor shape(const Tensor& x);
// tf.tensordot: sums a's last `axes` dimensions against b's first `axes`, or the listed axes
// pairwise, as a reshape, transpose and one matmul.
Tensor tensordot(const Tensor& a, const Tensor& b, int axes);
Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<int>& a_axes,
                 const std::vector<int>& b_axes);

// ---- Indexing ops (TensorFlow's semantics and messages) -----------------------------------------

// tf.gather (GatherV2): slices of params along `axis` at `indices` (int32 or int64). The first
// batch_dims dimensions of params and indices are batch dimensions (equal sizes). An index out of
// range is InvalidArgumentError "indices[1] = 5 is not in [0, 2)" (on a CUDA GPU, as in
// TensorFlow, it gives zeros instead).
// axis defaults to batch_dims; as in tf.gather, an axis of exactly 0 ignores batch_dims.
Tensor gather(const Tensor& params, const Tensor& indices, std::optional<int> axis = std::nullopt,
              int batch_dims = 0);
// tf.gather_nd (GatherNd): indices [..., depth] pick elements (depth = params rank) or slices of
// params; the first batch_dims dimensions of both are batch dimensions.
Tensor gather_nd(const Tensor& params, const Tensor& indices, int batch_dims = 0);
// tf.where(condition) (Where): the coordinates of the true (nonzero) elements, int64 [n, rank],
// in row-major order.
Tensor where(const Tensor& condition);
// tf.where(condition, x, y) (SelectV2): x where condition is true, else y; the three broadcast.
Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y);
// tf.boolean_mask: the entries of tensor (from `axis` on) where the bool mask is true, as
// TensorFlow composes it: Reshape, Reshape, Where, Squeeze, GatherV2.
Tensor boolean_mask(const Tensor& tensor, const Tensor& mask, int axis = 0);
// tf.strided_slice (StridedSlice), with TensorFlow's masks: bit i of begin_mask / end_mask ignores
// begin[i] / end[i] (the full range), ellipsis_mask marks `...`, new_axis_mask a new dimension of
// size 1, shrink_axis_mask an integer index (the dimension removed). Tensor::index builds these.
Tensor strided_slice(const Tensor& x, const std::vector<std::int64_t>& begin,
                     const std::vector<std::int64_t>& end, const std::vector<std::int64_t>& strides,
                     int begin_mask = 0, int end_mask = 0, int ellipsis_mask = 0,
                     int new_axis_mask = 0, int shrink_axis_mask = 0);

}  // namespace eagle
