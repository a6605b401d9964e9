// tf.nn.compute_average_loss and tf.nn.scale_regularization_loss.
#include "eagle/distribute/compute_average_loss.hpp"

#include "distribute/strategy_runtime.hpp"
#include "eagle/distribute/strategy.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace eagle::nn {

Tensor compute_average_loss(const Tensor& per_example_loss,
                            std::optional<std::int64_t> global_batch_size) {
  if (!per_example_loss.defined()) {
    throw InvalidArgumentError("compute_average_loss: per_example_loss is undefined");
  }
  // losses_util.check_per_example_loss_rank's text.
  if (per_example_loss.shape().rank() == 0) {
    throw InvalidArgumentError(
        "Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1.");
  }
  if (!global_batch_size) {
    const distribute::ReplicaContext* replica = distribute::get_replica_context();
    global_batch_size =
        per_example_loss.shape()[0] * (replica ? replica->num_replicas_in_sync() : 1);
  } else if (*global_batch_size <= 0) {
    throw InvalidArgumentError("global_batch_size must be positive.");
  }
  const Tensor total = reduce_sum(per_example_loss);
  // div_no_nan: an empty per-replica batch (possible with TensorFlow's split) gives 0.
  if (*global_batch_size == 0) return zeros_like(total);
  return total / scalar_like(total, static_cast<double>(*global_batch_size));
}

Tensor scale_regularization_loss(const Tensor& regularization_loss) {
  if (!regularization_loss.defined()) {
    throw InvalidArgumentError("scale_regularization_loss: regularization_loss is undefined");
  }
  if (distribute::has_strategy() && distribute::in_cross_replica_context()) {
    throw RuntimeError(
        "You are calling `scale_regularization_loss` in cross replica context, while it was "
        "expected to be called in replica context.");
  }
  const int replicas = distribute::get_strategy().num_replicas_in_sync();
  const Tensor total = reduce_sum(regularization_loss);
  return total / scalar_like(total, static_cast<double>(replicas));
}

Tensor scale_regularization_loss(const std::vector<Tensor>& regularization_losses) {
  if (regularization_losses.empty()) {
    // reduce_sum of an empty list: 0.
    return scale_regularization_loss(constant(0.0f));
  }
  return scale_regularization_loss(stack(regularization_losses));
}

}  // namespace eagle::nn
