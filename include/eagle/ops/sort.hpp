// Sorting and selection ops.
#pragma once

#include <string>

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

// tf.sort / tf.argsort along `axis`, direction "ASCENDING" or "DESCENDING" (exact case), built
// as TensorFlow builds them: top_k of the whole axis (moved last by a transpose and back), of -x
// for an ascending sort (-x - 1 for integers, so the minimum does not overflow). The sort is
// stable (equal values keep their order) and, as in top_k, NaN ranks above every number: first
// in both directions. argsort gives int32 indices.
Tensor sort(const Tensor& values, int axis = -1, const std::string& direction = "ASCENDING");
Tensor argsort(const Tensor& values, int axis = -1, const std::string& direction = "ASCENDING");

}  // namespace eagle
