// Keras's Model training API (compile, fit, evaluate, predict, summary) and Sequential.
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
class MirroredStrategy;
}

namespace eagle::keras {

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

// A model: layers applied by call(), trained as Keras trains (one GradientTape per batch, the
// loss, optimizer.apply_gradients). Not copyable; callbacks get a pointer to it.
class Model {
 public:
  virtual ~Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const std::string& name() const { return name_; }
  virtual std::vector<std::shared_ptr<Layer>> layers() const = 0;
  virtual bool built() const = 0;
  // The forward pass (builds the model on the first call from the input's shape).
  virtual Tensor call(const Tensor& inputs, bool training) = 0;
  Tensor operator()(const Tensor& inputs, bool training = false) { return call(inputs, training); }

  // Every layer's weights, in layer order (Keras's lists).
  std::vector<Variable> trainable_variables() const;
  std::vector<Variable> non_trainable_variables() const;
  std::vector<Variable> weights() const;
  std::int64_t count_params() const;
  std::vector<Tensor> get_weights() const;
  void set_weights(const std::vector<Tensor>& weights);

  void compile(OptimizerArg optimizer, LossArg loss, std::vector<MetricArg> metrics = {});
  bool compiled() const { return loss_ != nullptr; }
  const std::shared_ptr<optimizers::Optimizer>& optimizer() const { return optimizer_; }
  const std::shared_ptr<losses::Loss>& loss() const { return loss_; }

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

  // Keras 3's model.save_weights / load_weights: a `.weights.h5` file (HDF5) with one group per
  // layer, so weights move between eagle and Keras both ways (Note [Keras 3 weights layout]).
  // load_weights checks every layer's count and shapes before assigning any (Keras's texts); the
  // model must be built. Without HDF5 in the build: UnimplementedError. The optimizer's state is
  // not written, and a file's optimizer group is ignored.
  void save_weights(const std::string& filepath) const;
  void load_weights(const std::string& filepath);

  // Keras 2's table on io::print_stream(). Before build: InvalidArgumentError, Keras's text.
  void summary(int line_length = 65) const;

  // Set by a callback to end fit() after the current epoch (Keras's model.stop_training).
  bool stop_training = false;

  // The MirroredStrategy whose scope() was open when the model was constructed or compiled, or
  // that mirrors its weights (Keras's model.distribute_strategy); nullptr for a single-device
  // model. A mirrored model's fit, evaluate, predict, train_on_batch and test_on_batch split each
  // global batch over the strategy's replicas and run them with strategy.run (Note [Keras fit
  // under a MirroredStrategy]); the strategy must outlive those calls (FailedPreconditionError
  // otherwise).
  const distribute::MirroredStrategy* distribute_strategy() const;

 protected:
  explicit Model(const std::string& class_name, std::string name);

 private:
  using Strategy = distribute::MirroredStrategy;
  void require_compiled() const;
  void build_metrics(const Tensor& y, const Tensor& y_pred);
  void reset_metrics();
  Logs metric_logs() const;
  // `strategy` nullptr: one device; otherwise the replicas of a mirrored model.
  void train_step(const Tensor& x, const Tensor& y, const Strategy* strategy);
  void test_step(const Tensor& x, const Tensor& y, const Strategy* strategy);
  Tensor predict_step(const Tensor& x, const Strategy* strategy);
  Logs run_evaluation(const Tensor& x, const Tensor& y, std::int64_t batch_size,
                      const std::vector<callbacks::Callback*>& callbacks, int verbose,
                      const Strategy* strategy);
  // src/keras/distributed_step.cpp: the strategy this call runs under (its weights checked, the
  // model built under its scope from `x` if it is not built yet), nullptr for one device.
  const Strategy* prepare_strategy(const Tensor& x);
  void distributed_train_step(const Tensor& x, const Tensor& y, const Strategy& strategy);
  void distributed_test_step(const Tensor& x, const Tensor& y, const Strategy& strategy);
  Tensor distributed_predict_step(const Tensor& x, const Strategy& strategy);
  // The metric updates of one batch from its per-replica slices and outputs.
  void update_metrics(const std::vector<Tensor>& ys, const std::vector<Tensor>& y_preds,
                      double loss, std::int64_t batch);

  std::string name_;
  std::uint64_t strategy_id_ = 0;  // the scope's strategy at construction or compile, 0: none
  std::shared_ptr<optimizers::Optimizer> optimizer_;
  std::shared_ptr<losses::Loss> loss_;
  std::vector<MetricArg> metric_args_;
  std::vector<std::shared_ptr<metrics::Metric>> metrics_;  // built at the first batch
  metrics::Mean loss_tracker_{"loss"};
};

// Keras's Sequential: a stack of layers, each fed the previous one's output. With an input
// shape (an InputLayer first, or input_shape on the first layer) it builds as layers are added;
// otherwise at build() or the first call.
class Sequential : public Model {
 public:
  explicit Sequential(std::string name = "");
  explicit Sequential(const std::vector<std::shared_ptr<Layer>>& layers, std::string name = "");

  // Adds a layer (a copy of `layer`; keep the shared_ptr form to hold a handle). A name already
  // in the model is InvalidArgumentError, Keras's text.
  void add(std::shared_ptr<Layer> layer);
  template <class L, class = std::enable_if_t<std::is_base_of_v<Layer, std::decay_t<L>>>>
  void add(L&& layer) {
    add(std::shared_ptr<Layer>(std::make_shared<std::decay_t<L>>(std::forward<L>(layer))));
  }
  void pop();

  // Builds every layer for inputs of this shape (batch first, usually unknown: {std::nullopt,
  // 784}).
  void build(const TensorShape& input_shape);
  bool built() const override { return built_; }
  std::vector<std::shared_ptr<Layer>> layers() const override { return layers_; }
  Tensor call(const Tensor& inputs, bool training) override;

  // The input shape with the batch dimension ((None, 28, 28, 1)), once known.
  const std::optional<TensorShape>& input_shape() const { return input_shape_; }
  // Keras 3's model.save("m.keras"): a .keras file (a zip of config.json, metadata.json and
  // model.weights.h5; Note [Keras 3 .keras files]) that keras.models.load_model and
  // eagle::keras::models::load_model read. The model must be built, its layers among those
  // load_model knows, with named activations; the optimizer and compile() settings are not
  // saved. Another extension than .keras is InvalidArgumentError (Keras's text); without HDF5
  // in the build, UnimplementedError.
  void save(const std::string& filepath) const;

 private:
  std::vector<std::shared_ptr<Layer>> layers_;
  std::optional<TensorShape> input_shape_;  // with the batch dimension
  bool built_ = false;
};

namespace models {

// Keras 3's keras.models.load_model for .keras files: the Sequential model that config.json
// describes, built from its input shape, with the weights of model.weights.h5 (Note [Keras 3
// .keras files]). Layers: InputLayer, Dense, Conv2D, MaxPooling2D, AveragePooling2D, Flatten,
// Dropout, BatchNormalization, Activation, with their names, trainable flags and the
// configuration eagle's layers have; initializers, regularizers and compile settings are not
// restored (the model comes back uncompiled). Errors name the file: a missing file NotFoundError
// (Keras's text), one that is not a zip archive or is damaged DataLossError, another model class
// (a Functional model), an unknown layer class, activation or setting eagle lacks
// UnimplementedError naming it. Without HDF5 in the build: UnimplementedError.
std::unique_ptr<Sequential> load_model(const std::string& filepath);

}  // namespace models
}  // namespace eagle::keras
