// tf.nn's losses and one_hot (namespace eagle::nn), TensorFlow's ops: the two softmax cross
// entropies (numerically stable: logsumexp), L2Loss and OneHot.
#pragma once

#include <cstdint>

#include "eagle/dtype.hpp"
#include "eagle/tensor.hpp"

namespace eagle::nn {

// -sum(labels * log_softmax(logits), -1) (op SoftmaxCrossEntropyWithLogits, whose second
// output, softmax(logits) - labels, its gradient uses). labels broadcast to logits' shape;
// labels of another floating dtype are cast to logits'. Inputs of rank other than 2 are
// reshaped to [-1, classes] and back.
Tensor softmax_cross_entropy_with_logits(const Tensor& labels, const Tensor& logits);
// -log_softmax(logits)[label] per row (op SparseSoftmaxCrossEntropyWithLogits); labels int32
// or int64 of logits' shape without the last axis. A label outside [0, classes) is
// InvalidArgumentError on the CPU (TensorFlow's text) and NaN on a CUDA GPU (Note [Sparse label
// out of range]).
Tensor sparse_softmax_cross_entropy_with_logits(const Tensor& labels, const Tensor& logits);
// sum(t * t) / 2 (op L2Loss), a scalar.
Tensor l2_loss(const Tensor& t);
// tf.one_hot (op OneHot): int32/int64 indices give a new axis of `depth` (at `axis`, -1 the
// last) holding on_value at the index and off_value elsewhere (everywhere for an index outside
// [0, depth)).
Tensor one_hot(const Tensor& indices, std::int64_t depth, double on_value = 1, double off_value = 0,
               int axis = -1, DType dtype = DType::kFloat32);

}  // namespace eagle::nn
