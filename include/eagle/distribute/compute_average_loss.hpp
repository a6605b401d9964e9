// tf.nn.compute_average_loss: the loss a replica should differentiate under a strategy.
#pragma once

#include <cstdint>
#include <optional>

#include "eagle/tensor.hpp"

namespace eagle::nn {

// sum(per_example_loss) / global_batch_size (0 when the batch is 0, div_no_nan), in the loss's
// dtype. Scaling by the global batch makes the summed gradients of all replicas equal one
// device's gradient of the mean loss over the global batch (TensorFlow's rule; a per-replica
// reduce_mean would scale the update by the replica count). Without global_batch_size, inside a
// replica function it is the per-replica batch (first dimension) times the replicas in sync, and
// outside one the loss's first dimension. per_example_loss of rank 0: InvalidArgumentError
// (TensorFlow's text); global_batch_size <= 0: InvalidArgumentError "global_batch_size must be
// positive."
Tensor compute_average_loss(const Tensor& per_example_loss,
                            std::optional<std::int64_t> global_batch_size = std::nullopt);

}  // namespace eagle::nn
