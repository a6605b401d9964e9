// Keras 2's Model training API: compile, fit, evaluate, predict, train_on_batch, summary.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include <fmt/format.h>

#include "distribute/strategy_runtime.hpp"
#include "eagle/errors.hpp"
#include "eagle/gradient_tape.hpp"
#include "eagle/keras/backend.hpp"
#include "eagle/keras/models.hpp"
#include "eagle/keras/progbar.hpp"
#include "eagle/ops.hpp"
#include "eagle/random_seed.hpp"
#include "keras/chief_output.hpp"
#include "keras/distributed_step.hpp"

namespace eagle::keras {

// ---- compile()'s arguments ----------------------------------------------------------------------

std::shared_ptr<optimizers::Optimizer> OptimizerArg::get() const {
  if (optimizer_) return optimizer_;
  std::string lower = name_;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "adam") return std::make_shared<optimizers::Adam>();
  if (lower == "sgd") return std::make_shared<optimizers::SGD>();
  if (lower == "rmsprop") return std::make_shared<optimizers::RMSprop>();
  if (lower == "adagrad") return std::make_shared<optimizers::Adagrad>();
  throw InvalidArgumentError(fmt::format(
      "Unknown optimizer: '{}'. Please ensure you are using a `keras.utils.custom_object_scope` "
      "and that this object is included in the scope. See "
      "https://www.tensorflow.org/guide/keras/save_and_serialize"
      "#registering_the_custom_object for details.",
      name_));
}

std::shared_ptr<losses::Loss> LossArg::get() const { return loss_ ? loss_ : losses::get(name_); }

// ---- Model --------------------------------------------------------------------------------------

namespace {

// Rows [begin, end) of x, or the rows at `indices` (a shuffled epoch).
Tensor rows(const Tensor& x, std::int64_t begin, std::int64_t end,
            const std::vector<std::int64_t>* order) {
  if (order == nullptr) return x[Slice{begin, end}];
  std::vector<std::int64_t> picked(order->begin() + begin, order->begin() + end);
  return gather(x, constant(picked), 0);
}

std::int64_t num_samples(const Tensor& x) {
  if (!x.defined()) throw InvalidArgumentError("Use of an undefined eagle::Tensor");
  if (x.rank() == 0) {
    throw InvalidArgumentError("Expected the data to have a batch dimension, got a scalar");
  }
  return x.shape()[0];
}

void check_cardinality(const Tensor& x, const Tensor& y) {
  const std::int64_t nx = num_samples(x);
  const std::int64_t ny = num_samples(y);
  if (nx != ny) {
    throw InvalidArgumentError(fmt::format(
        "Data cardinality is ambiguous:\n  x sizes: {}\n  y sizes: {}\nMake sure all arrays "
        "contain the same number of samples.",
        nx, ny));
  }
}

void check_batch_size(std::int64_t batch_size) {
  if (batch_size <= 0) {
    throw InvalidArgumentError(
        fmt::format("batch_size must be a positive integer, got {}", batch_size));
  }
}

std::int64_t steps_for(std::int64_t n, std::int64_t batch_size) {
  return (n + batch_size - 1) / batch_size;
}

std::vector<callbacks::Callback*> raw(
    const std::vector<std::shared_ptr<callbacks::Callback>>& list) {
  std::vector<callbacks::Callback*> out;
  for (const auto& c : list) {
    if (c) out.push_back(c.get());
  }
  return out;
}

}  // namespace

Model::Model(const std::string& class_name, std::string name)
    : name_(name.empty() ? backend::unique_object_name(backend::to_snake_case(class_name))
                         : std::move(name)) {
  // Keras's Model.__init__ remembers the strategy whose scope is open.
  if (const auto* scope = distribute::detail::current_scope_strategy()) strategy_id_ = scope->id();
}

std::vector<Variable> Model::trainable_variables() const {
  std::vector<Variable> out;
  for (const auto& layer : layers()) {
    for (const Variable& v : layer->trainable_variables()) out.push_back(v);
  }
  return out;
}

std::vector<Variable> Model::non_trainable_variables() const {
  std::vector<Variable> out;
  for (const auto& layer : layers()) {
    for (const Variable& v : layer->non_trainable_variables()) out.push_back(v);
  }
  return out;
}

std::vector<Variable> Model::weights() const {
  std::vector<Variable> out;
  for (const auto& layer : layers()) {
    for (const Variable& v : layer->weights()) out.push_back(v);
  }
  return out;
}

