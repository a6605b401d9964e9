// Keras's metrics: per-sample functions and their running means.
#include "eagle/keras/metrics.hpp"

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace eagle::keras::metrics {
namespace {

// Per-sample values summed and counted on the host (one small read per batch, as Keras's
// progress bar reads its metrics each batch).
std::pair<double, double> sum_and_count(const Tensor& values) {
  const Tensor as_double = values.dtype() == kFloat64 ? values : cast(values, kFloat64);
  return {reduce_sum(as_double).item<double>(), static_cast<double>(values.num_elements())};
}

Tensor squeeze_last_if_one(const Tensor& y) {
  return y.rank() > 0 && y.shape()[y.rank() - 1] == 1 ? squeeze(y, {-1}) : y;
}

[[noreturn]] void unknown(const std::string& name) {
  throw InvalidArgumentError(fmt::format(
      "Unknown metric function: '{}'. Please ensure you are using a "
      "`keras.utils.custom_object_scope` and that this object is included in the scope. See "
      "https://www.tensorflow.org/guide/keras/save_and_serialize"
      "#registering_the_custom_object for details.",
      name));
}

}  // namespace

Tensor sparse_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred) {
  Tensor labels = y_true;
  if (labels.rank() == y_pred.rank()) labels = squeeze_last_if_one(labels);
  const Tensor predicted = argmax(y_pred, -1);
  return cast(equal(cast(labels, kInt64), predicted), kFloat32);
}

Tensor categorical_accuracy(const Tensor& y_true, const Tensor& y_pred) {
  return cast(equal(argmax(y_true, -1), argmax(y_pred, -1)), kFloat32);
}

Tensor binary_accuracy(const Tensor& y_true, const Tensor& y_pred, double threshold) {
  const Tensor predicted = cast(y_pred > threshold, y_pred.dtype());
  const Tensor labels = y_true.dtype() == y_pred.dtype() ? y_true : cast(y_true, y_pred.dtype());
  return reduce_mean(cast(equal(labels, predicted), kFloat32), -1);
}

Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred) {
  const Tensor t = y_true.dtype() == y_pred.dtype() ? y_true : cast(y_true, y_pred.dtype());
  return reduce_mean(squared_difference(y_pred, t), -1);
}

Tensor mean_absolute_error(const Tensor& y_true, const Tensor& y_pred) {
  const Tensor t = y_true.dtype() == y_pred.dtype() ? y_true : cast(y_true, y_pred.dtype());
  return reduce_mean(abs(y_pred - t), -1);
}

void Mean::update_state(const Tensor& values, const Tensor& /*unused*/) {
  const auto [total, count] = sum_and_count(values);
  accumulate(total, count);
}

void MeanMetricWrapper::update_state(const Tensor& y_true, const Tensor& y_pred) {
  const auto [total, count] = sum_and_count(fn_(y_true, y_pred));
  accumulate(total, count);
}

BinaryAccuracy::BinaryAccuracy(std::string name, double threshold)
    : MeanMetricWrapper([threshold](const Tensor& t,
                                    const Tensor& p) { return binary_accuracy(t, p, threshold); },
                        std::move(name)) {}

namespace {
MeanMetricWrapper::Fn by_name(const std::string& name) {
  if (name == "sparse_categorical_accuracy") return sparse_categorical_accuracy;
  if (name == "categorical_accuracy") return categorical_accuracy;
  if (name == "binary_accuracy") {
    return [](const Tensor& t, const Tensor& p) { return binary_accuracy(t, p); };
  }
  if (name == "mse" || name == "mean_squared_error") return mean_squared_error;
  if (name == "mae" || name == "mean_absolute_error") return mean_absolute_error;
  return {};
}
bool is_accuracy(const std::string& name) { return name == "accuracy" || name == "acc"; }
}  // namespace

void check_name(const std::string& name) {
  if (!is_accuracy(name) && !by_name(name)) unknown(name);
}

std::shared_ptr<Metric> get(const std::string& name, const Tensor& y_true, const Tensor& y_pred) {
  if (is_accuracy(name)) {
    // Keras's compile_utils: binary for one output column, sparse when the labels have a lower
    // rank or one column against several, else categorical.
    const std::int64_t true_last = y_true.rank() > 0 ? y_true.shape()[y_true.rank() - 1] : 1;
    const std::int64_t pred_last = y_pred.rank() > 0 ? y_pred.shape()[y_pred.rank() - 1] : 1;
    const bool is_binary = pred_last == 1;
    const bool is_sparse = y_true.rank() < y_pred.rank() || (true_last == 1 && pred_last > 1);
    if (is_binary) {
      return std::make_shared<MeanMetricWrapper>(
          [](const Tensor& t, const Tensor& p) { return binary_accuracy(t, p); }, name);
    }
    if (is_sparse) {
      return std::make_shared<MeanMetricWrapper>(sparse_categorical_accuracy, name);
    }
    return std::make_shared<MeanMetricWrapper>(categorical_accuracy, name);
  }
  MeanMetricWrapper::Fn fn = by_name(name);
  if (!fn) unknown(name);
  return std::make_shared<MeanMetricWrapper>(std::move(fn), name);
}

}  // namespace eagle::keras::metrics
