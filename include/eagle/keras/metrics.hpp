// Keras's metrics: running means over an epoch, as model.fit reports them.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "eagle/tensor.hpp"

namespace eagle::keras::metrics {

// Per-sample metric functions (Keras's functional metrics).
Tensor sparse_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred);
Tensor categorical_accuracy(const Tensor& y_true, const Tensor& y_pred);
Tensor binary_accuracy(const Tensor& y_true, const Tensor& y_pred, double threshold = 0.5);
Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred);
Tensor mean_absolute_error(const Tensor& y_true, const Tensor& y_pred);

class Metric {
 public:
  explicit Metric(std::string name) : name_(std::move(name)) {}
  virtual ~Metric() = default;
  const std::string& name() const { return name_; }
  virtual void update_state(const Tensor& y_true, const Tensor& y_pred) = 0;
  // The mean so far (0 before any update, as Keras's div_no_nan).
  double result() const { return count_ > 0 ? total_ / count_ : 0.0; }
  void reset_state() { total_ = count_ = 0; }

 protected:
  void accumulate(double total, double count) {
    total_ += total;
    count_ += count;
  }

 private:
  std::string name_;
  double total_ = 0;
  double count_ = 0;
};

// Keras's Mean: a weighted mean of the values given (the loss shown by fit is one, each batch
// weighted by its size).
class Mean : public Metric {
 public:
  explicit Mean(std::string name = "mean") : Metric(std::move(name)) {}
  void update_state(double value, double weight = 1.0) { accumulate(value * weight, weight); }
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
};
class CategoricalAccuracy : public MeanMetricWrapper {
 public:
  explicit CategoricalAccuracy(std::string name = "categorical_accuracy")
      : MeanMetricWrapper(categorical_accuracy, std::move(name)) {}
};
class BinaryAccuracy : public MeanMetricWrapper {
 public:
  explicit BinaryAccuracy(std::string name = "binary_accuracy", double threshold = 0.5);
};

// A metric by Keras's name, as compile() resolves it for labels and outputs of these shapes:
// "accuracy"/"acc" is binary_accuracy for one output column, sparse_categorical_accuracy when
// the labels have a lower rank (or one column against several), else categorical_accuracy;
// "mse", "mae", "sparse_categorical_accuracy", ... by name. The metric is named as given.
// Another name: InvalidArgumentError "Unknown metric function: 'foo'. Please ensure ...".
std::shared_ptr<Metric> get(const std::string& name, const Tensor& y_true, const Tensor& y_pred);
// Refuses a name get() would refuse (compile() checks its metrics before any data is seen).
void check_name(const std::string& name);

}  // namespace eagle::keras::metrics
