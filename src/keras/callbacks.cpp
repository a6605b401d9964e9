// Logs, History and EarlyStopping (Keras 2's logic and messages).
#include "eagle/keras/callbacks.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/keras/backend.hpp"
#include "eagle/keras/models.hpp"
#include "runtime/log_sink.hpp"

namespace eagle::keras {

void Logs::set(const std::string& name, double value) {
  for (auto& item : items_) {
    if (item.first == name) {
      item.second = value;
      return;
    }
  }
  items_.emplace_back(name, value);
}

std::optional<double> Logs::get(const std::string& name) const {
  for (const auto& item : items_) {
    if (item.first == name) return item.second;
  }
  return std::nullopt;
}

double Logs::at(const std::string& name) const {
  if (auto v = get(name)) return *v;
  throw InvalidArgumentError(fmt::format("No value named '{}' in the logs", name));
}

namespace callbacks {

void History::on_train_begin(const Logs& /*logs*/) { epoch.clear(); }

void History::on_epoch_end(int e, const Logs& logs) {
  epoch.push_back(e);
  for (const auto& [name, value] : logs.items()) history[name].push_back(value);
}

namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

EarlyStopping::EarlyStopping(EarlyStoppingOptions options) : options_(std::move(options)) {
  std::string mode = options_.mode;
  if (mode != "auto" && mode != "min" && mode != "max") {
    runtime::emit_log(debugging::LogLevel::kWarning,
                      fmt::format("EarlyStopping mode {} is unknown, fallback to "
                                  "auto mode.",
                                  mode));
    mode = "auto";
  }
  if (mode == "auto") {
    greater_is_better_ = ends_with(options_.monitor, "acc") ||
                         ends_with(options_.monitor, "accuracy") ||
                         ends_with(options_.monitor, "auc");
  } else {
    greater_is_better_ = mode == "max";
  }
  options_.min_delta =
      greater_is_better_ ? std::abs(options_.min_delta) : -std::abs(options_.min_delta);
}

bool EarlyStopping::is_improvement(double value, double reference) const {
  return greater_is_better_ ? value - options_.min_delta > reference
                            : value - options_.min_delta < reference;
}

void EarlyStopping::on_train_begin(const Logs& /*logs*/) {
  wait_ = 0;
  stopped_epoch_ = 0;
  best_ = greater_is_better_ ? -std::numeric_limits<double>::infinity()
                             : std::numeric_limits<double>::infinity();
  best_weights_.reset();
  best_epoch_ = 0;
}

void EarlyStopping::on_epoch_end(int epoch, const Logs& logs) {
  const std::optional<double> current = logs.get(options_.monitor);
  if (!current) {
    std::string available;
    for (const auto& item : logs.items()) {
      available += (available.empty() ? "" : ",") + item.first;
    }
    runtime::emit_log(debugging::LogLevel::kWarning,
                      fmt::format("Early stopping conditioned on metric `{}` which "
                                  "is not available. Available metrics are: {}",
                                  options_.monitor, available));
    return;
  }
  if (epoch < options_.start_from_epoch) return;
  if (options_.restore_best_weights && !best_weights_) best_weights_ = model()->get_weights();
  ++wait_;
  if (is_improvement(*current, best_)) {
    best_ = *current;
    best_epoch_ = epoch;
    if (options_.restore_best_weights) best_weights_ = model()->get_weights();
    if (!options_.baseline || is_improvement(*current, *options_.baseline)) wait_ = 0;
    return;
  }
  if (wait_ >= options_.patience && epoch > 0) {
    stopped_epoch_ = epoch;
    model()->stop_training = true;
    if (options_.restore_best_weights && best_weights_) {
      if (options_.verbose > 0) {
        io::print_stream() << "Restoring model weights from the end of the best epoch: "
                           << best_epoch_ + 1 << ".\n";
      }
      model()->set_weights(*best_weights_);
    }
  }
}

void EarlyStopping::on_train_end(const Logs& /*logs*/) {
  if (stopped_epoch_ > 0 && options_.verbose > 0) {
    io::print_stream() << "Epoch " << stopped_epoch_ + 1 << ": early stopping\n";
  }
}

}  // namespace callbacks
}  // namespace eagle::keras