std::int64_t Model::count_params() const {
  if (!built()) {
    throw InvalidArgumentError(fmt::format(
        "You tried to call `count_params` on layer {}, but the layer isn't built. You can build "
        "it manually via: `{}.build(batch_input_shape)`.",
        name_, name_));
  }
  std::int64_t n = 0;
  for (const auto& layer : layers()) n += layer->built() ? layer->count_params() : 0;
  return n;
}

std::vector<Tensor> Model::get_weights() const {
  std::vector<Tensor> out;
  for (const Variable& v : weights()) out.push_back(v.read_value());
  return out;
}

void Model::set_weights(const std::vector<Tensor>& values) {
  std::size_t offset = 0;
  const auto all = layers();
  std::size_t expected = 0;
  for (const auto& layer : all) expected += layer->weights().size();
  if (values.size() != expected) {
    throw InvalidArgumentError(fmt::format(
        "You called `set_weights(weights)` on layer \"{}\" with a weight list of length {}, but "
        "the layer was expecting {} weights.",
        name_, values.size(), expected));
  }
  for (const auto& layer : all) {
    const std::size_t n = layer->weights().size();
    layer->set_weights(
        std::vector<Tensor>(values.begin() + static_cast<std::ptrdiff_t>(offset),
                            values.begin() + static_cast<std::ptrdiff_t>(offset + n)));
    offset += n;
  }
}

void Model::compile(OptimizerArg optimizer, LossArg loss, std::vector<MetricArg> metrics) {
  for (const MetricArg& m : metrics) {
    if (!m.metric()) metrics::check_name(m.name());
  }
  if (const auto* scope = distribute::detail::current_scope_strategy()) {
    check_weights_in_scope(*this, scope->strategy());
    if (strategy_id_ == 0) strategy_id_ = scope->id();
  }
  auto resolved_optimizer = optimizer.get();
  auto resolved_loss = loss.get();
  optimizer_ = std::move(resolved_optimizer);
  loss_ = std::move(resolved_loss);
  metric_args_ = std::move(metrics);
  metrics_.clear();
}

void Model::require_compiled() const {
  if (!compiled()) {
    throw RuntimeError(
        "You must compile your model before training/testing. Use `model.compile(optimizer, "
        "loss)`.");
  }
}

void Model::build_metrics(const Tensor& y, const Tensor& y_pred) {
  if (metrics_.size() == metric_args_.size()) return;
  metrics_.clear();
  for (const MetricArg& m : metric_args_) {
    metrics_.push_back(m.metric() ? m.metric() : metrics::get(m.name(), y, y_pred));
  }
}

void Model::reset_metrics() {
  loss_tracker_.reset_state();
  for (const auto& m : metrics_) m->reset_state();
}

Logs Model::metric_logs() const {
  Logs logs;
  logs.set("loss", loss_tracker_.result());
  for (const auto& m : metrics_) logs.set(m->name(), m->result());
  return logs;
}

std::vector<std::string> Model::metrics_names() const {
  std::vector<std::string> names{"loss"};
  for (std::size_t i = 0; i < metric_args_.size(); ++i) {
    names.push_back(i < metrics_.size()        ? metrics_[i]->name()
                    : metric_args_[i].metric() ? metric_args_[i].metric()->name()
                                               : metric_args_[i].name());
  }
  return names;
}

void Model::train_step(const Tensor& x, const Tensor& y, const Strategy* strategy) {
  if (strategy != nullptr) {
    distributed_train_step(x, y, *strategy);
    return;
  }
  Tensor y_pred;
  Tensor loss;
  std::vector<std::optional<Tensor>> grads;
  std::vector<Variable> variables;
  {
    GradientTape tape;
    y_pred = call(x, true);  // the first call builds: new variables are read, so watched
    loss = (*loss_)(y, y_pred);
    tape.stop();
    variables = trainable_variables();
    std::vector<GradientSource> sources(variables.begin(), variables.end());
    grads = tape.gradient(loss, sources);
  }
  std::vector<optimizers::GradientAndVariable> pairs;
  for (std::size_t i = 0; i < variables.size(); ++i) pairs.emplace_back(grads[i], variables[i]);
  if (!pairs.empty()) optimizer_->apply_gradients(pairs);
  build_metrics(y, y_pred);
  loss_tracker_.update_state(static_cast<double>(loss.item<float>()),
                             static_cast<double>(x.shape()[0]));
  for (const auto& m : metrics_) m->update_state(y, y_pred);
}

Tensor Model::predict_step(const Tensor& x, const Strategy* strategy) {
  return strategy != nullptr ? distributed_predict_step(x, *strategy) : call(x, false);
}

