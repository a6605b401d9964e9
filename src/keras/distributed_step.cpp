// Keras's fit, evaluate and predict of a model built under a MirroredStrategy's scope.
#include "keras/distributed_step.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "distribute/collective_all_reduce.hpp"
#include "distribute/strategy_runtime.hpp"
#include "eagle/distribute/compute_average_loss.hpp"
#include "eagle/errors.hpp"
#include "eagle/gradient_tape.hpp"
#include "eagle/ops.hpp"
#include "eagle/scope.hpp"
#include "python_repr.hpp"
#include "variables/variable_state.hpp"

namespace eagle::keras {

// Note [Keras fit under a MirroredStrategy]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A model remembers the strategy whose scope() was open at its construction or compile() (Keras's
// model.distribute_strategy), or else the strategy that mirrors its weights. Its fit, evaluate,
// predict, train_on_batch and test_on_batch then take the same batches as on one device and
// split each global batch by the strategy's rule (split_batch: ceil(B / N) per replica, the last
// replicas fewer or none) and run each replica's step with strategy.run, one thread per replica:
//   - training: the replica's forward pass, its per-example losses summed and divided by the
//     GLOBAL batch's element count (compute_average_loss), the gradients of that, and
//     apply_gradients, which all-reduces them (sum) and applies one update to every component of
//     the mirrored weights and slots. The summed replica losses are the global batch's mean loss
//     and the summed gradients its gradient: the weights and the printed loss are a single-device
//     run's, up to float32 summation order;
//   - the metrics and the loss tracker are updated on the calling thread from every replica's
//     slice and predictions, so they count every example once (the progress bar prints what one
//     device would print);
//   - BatchNormalization: each replica normalizes with its own slice's statistics, and assigns
//     its moving statistics, whose MEAN aggregation (TensorFlow's) writes the mean over the
//     replicas to every component (a collective in the forward pass; a replica with an empty
//     slice assigns them unchanged). With equal slices the moving mean is a single-device run's;
//     the moving variance and the normalization are per-replica, as in TensorFlow (no
//     SyncBatchNormalization);
//   - Dropout: each replica draws its own masks (a seeded layer: seeds per replica);
//   - predict: the replicas' outputs concatenated in replica order on replica 0's device.
// A model not yet built is built under the strategy's scope on the calling thread (one forward
// pass of one example), never inside a replica function, whose threads would create unmirrored
// variables. Without a strategy nothing here runs: the single-device path is unchanged.

namespace {

using distribute::MirroredStrategy;
using distribute::PerReplica;

std::uint64_t strategy_id_of(const Variable& v) {
  return detail::VariableAccess::handle(v)->distributed->owner();
}

std::string describe(const MirroredStrategy& strategy) {
  return "MirroredStrategy with devices " + eagle::detail::tuple_repr(strategy.devices());
}

// The replica's share of the global batch's mean loss.
Tensor replica_loss(const losses::Loss& loss, const Tensor& y, const Tensor& y_pred,
                    std::int64_t global_batch, int num_replicas) {
  const Tensor per_sample = loss.call(y, y_pred);
  if (per_sample.rank() == 0) {
    // A loss that reduced the batch itself: Keras 2's scale_loss_for_distribution.
    return per_sample / scalar_like(per_sample, static_cast<double>(num_replicas));
  }
  std::int64_t per_example = 1;
  for (int i = 1; i < per_sample.rank(); ++i) per_example *= per_sample.shape()[i];
  return nn::compute_average_loss(per_sample,
                                  std::max<std::int64_t>(global_batch * per_example, 1));
}

struct ReplicaOutput {
  Tensor y_pred;
  Tensor loss;
};

// The replicas' predictions in replica order, and their losses summed (each is already over the
// global batch, so the sum is the global batch's loss). Under a MultiWorkerMirroredStrategy, every
// worker's replicas (gather_replicas), so each worker's metrics see the whole batch.
struct ReplicaTotals {
  std::vector<Tensor> y_preds;
  double loss = 0;
};

ReplicaTotals totals_of(const MirroredStrategy& strategy,
                        const PerReplica<ReplicaOutput>& outputs) {
  std::vector<Tensor> y_preds;
  std::vector<Tensor> losses;
  for (const ReplicaOutput& out : outputs) {
    y_preds.push_back(out.y_pred);
    losses.push_back(out.loss);
  }
  ReplicaTotals totals;
  totals.y_preds = distribute::detail::gather_replicas(strategy, y_preds);
  for (const Tensor& loss : distribute::detail::gather_replicas(strategy, losses)) {
    totals.loss += static_cast<double>(loss.item<float>());
  }
  return totals;
}

}  // namespace

void check_weights_in_scope(const Model& model, const MirroredStrategy& strategy) {
  for (const Variable& v : model.weights()) {
    if (strategy.extended().variable_created_in_scope(v)) continue;
    throw InvalidArgumentError(fmt::format(
        "Variable ({}) was not created in the distribution strategy scope of ({}). It is most "
        "likely because some layers, model, or optimizer was being created outside the "
        "distribution strategy scope. Try to make sure your code looks similar to the "
        "following.\n{{\n  auto scope = strategy.scope();\n  model = create_model();\n  "
        "model.compile(...);\n}}",
        v.name(), describe(strategy)));
  }
}

const distribute::MirroredStrategy* Model::distribute_strategy() const {
  std::uint64_t id = strategy_id_;
  if (id == 0) {
    for (const Variable& v : weights()) {
      if (v.is_mirrored()) {
        id = strategy_id_of(v);
        break;
      }
    }
    if (id == 0) return nullptr;
  }
  const MirroredStrategy* strategy = distribute::detail::find_strategy(id);
  if (strategy == nullptr) {
    throw FailedPreconditionError(fmt::format(
        "Model '{}' was built under a MirroredStrategy that has been destroyed: a mirrored "
        "model's fit, evaluate and predict run on its strategy's replicas, so the strategy must "
        "outlive them",
        name_));
  }
  return strategy;
}

const distribute::MirroredStrategy* Model::prepare_strategy(const Tensor& x) {
  const MirroredStrategy* strategy = distribute_strategy();
  if (strategy == nullptr) return nullptr;
  if (distribute::detail::current_replica_thread() != nullptr) {
    throw FailedPreconditionError(fmt::format(
        "Model '{}' is mirrored: call its fit, evaluate and predict outside strategy.run (they "
        "run the replicas themselves)",
        name_));
  }
  const auto all = layers();
  if (!built() || std::any_of(all.begin(), all.end(),
                              [](const auto& l) { return !l->built() || !l->output_shape(); })) {
    auto scope = strategy->scope();
    call(x[Slice{0, std::min<std::int64_t>(x.shape()[0], 1)}], false);
  }
  check_weights_in_scope(*this, *strategy);
  return strategy;
}

void Model::update_metrics(const std::vector<Tensor>& ys, const std::vector<Tensor>& y_preds,
                           double loss, std::int64_t batch) {
  loss_tracker_.update_state(loss, static_cast<double>(batch));
  for (const auto& m : metrics_) {
    for (std::size_t r = 0; r < ys.size(); ++r) {
      if (ys[r].shape()[0] > 0) m->update_state(ys[r], y_preds[r]);
    }
  }
}

void Model::distributed_train_step(const Tensor& x, const Tensor& y,
                                   const MirroredStrategy& strategy) {
  const std::int64_t global_batch = x.shape()[0];
  const int replicas = strategy.num_replicas_in_sync();
  const PerReplica<Tensor> xs = strategy.split_batch(x);
  const PerReplica<Tensor> ys = strategy.split_batch(y);
  const std::vector<Variable> variables = trainable_variables();
  const PerReplica<ReplicaOutput> outputs = strategy.run(
      [&](const Tensor& x_replica, const Tensor& y_replica) {
        ReplicaOutput out;
        std::vector<std::optional<Tensor>> grads;
        {
          GradientTape tape;
          out.y_pred = call(x_replica, true);
          out.loss = replica_loss(*loss_, y_replica, out.y_pred, global_batch, replicas);
          tape.stop();
          // Built here: a mirrored variable's source is this replica's component.
          std::vector<GradientSource> sources(variables.begin(), variables.end());
          grads = tape.gradient(out.loss, sources);
        }
        std::vector<optimizers::GradientAndVariable> pairs;
        for (std::size_t i = 0; i < variables.size(); ++i)
          pairs.emplace_back(grads[i], variables[i]);
        if (!pairs.empty()) optimizer_->apply_gradients(pairs);
        return out;
      },
      xs, ys);
  const ReplicaTotals totals = totals_of(strategy, outputs);
  build_metrics(y, totals.y_preds.front());
  update_metrics(distribute::detail::gather_replicas(strategy, ys.values()), totals.y_preds,
                 totals.loss, global_batch);
}

void Model::distributed_test_step(const Tensor& x, const Tensor& y,
                                  const MirroredStrategy& strategy) {
  const std::int64_t global_batch = x.shape()[0];
  const int replicas = strategy.num_replicas_in_sync();
  const PerReplica<Tensor> xs = strategy.split_batch(x);
  const PerReplica<Tensor> ys = strategy.split_batch(y);
  const PerReplica<ReplicaOutput> outputs = strategy.run(
      [&](const Tensor& x_replica, const Tensor& y_replica) {
        ReplicaOutput out;
        out.y_pred = call(x_replica, false);
        out.loss = replica_loss(*loss_, y_replica, out.y_pred, global_batch, replicas);
        return out;
      },
      xs, ys);
  const ReplicaTotals totals = totals_of(strategy, outputs);
  build_metrics(y, totals.y_preds.front());
  update_metrics(distribute::detail::gather_replicas(strategy, ys.values()), totals.y_preds,
                 totals.loss, global_batch);
}

Tensor Model::distributed_predict_step(const Tensor& x, const MirroredStrategy& strategy) {
  const PerReplica<Tensor> outputs = strategy.run(
      [&](const Tensor& x_replica) { return call(x_replica, false); }, strategy.split_batch(x));
  auto scope = device(strategy.devices().front());
  std::vector<Tensor> parts;
  for (const Tensor& out : distribute::detail::gather_replicas(strategy, outputs.values())) {
    parts.push_back(identity(out));
  }
  return parts.size() == 1 ? parts.front() : concat(parts, 0);
}

}  // namespace eagle::keras
