// Keras's metrics: running means over an epoch, as model.fit reports them.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "eagle/io/json.hpp"
#include "eagle/tensor.hpp"

namespace eagle::keras::metrics {

// Per-sample metric functions (Keras's functional metrics).
Tensor sparse_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred);
Tensor categorical_accuracy(const Tensor& y_true, const Tensor& y_pred);
Tensor binary_accuracy(const Tensor& y_true, const Tensor& y_pred, double threshold = 0.5);
Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred);
Tensor mean_absolute_error(const Tensor& y_true, const Tensor& y_pred);

// A running mean (a total and a count), synchronised on read as TensorFlow's metrics under a
// strategy are (VariableSynchronization::kOnRead, aggregation SUM): each replica of a strategy's
// run() accumulates into a slot of its own, and result() combines the slots. Updates take no lock
// (each slot is two atomic doubles, contended only by threads that share a replica slot), so a
// metric may be updated from every replica at once, or from any threads; it never loses an
// update. Note [Metrics synchronised on read] in src/keras/metrics.cpp.
class Metric {
 public:
  explicit Metric(std::string name);
  virtual ~Metric();
  Metric(const Metric&) = delete;
  Metric& operator=(const Metric&) = delete;
  const std::string& name() const { return name_; }
  virtual void update_state(const Tensor& y_true, const Tensor& y_pred) = 0;
  // Keras's class name ("Mean", "SparseCategoricalAccuracy"), "" for a metric with no Keras
  // class (a MeanMetricWrapper of a function of yours), and get_config(): {"name", "dtype"}.
  virtual std::string class_name() const { return ""; }
  virtual eagle::io::Json get_config() const;
  // The mean so far over every replica's updates (0 before any update, as Keras's div_no_nan).
  double result() const;
  void reset_state();
  // Keras 2's name for reset_state.
  void reset_states() { reset_state(); }

 protected:
  // Adds to the calling replica's slot (slot 0 outside a strategy's replica functions).
  void accumulate(double total, double count);

 private:
  struct Slot;
  Slot& slot_for_this_replica();
  std::string name_;
  // The slots by local replica id, made when a replica first updates (Note [Metrics synchronised
  // on read]).
  static constexpr int kSlots = 64;
  std::atomic<Slot*> slots_[kSlots] = {};
};

// Keras's Mean: a weighted mean of the values given (the loss shown by fit is one, each batch
// weighted by its size).
class Mean : public Metric {
 public:
  explicit Mean(std::string name = "mean") : Metric(std::move(name)) {}
  std::string class_name() const override { return "Mean"; }
  void update_state(double value, double weight = 1.0) { accumulate(value * weight, weight); }
  // Keras's mean.update_state(values): every element of `values` counts once.
  void update_state(const Tensor& values) { update_state(values, Tensor()); }
  // The Metric form, for fit: the second tensor is not used.
  void update_state(const Tensor& values, const Tensor& /*unused*/) override;
};

// Keras's MeanMetricWrapper: the mean over every sample seen of a per-sample function.
class MeanMetricWrapper : public Metric {
 public:
  using Fn = std::function<Tensor(const Tensor& y_true, const Tensor& y_pred)>;
  MeanMetricWrapper(Fn fn, std::string name) : Metric(std::move(name)), fn_(std::move(fn)) {}
  void update_state(const Tensor& y_true, const Tensor& y_pred) override;

 private:
  Fn fn_;
};

class SparseCategoricalAccuracy : public MeanMetricWrapper {
 public:
  explicit SparseCategoricalAccuracy(std::string name = "sparse_categorical_accuracy")
      : MeanMetricWrapper(sparse_categorical_accuracy, std::move(name)) {}
  std::string class_name() const override { return "SparseCategoricalAccuracy"; }
};
class CategoricalAccuracy : public MeanMetricWrapper {
 public:
  explicit CategoricalAccuracy(std::string name = "categorical_accuracy")
      : MeanMetricWrapper(categorical_accuracy, std::move(name)) {}
  std::string class_name() const override { return "CategoricalAccuracy"; }
};
class BinaryAccuracy : public MeanMetricWrapper {
 public:
  explicit BinaryAccuracy(std::string name = "binary_accuracy", double threshold = 0.5);
  std::string class_name() const override { return "BinaryAccuracy"; }
  eagle::io::Json get_config() const override;

 private:
  double threshold_;
};

// A metric by Keras's name, as compile() resolves it for labels and outputs of these shapes:
// "accuracy"/"acc" is binary_accuracy for one output column, sparse_categorical_accuracy when
// the labels have a lower rank (or one column against several), else categorical_accuracy;
// "mse", "mae", "sparse_categorical_accuracy", ... by name. The metric is named as given.
// Another name: InvalidArgumentError "Unknown metric function: 'foo'. Please ensure ...".
std::shared_ptr<Metric> get(const std::string& name, const Tensor& y_true, const Tensor& y_pred);
// Refuses a name get() would refuse (compile() checks its metrics before any data is seen).
void check_name(const std::string& name);
// keras.metrics.serialize of a metric object: {"module": "keras.metrics", "class_name",
// "config", "registered_name": null}; a metric with no Keras class is UnimplementedError.
eagle::io::Json serialize(const Metric& metric);
// keras.metrics.deserialize of such an object: Mean and the three accuracies. Another class is
// UnimplementedError, an unknown key InvalidArgumentError.
std::shared_ptr<Metric> deserialize(const eagle::io::Json& serialized);

}  // namespace eagle::keras::metrics