void Model::test_step(const Tensor& x, const Tensor& y, const Strategy* strategy) {
  if (strategy != nullptr) {
    distributed_test_step(x, y, *strategy);
    return;
  }
  const Tensor y_pred = call(x, false);
  const Tensor loss = (*loss_)(y, y_pred);
  build_metrics(y, y_pred);
  loss_tracker_.update_state(static_cast<double>(loss.item<float>()),
                             static_cast<double>(x.shape()[0]));
  for (const auto& m : metrics_) m->update_state(y, y_pred);
}

Logs Model::run_evaluation(const Tensor& x, const Tensor& y, std::int64_t batch_size,
                           const std::vector<callbacks::Callback*>& callbacks, int verbose,
                           const Strategy* strategy) {
  check_batch_size(batch_size);
  check_cardinality(x, y);
  const std::int64_t n = num_samples(x);
  const std::int64_t steps = steps_for(n, batch_size);
  reset_metrics();
  for (auto* c : callbacks) c->on_test_begin({});
  std::optional<utils::Progbar> bar;
  std::set<std::string> stateful{"loss"};
  for (const MetricArg& m : metric_args_)
    stateful.insert(m.metric() ? m.metric()->name() : m.name());
  if (verbose != 0 && steps > 0) bar.emplace(steps, 30, verbose, 0.05, stateful);
  for (std::int64_t step = 0; step < steps; ++step) {
    const std::int64_t begin = step * batch_size;
    const std::int64_t end = std::min(n, begin + batch_size);
    test_step(rows(x, begin, end, nullptr), rows(y, begin, end, nullptr), strategy);
    const Logs logs = metric_logs();
    for (auto* c : callbacks) c->on_test_batch_end(step, logs);
    if (bar) bar->update(step + 1, logs.items(), false);
  }
  const Logs logs = metric_logs();
  for (auto* c : callbacks) c->on_test_end(logs);
  if (bar) bar->update(steps, logs.items(), true);
  return logs;
}

