// tf.nn.compute_average_loss and tf.nn.scale_regularization_loss: the loss a replica should
// differentiate under a strategy.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

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

// sum(regularization_losses) / num_replicas_in_sync: a replica's share of the model's
// regularization losses (model.losses()), which the replicas' summed gradients count once. Called
// in the cross-replica context of a strategy: RuntimeError with TensorFlow's text.
Tensor scale_regularization_loss(const std::vector<Tensor>& regularization_losses);
Tensor scale_regularization_loss(const Tensor& regularization_loss);

}  // namespace eagle::nn
