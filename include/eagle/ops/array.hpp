// Shape ops: reshape, transpose, expand_dims, squeeze, concat, slice, stack, unstack,
// broadcast_to, shape, tensordot. Indexing (t[i],
// t[Slice{a, b}]) is on Tensor itself (eagle/tensor.hpp) and built on these.
#pragma once

#include <cstdint>
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

// tf.stack / tf.unstack: join tensors of one shape along a new axis, or split one along an axis.
// Built from expand_dims + concat and slice + squeeze (placement logs show those ops).
Tensor stack(const std::vector<Tensor>& values, int axis = 0);
std::vector<Tensor> unstack(const Tensor& x, int axis = 0);
// x broadcast to `shape` (NumPy rules; x's shape must broadcast to exactly `shape`).
Tensor broadcast_to(const Tensor& x, const Shape& shape);
// tf.shape: the shape as an int32 vector.
Tensor shape(const Tensor& x);
// tf.tensordot: sums a's last `axes` dimensions against b's first `axes`, or the listed axes
// pairwise, as a reshape, transpose and one matmul.
Tensor tensordot(const Tensor& a, const Tensor& b, int axes);
Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<int>& a_axes,
                 const std::vector<int>& b_axes);

}  // namespace eagle