callbacks::History Model::fit(const Tensor& x_all, const Tensor& y_all, FitOptions options) {
  require_compiled();
  check_batch_size(options.batch_size);
  check_cardinality(x_all, y_all);
  Tensor x = x_all;
  Tensor y = y_all;
  std::optional<std::pair<Tensor, Tensor>> validation = options.validation_data;
  if (options.validation_split != 0 && !validation) {
    if (!(options.validation_split > 0 && options.validation_split < 1)) {
      throw InvalidArgumentError(fmt::format(
          "`validation_split` must be in the range [0, 1). Received: validation_split={}",
          options.validation_split));
    }
    // Keras's train_validation_split: the last fraction, before any shuffling.
    const std::int64_t n = num_samples(x_all);
    const auto split_at = static_cast<std::int64_t>(
        std::floor(static_cast<double>(n) * (1.0 - options.validation_split)));
    if (split_at == 0 || split_at == n) {
      throw InvalidArgumentError(fmt::format(
          "Training data contains {} samples, which is not sufficient to split it into a "
          "validation and training set as specified by `validation_split={}`. Either provide "
          "more data, or a different value for the `validation_split` argument.",
          n, options.validation_split));
    }
    x = x_all[Slice{0, split_at}];
    y = y_all[Slice{0, split_at}];
    validation = std::make_pair(x_all[Slice{split_at, n}], y_all[Slice{split_at, n}]);
  }
  if (validation) check_cardinality(validation->first, validation->second);
  const Strategy* strategy = prepare_strategy(x);
  options.verbose = verbose_on_this_worker(strategy, options.verbose);

  auto history = std::make_shared<callbacks::History>();
  std::vector<callbacks::Callback*> callbacks = raw(options.callbacks);
  callbacks.push_back(history.get());
  for (auto* c : callbacks) c->set_model(this);

  const std::int64_t n = num_samples(x);
  const std::int64_t steps = steps_for(n, options.batch_size);
  std::mt19937_64 rng(random::get_seed(options.seed));
  std::set<std::string> stateful{"loss"};
  for (const MetricArg& m : metric_args_)
    stateful.insert(m.metric() ? m.metric()->name() : m.name());

  stop_training = false;
  Logs epoch_logs;
  for (auto* c : callbacks) c->on_train_begin({});
  std::ostream& out = io::print_stream();
  for (int epoch = options.initial_epoch; epoch < options.epochs; ++epoch) {
    reset_metrics();
    // Keras's ProgbarLogger is the first callback: it prints before the others run.
    if (options.verbose != 0 && options.epochs > 1) {
      out << "Epoch " << epoch + 1 << "/" << options.epochs << "\n" << std::flush;
    }
    for (auto* c : callbacks) c->on_epoch_begin(epoch, {});
    std::optional<utils::Progbar> bar;
    if (options.verbose != 0 && steps > 0) bar.emplace(steps, 30, options.verbose, 0.05, stateful);
    std::vector<std::int64_t> order;
    if (options.shuffle) {
      order.resize(static_cast<std::size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
    }
    for (std::int64_t step = 0; step < steps; ++step) {
      for (auto* c : callbacks) c->on_train_batch_begin(step, {});
      const std::int64_t begin = step * options.batch_size;
      const std::int64_t end = std::min(n, begin + options.batch_size);
      const std::vector<std::int64_t>* o = options.shuffle ? &order : nullptr;
      train_step(rows(x, begin, end, o), rows(y, begin, end, o), strategy);
      const Logs logs = metric_logs();
      if (bar && options.verbose == 1) bar->update(step + 1, logs.items(), false);
      for (auto* c : callbacks) c->on_train_batch_end(step, logs);
      if (stop_training) break;
    }
    epoch_logs = metric_logs();
    if (validation) {
      const Logs val = run_evaluation(validation->first, validation->second, options.batch_size, {},
                                      0, strategy);
      for (const auto& [name, value] : val.items()) epoch_logs.set("val_" + name, value);
    }
    if (bar) bar->update(steps, epoch_logs.items(), true);
    for (auto* c : callbacks) c->on_epoch_end(epoch, epoch_logs);
    if (stop_training) break;
  }
  for (auto* c : callbacks) c->on_train_end(epoch_logs);
  return *history;
}

std::vector<double> Model::evaluate(const Tensor& x, const Tensor& y, EvaluateOptions options) {
  require_compiled();
  const std::vector<callbacks::Callback*> callbacks = raw(options.callbacks);
  for (auto* c : callbacks) c->set_model(this);
  check_batch_size(options.batch_size);
  check_cardinality(x, y);
  const Strategy* strategy = prepare_strategy(x);
  options.verbose = verbose_on_this_worker(strategy, options.verbose);
  const Logs logs = run_evaluation(x, y, options.batch_size, callbacks, options.verbose, strategy);
  std::vector<double> out;
  for (const auto& item : logs.items()) out.push_back(item.second);
  return out;
}

Tensor Model::predict(const Tensor& x, PredictOptions options) {
  check_batch_size(options.batch_size);
  const std::int64_t n = num_samples(x);
  const std::int64_t steps = steps_for(n, options.batch_size);
  const Strategy* strategy = prepare_strategy(x);
  options.verbose = verbose_on_this_worker(strategy, options.verbose);
  const std::vector<callbacks::Callback*> callbacks = raw(options.callbacks);
  for (auto* c : callbacks) c->set_model(this);
  for (auto* c : callbacks) c->on_predict_begin({});
  std::optional<utils::Progbar> bar;
  if (options.verbose != 0 && steps > 0) bar.emplace(steps, 30, options.verbose);
  std::vector<Tensor> outputs;
  for (std::int64_t step = 0; step < steps; ++step) {
    const std::int64_t begin = step * options.batch_size;
    const std::int64_t end = std::min(n, begin + options.batch_size);
    outputs.push_back(predict_step(rows(x, begin, end, nullptr), strategy));
    for (auto* c : callbacks) c->on_predict_batch_end(step, {});
    if (bar) bar->update(step + 1, {}, false);
  }
  for (auto* c : callbacks) c->on_predict_end({});
  if (bar) bar->update(steps, {}, true);
  if (outputs.empty()) return predict_step(x, strategy);
  return outputs.size() == 1 ? outputs[0] : concat(outputs, 0);
}

std::vector<double> Model::train_on_batch(const Tensor& x, const Tensor& y) {
  require_compiled();
  check_cardinality(x, y);
  const Strategy* strategy = prepare_strategy(x);
  reset_metrics();
  train_step(x, y, strategy);
  std::vector<double> out;
  const Logs logs = metric_logs();
  for (const auto& item : logs.items()) out.push_back(item.second);
  return out;
}

std::vector<double> Model::test_on_batch(const Tensor& x, const Tensor& y) {
  require_compiled();
  check_cardinality(x, y);
  const Strategy* strategy = prepare_strategy(x);
  reset_metrics();
  test_step(x, y, strategy);
  std::vector<double> out;
  const Logs logs = metric_logs();
  for (const auto& item : logs.items()) out.push_back(item.second);
  return out;
}

}  // namespace eagle::keras
