// eagle::keras::Trainer: what Keras 3's trainer owns (compile, fit, evaluate, predict, the epoch
// and batch loops, callbacks, metrics) and its overridable steps; Model is a Trainer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "eagle/keras/callbacks.hpp"
#include "eagle/keras/layer.hpp"
#include "eagle/keras/losses.hpp"
#include "eagle/keras/metrics.hpp"
#include "eagle/optimizers.hpp"
#include "eagle/tensor.hpp"

namespace eagle::distribute {
class Strategy;
}

namespace eagle::keras {

class Model;

// compile()'s optimizer: a Keras name ("adam", "sgd", "rmsprop", "adagrad", any case; Keras's
// defaults) or an object.
class OptimizerArg {
 public:
  OptimizerArg(const char* name) : name_(name) {}             // NOLINT: implicit by design
  OptimizerArg(std::string name) : name_(std::move(name)) {}  // NOLINT: implicit by design
  template <class O, class = std::enable_if_t<std::is_base_of_v<optimizers::Optimizer, O>>>
  OptimizerArg(std::shared_ptr<O> optimizer) : optimizer_(std::move(optimizer)) {}  // NOLINT
  std::shared_ptr<optimizers::Optimizer> get() const;

 private:
  std::string name_;
  std::shared_ptr<optimizers::Optimizer> optimizer_;
};

// compile()'s loss: a Keras name or an object.
class LossArg {
 public:
  LossArg(const char* name) : name_(name) {}             // NOLINT: implicit by design
  LossArg(std::string name) : name_(std::move(name)) {}  // NOLINT: implicit by design
  template <class L, class = std::enable_if_t<std::is_base_of_v<losses::Loss, L>>>
  LossArg(L loss) : loss_(std::make_shared<L>(std::move(loss))) {}         // NOLINT: implicit
  LossArg(std::shared_ptr<losses::Loss> loss) : loss_(std::move(loss)) {}  // NOLINT: implicit
  std::shared_ptr<losses::Loss> get() const;
  const std::string& name() const { return name_; }  // "" when an object was given

 private:
  std::string name_;
  std::shared_ptr<losses::Loss> loss_;
};

// compile()'s metric: a Keras name ("accuracy", "mse", ...) or an object.
class MetricArg {
 public:
  MetricArg(const char* name) : name_(name) {}             // NOLINT: implicit by design
  MetricArg(std::string name) : name_(std::move(name)) {}  // NOLINT: implicit by design
  MetricArg(std::shared_ptr<metrics::Metric> metric) : metric_(std::move(metric)) {}  // NOLINT
  const std::string& name() const { return name_; }
  const std::shared_ptr<metrics::Metric>& metric() const { return metric_; }

 private:
  std::string name_;
  std::shared_ptr<metrics::Metric> metric_;
};

struct FitOptions {
  std::int64_t batch_size = 32;
  int epochs = 1;
  int verbose = 1;  // 0 silent, 1 progress bar, 2 one line per epoch
  // The last fraction of x and y (before any shuffling) held out for validation, as Keras.
  double validation_split = 0;
  std::optional<std::pair<Tensor, Tensor>> validation_data;
  bool shuffle = true;  // the training samples, each epoch
  std::vector<std::shared_ptr<callbacks::Callback>> callbacks;
  int initial_epoch = 0;
  // eagle: a seed for the shuffling, so a run repeats (Keras draws from NumPy's global state).
  // Without one, the shuffling draws by Note [Global and op seeds]: repeatable after
  // eagle::keras::utils::set_random_seed.
  std::optional<std::uint64_t> seed;
};

struct EvaluateOptions {
  std::int64_t batch_size = 32;
  int verbose = 1;
  std::vector<std::shared_ptr<callbacks::Callback>> callbacks;
};

struct PredictOptions {
  std::int64_t batch_size = 32;
  int verbose = 1;
  std::vector<std::shared_ptr<callbacks::Callback>> callbacks;
};

// Keras 3's Trainer (keras/src/trainers/trainer.py): compile, fit, evaluate, predict,
// train_on_batch and test_on_batch, and the steps they run. Every batch goes one way (Note [One
// training step] in src/keras/trainer.cpp): split over the model's strategy's replicas, each
// replica running train_step (test_step, predict_step) through strategy.run (the default strategy
// on one device: the calling thread, the whole batch), the metrics updated from every replica's
// outputs. Override train_step to customize what fit does; it runs unchanged under any strategy.
// Only Model derives from it.
class Trainer {
 public:
  virtual ~Trainer() = default;
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  void compile(OptimizerArg optimizer, LossArg loss, std::vector<MetricArg> metrics = {});
  bool compiled() const { return loss_ != nullptr; }
  const std::shared_ptr<optimizers::Optimizer>& optimizer() const { return optimizer_; }
  const std::shared_ptr<losses::Loss>& loss() const { return loss_; }
  // Keras's model.get_compile_config(), what a .keras file keeps of compile(): {"optimizer":
  // optimizers::serialize(optimizer), "loss": the name given or the loss serialized,
  // "loss_weights": null, "metrics": the names given or the metrics serialized (null for none),
  // "weighted_metrics": null, "run_eagerly": false, "steps_per_execution": 1, "jit_compile":
  // false}; std::nullopt before compile(). An object with no Keras class (a loss, metric or
  // learning-rate function of yours) is UnimplementedError.
  std::optional<eagle::io::Json> get_compile_config() const;
  // Keras's model.compile_from_config: compile() with what such a config describes, then, for a
  // built model, optimizer.build(trainable_variables()), as Keras. loss_weights and
  // weighted_metrics (which eagle's compile lacks) are UnimplementedError; run_eagerly,
  // steps_per_execution and jit_compile do not change what eagle computes and are ignored.
  void compile_from_config(const eagle::io::Json& config);

