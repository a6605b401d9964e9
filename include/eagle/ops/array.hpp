// Shape ops: reshape, transpose, expand_dims, squeeze, concat, slice. Indexing (t[i],
// t[Slice{a, b}]) is on Tensor itself (eagle/tensor.hpp) and built on these.
#pragma once

#include <cstdint>
#include <vector>

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

}  // namespace eagle
