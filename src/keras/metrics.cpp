// Keras's metrics: per-sample functions and their running means.
#include "eagle/keras/metrics.hpp"

#include <memory>
#include <utility>

#include <fmt/format.h>

#include "eagle/distribute/strategy.hpp"
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

// Note [Metrics synchronised on read]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// TensorFlow creates a metric's total and count as variables synchronised on read (ON_READ,
// aggregation SUM): each replica of a strategy updates its own copy with no synchronisation, and
// reading the metric outside the replicas sums the copies. eagle's metrics keep host doubles, so
// the copies are slots: slot r belongs to local replica r of the strategy whose replica function
// is running (get_replica_context()->local_replica_id()), slot 0 to every other thread. A slot is
// made the first time its replica updates (a compare-and-swap on a fixed table of 64 pointers,
// enough for any process's replicas; a higher id shares slot id % 64) and lives as long as the
// metric. An update adds to its slot's two atomic doubles (compare-and-swap loops: uncontended
// in a replica's own slot, and still exact when other threads share it); result() sums the slots.
// Updating from N replicas at once therefore gives exactly what one thread updating N times
// gives (Keras's Mean printed 0 instead of 0.25 in a race without this). Under a
// MultiWorkerMirroredStrategy the slots are this worker's: Keras's fit updates its metrics from
// the whole gathered batch on every worker, so every worker reads the global value.

struct Metric::Slot {
  std::atomic<double> total{0};
  std::atomic<double> count{0};
};

namespace {

void add(std::atomic<double>& to, double value) {
  double now = to.load(std::memory_order_relaxed);
  while (!to.compare_exchange_weak(now, now + value, std::memory_order_acq_rel,
                                   std::memory_order_relaxed)) {
  }
}

}  // namespace

Metric::Metric(std::string name) : name_(std::move(name)) {}

Metric::~Metric() {
  for (auto& slot : slots_) delete slot.load(std::memory_order_acquire);
}

Metric::Slot& Metric::slot_for_this_replica() {
  int index = 0;
  const distribute::ReplicaContext* replica = distribute::get_replica_context();
  if (replica != nullptr && distribute::has_strategy())
    index = replica->local_replica_id() % kSlots;
  std::atomic<Slot*>& entry = slots_[index];
  Slot* slot = entry.load(std::memory_order_acquire);
  if (slot != nullptr) return *slot;
  auto made = std::make_unique<Slot>();
  Slot* expected = nullptr;
  if (entry.compare_exchange_strong(expected, made.get(), std::memory_order_acq_rel)) {
    return *made.release();
  }
  return *expected;  // another thread of this replica slot made it first
}

void Metric::accumulate(double total, double count) {
  Slot& slot = slot_for_this_replica();
  add(slot.total, total);
  add(slot.count, count);
}

double Metric::result() const {
  double total = 0;
  double count = 0;
  for (const auto& entry : slots_) {
    if (const Slot* slot = entry.load(std::memory_order_acquire)) {
      total += slot->total.load(std::memory_order_acquire);
      count += slot->count.load(std::memory_order_acquire);
    }
  }
  return count > 0 ? total / count : 0.0;
}

void Metric::reset_state() {
  for (auto& entry : slots_) {
    if (Slot* slot = entry.load(std::memory_order_acquire)) {
      slot->total.store(0, std::memory_order_release);
      slot->count.store(0, std::memory_order_release);
    }
  }
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
                        std::move(name)),
      threshold_(threshold) {}

eagle::io::Json Metric::get_config() const {
  return eagle::io::Json::object().set("name", name_).set("dtype", "float32");
}

eagle::io::Json BinaryAccuracy::get_config() const {
  return Metric::get_config().set("threshold", threshold_);
}

eagle::io::Json serialize(const Metric& metric) {
  if (metric.class_name().empty()) {
    throw UnimplementedError(fmt::format(
        "Metric '{}' has no Keras class, so it cannot be serialized: compile with a metric's "
        "name or one of Mean, SparseCategoricalAccuracy, CategoricalAccuracy, BinaryAccuracy",
        metric.name()));
  }
  return eagle::io::Json::object()
      .set("module", "keras.metrics")
      .set("class_name", metric.class_name())
      .set("config", metric.get_config())
      .set("registered_name", nullptr);
}

std::shared_ptr<Metric> deserialize(const eagle::io::Json& serialized) {
  const eagle::io::Json* class_name = serialized.find("class_name");
  const eagle::io::Json* config = serialized.find("config");
  if (class_name == nullptr || !class_name->is_string() || config == nullptr ||
      !config->is_object()) {
    throw InvalidArgumentError(
        "A metric's configuration is an object with \"class_name\" and \"config\"");
  }
  const std::string& cls = class_name->as_string();
  std::string name;
  double threshold = 0.5;
  for (const auto& [key, value] : config->as_object()) {
    if (key == "name" && value.is_string()) {
      name = value.as_string();
    } else if (key == "dtype" &&
               (value.is_null() || (value.is_string() && value.as_string() == "float32"))) {
    } else if (key == "threshold" && cls == "BinaryAccuracy" && value.is_number()) {
      threshold = value.as_number();
    } else {
      throw InvalidArgumentError(fmt::format(
          "{}'s configuration: '{}' is not an argument eagle's {} takes as given", cls, key, cls));
    }
  }
  const auto named = [&](const char* fallback) { return name.empty() ? fallback : name; };
  if (cls == "Mean") return std::make_shared<Mean>(named("mean"));
  if (cls == "SparseCategoricalAccuracy") {
    return std::make_shared<SparseCategoricalAccuracy>(named("sparse_categorical_accuracy"));
  }
  if (cls == "CategoricalAccuracy") {
    return std::make_shared<CategoricalAccuracy>(named("categorical_accuracy"));
  }
  if (cls == "BinaryAccuracy") {
    return std::make_shared<BinaryAccuracy>(named("binary_accuracy"), threshold);
  }
  throw UnimplementedError(fmt::format(
      "Could not locate class '{}'. eagle's metric classes are Mean, SparseCategoricalAccuracy, "
      "CategoricalAccuracy and BinaryAccuracy",
      cls));
}

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