  // Keras 2's fit: prints `Epoch 1/5` (when epochs > 1) and a bar per epoch, returns the
  // history. Before compile(): RuntimeError, Keras's text.
  callbacks::History fit(const Tensor& x, const Tensor& y, FitOptions options = {});
  // The loss and the compiled metrics over (x, y), in that order; one bar.
  std::vector<double> evaluate(const Tensor& x, const Tensor& y, EvaluateOptions options = {});
  // The outputs for x, computed in batches (training=false); one bar without metrics.
  Tensor predict(const Tensor& x, PredictOptions options = {});
  // One training step on this batch; the batch's loss and metrics (metrics reset first).
  std::vector<double> train_on_batch(const Tensor& x, const Tensor& y);
  // The loss and metrics of one batch without training.
  std::vector<double> test_on_batch(const Tensor& x, const Tensor& y);
  // Names of the values evaluate() returns: "loss", then the metrics.
  std::vector<std::string> metrics_names() const;

  // What one replica's step gives back: the loss it computed (its share of the global batch's
  // loss, what its gradients are taken of) and its predictions for its slice of the batch.
  struct StepOutput {
    Tensor loss;
    Tensor y_pred;
  };
  // Keras 3's steps, public and virtual ("customizing what happens in fit"): one replica's slice
  // of a batch, on the replica's thread and device. The defaults: train_step records the forward
  // pass and compute_loss on a GradientTape and applies the gradients of the trainable variables
  // with the optimizer (which all-reduces them over the replicas); test_step the same without
  // training; predict_step call(x, false). An override may compute another loss, clip, or add
  // terms, and calls the optimizer itself.
  virtual StepOutput train_step(const Tensor& x, const Tensor& y);
  virtual StepOutput test_step(const Tensor& x, const Tensor& y);
  virtual Tensor predict_step(const Tensor& x);
  // The compiled loss of this replica's slice: on one device the loss with its reduction; under a
  // strategy the per-example losses summed and divided by the global batch's element count
  // (nn::compute_average_loss), so the replicas' losses and gradients add up to the global
  // batch's.
  Tensor compute_loss(const Tensor& y, const Tensor& y_pred) const;

  // Set by a callback to end fit() after the current epoch (Keras's model.stop_training).
  bool stop_training = false;

  // The strategy whose scope() was open when the model was constructed or compiled, or that
  // mirrors its weights (Keras's model.distribute_strategy); nullptr for a single-device model.
  // Its fit, evaluate, predict, train_on_batch and test_on_batch then split each global batch
  // over the strategy's replicas; the strategy must outlive those calls
  // (FailedPreconditionError otherwise).
  const distribute::Strategy* distribute_strategy() const;

 private:
  friend class Model;
  // Remembers the strategy whose scope is open, as Keras's Model.__init__.
  Trainer();

  void require_compiled() const;
  void build_metrics(const Tensor& y, const Tensor& y_pred);
  void reset_metrics();
  Logs metric_logs() const;
  // The strategy a call runs under (the default strategy for a single-device model): its weights
  // checked, the model built under its scope from `x` if it is not built yet.
  const distribute::Strategy& prepare_strategy(const Tensor& x);
  // One batch through the replicas (train_step, test_step, predict_step), then the metrics.
  void train_function(const Tensor& x, const Tensor& y, const distribute::Strategy& strategy);
  void test_function(const Tensor& x, const Tensor& y, const distribute::Strategy& strategy);
  Tensor predict_function(const Tensor& x, const distribute::Strategy& strategy);
  void record_outputs(const Tensor& y, const std::vector<StepOutput>& outputs,
                      const distribute::Strategy& strategy);
  Logs run_evaluation(const Tensor& x, const Tensor& y, std::int64_t batch_size,
                      const std::vector<callbacks::Callback*>& callbacks, int verbose,
                      const distribute::Strategy& strategy);
  Model& model();
  const Model& model() const;

  std::uint64_t strategy_id_ = 0;  // the scope's strategy at construction or compile, 0: none
  std::int64_t global_batch_ = 0;  // the batch in progress (compute_loss reads it in replicas)
  std::shared_ptr<optimizers::Optimizer> optimizer_;
  std::shared_ptr<losses::Loss> loss_;
  std::string loss_name_;  // the name compile() was given, "" for an object
  std::vector<MetricArg> metric_args_;
  std::vector<std::shared_ptr<metrics::Metric>> metrics_;  // built at the first batch
  metrics::Mean loss_tracker_{"loss"};
};

}  // namespace eagle::keras
