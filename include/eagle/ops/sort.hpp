// Sorting and selection ops.
#pragma once

#include "eagle/tensor.hpp"

namespace eagle {

// tf.math.top_k: the k largest entries of each row (the last axis) and their indices (int32).
struct TopK {
  Tensor values;
  Tensor indices;
};
// sorted: values in descending order (else the k largest in index order). Equal values keep
// their index order; NaN counts as larger than every number, as in argmax.
TopK top_k(const Tensor& input, int k = 1, bool sorted = true);

}  // namespace eagle
