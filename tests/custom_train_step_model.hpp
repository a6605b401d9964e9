// A Sequential model that overrides train_step (Keras's "customizing what happens in fit"): an
// L2 penalty on its kernels added to the loss, and the gradients, summed over the replicas first,
// clipped by value before the optimizer applies them without summing again. Written once, it
// trains to the same weights under the default strategy, a MirroredStrategy and a
// MultiWorkerMirroredStrategy (keras_distributed_test, multi_worker_mirrored_strategy_test).
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "eagle/eagle.hpp"

namespace eagle_test {

class ClippedL2Sequential : public eagle::keras::Sequential {
 public:
  ClippedL2Sequential(const std::vector<std::shared_ptr<eagle::keras::Layer>>& layers, float l2,
                      float clip)
      : Sequential(layers), l2_(l2), clip_(clip) {}

  StepOutput train_step(const eagle::Tensor& x, const eagle::Tensor& y) override {
    const std::vector<eagle::Variable> variables = trainable_variables();
    // The default strategy's context on one device, the replica's under a strategy.
    const eagle::distribute::ReplicaContext& replica = *eagle::distribute::get_replica_context();
    StepOutput out;
    std::vector<std::optional<eagle::Tensor>> grads;
    {
      eagle::GradientTape tape;
      out.y_pred = call(x, true);
      eagle::Tensor penalty = eagle::constant(0.0f);
      for (const eagle::Variable& v : variables) {
        if (v.shape().rank() == 2) penalty = penalty + eagle::reduce_sum(eagle::square(v));
      }
      // The penalty counts once per global batch: each replica adds its share, as compute_loss
      // scales the data term.
      out.loss = compute_loss(y, out.y_pred) +
                 penalty * (l2_ / static_cast<float>(replica.num_replicas_in_sync()));
      grads = tape.gradient(out.loss,
                            std::vector<eagle::GradientSource>(variables.begin(), variables.end()));
    }
    std::vector<eagle::Tensor> summed;
    for (const auto& g : grads) summed.push_back(*g);
    summed = replica.all_reduce(eagle::distribute::ReduceOp::kSum, summed);
    std::vector<eagle::optimizers::GradientAndVariable> pairs;
    for (std::size_t i = 0; i < variables.size(); ++i) {
      const eagle::Tensor& g = summed[i];
      pairs.emplace_back(
          eagle::clip_by_value(g, eagle::scalar_like(g, -clip_), eagle::scalar_like(g, clip_)),
          variables[i]);
    }
    optimizer()->apply_gradients(pairs, /*skip_gradients_aggregation=*/true);
    return out;
  }

 private:
  float l2_;
  float clip_;
};

}  // namespace eagle_test
