// Keras 3's trainer: compile, fit, evaluate, predict, train_on_batch and the steps, the same under
// every distribution strategy (the default one on a single device).
#include "eagle/keras/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include <fmt/format.h>

#include "core/python_repr.hpp"
#include "eagle/distribute/compute_average_loss.hpp"
#include "eagle/distribute/mirrored_strategy.hpp"
#include "eagle/distribute/strategy.hpp"
#include "eagle/errors.hpp"
#include "eagle/gradient_tape.hpp"
#include "eagle/keras/backend.hpp"
#include "eagle/keras/models.hpp"
#include "eagle/keras/progbar.hpp"
#include "eagle/ops.hpp"
#include "eagle/random_seed.hpp"
#include "eagle/scope.hpp"
#include "keras/chief_output.hpp"

namespace eagle::keras {

// Note [One training step]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// fit, evaluate, predict, train_on_batch and test_on_batch go one way, Keras 3's (trainer.py's
// make_train_function: distribute_strategy.run(one_step_on_data)). The model's strategy is the one
// whose scope() was open at its construction or compile, or that mirrors its weights (Keras's
// model.distribute_strategy), else the default strategy. Each global batch is split by the
// strategy's rule (split_batch: ceil(B / N) per replica, the last replicas fewer or none; the
// default strategy: the whole batch) and strategy.run calls train_step on every replica's slice,
// on the replica's thread and device:
//   - train_step: the forward pass and compute_loss on a GradientTape, then the optimizer's
//     apply_gradients, which all-reduces the gradients (sum) over the replicas and updates every
//     replica's copy of the weights and slots (Note [One update path] in
//     src/optimizers/optimizer.cpp). Under a strategy compute_loss is the per-example losses
//     summed over the slice and divided by the GLOBAL batch's element count
//     (compute_average_loss), so the replicas' losses and gradients add up to the global batch's:
//     the weights and the printed loss are a single-device run's, up to float32 summation order.
//     On one device it is the loss with its own reduction, as Keras computes it;
//   - the replicas' predictions and losses are gathered (strategy.gather: every worker's under a
//     MultiWorkerMirroredStrategy) and the metrics and the loss tracker are updated once on the
//     calling thread from the whole global batch, so they count every example once and the
//     progress bar prints what one device prints;
//   - BatchNormalization assigns its moving statistics, whose MEAN aggregation averages them over
//     the replicas; Dropout draws its masks per replica (a seeded layer: seeds per replica);
//   - predict: the replicas' outputs concatenated in replica order on the first replica's device.
// A model not yet built is built under the strategy's scope on the calling thread (one forward
// pass of one example) before the first step. A custom train_step runs unchanged under every
// strategy: it is called per replica, and its optimizer call does the cross-replica work.

// ---- compile()'s arguments ----------------------------------------------------------------------

std::shared_ptr<optimizers::Optimizer> OptimizerArg::get() const {
  return optimizer_ ? optimizer_ : optimizers::get(name_);
}

std::shared_ptr<losses::Loss> LossArg::get() const { return loss_ ? loss_ : losses::get(name_); }

// ---- Trainer ------------------------------------------------------------------------------------

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

// The strategy's name and devices for Keras's "not created in the distribution strategy scope"
// text.
std::string describe(const distribute::Strategy& strategy) {
  const char* kind = dynamic_cast<const distribute::MirroredStrategy*>(&strategy) != nullptr
                         ? "MirroredStrategy"
                         : "Strategy";
  return fmt::format("{} with devices {}", kind, eagle::detail::tuple_repr(strategy.devices()));
}

// Every weight of `model` belongs to `strategy`; otherwise InvalidArgumentError with Keras's text
// ("Variable (...) was not created in the distribution strategy scope of (...)").
void check_weights_in_scope(const Model& model, const distribute::Strategy& strategy) {
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

// The replica's share of the global batch's mean loss.
Tensor replica_loss(const losses::Loss& loss, const Tensor& y, const Tensor& y_pred,
                    std::int64_t global_batch, int num_replicas) {
  const Tensor per_sample = loss.call(y, y_pred);
  // reduction "sum": each replica's sum, which the gradients' all-reduce adds up (Keras does not
  // scale a sum for distribution). The others are the global batch's mean.
  if (loss.reduction() == "sum") return reduce_sum(per_sample);
  if (per_sample.rank() == 0) {
    // A loss that reduced the batch itself: Keras 2's scale_loss_for_distribution.
    return per_sample / scalar_like(per_sample, static_cast<double>(num_replicas));
  }
  std::int64_t per_example = 1;
  for (int i = 1; i < per_sample.rank(); ++i) per_example *= per_sample.shape()[i];
  return nn::compute_average_loss(per_sample,
                                  std::max<std::int64_t>(global_batch * per_example, 1));
}

}  // namespace

Trainer::Trainer() {
  // Keras's Model.__init__ remembers the strategy whose scope is open.
  if (distribute::in_cross_replica_context()) strategy_id_ = distribute::get_strategy().id();
}

// Model is the only subclass.
Model& Trainer::model() { return static_cast<Model&>(*this); }
const Model& Trainer::model() const { return static_cast<const Model&>(*this); }

const distribute::Strategy* Trainer::distribute_strategy() const {
  std::uint64_t id = strategy_id_;
  if (id == 0) {
    for (const Variable& v : model().weights()) {
      if ((id = distribute::strategy_id_of(v)) != 0) break;
    }
    if (id == 0) return nullptr;
  }
  const distribute::Strategy* strategy = distribute::find_strategy(id);
  if (strategy == nullptr) {
    throw FailedPreconditionError(fmt::format(
        "Model '{}' was built under a MirroredStrategy that has been destroyed: a mirrored "
        "model's fit, evaluate and predict run on its strategy's replicas, so the strategy must "
        "outlive them",
        model().name()));
  }
  return strategy;
}

const distribute::Strategy& Trainer::prepare_strategy(const Tensor& x) {
  const distribute::Strategy* strategy = distribute_strategy();
  if (strategy == nullptr) return distribute::get_strategy();
  if (distribute::get_replica_context() != nullptr && distribute::has_strategy()) {
    throw FailedPreconditionError(fmt::format(
        "Model '{}' is mirrored: call its fit, evaluate and predict outside strategy.run (they "
        "run the replicas themselves)",
        model().name()));
  }
  const auto all = model().layers();
  if (!model().built() || std::any_of(all.begin(), all.end(), [](const auto& l) {
        return !l->built() || !l->output_shape();
      })) {
    auto scope = strategy->scope();
    model().call(x[Slice{0, std::min<std::int64_t>(x.shape()[0], 1)}], false);
  }
  check_weights_in_scope(model(), *strategy);
  return *strategy;
}

void Trainer::compile(OptimizerArg optimizer, LossArg loss, std::vector<MetricArg> metrics) {
  for (const MetricArg& m : metrics) {
    if (!m.metric()) metrics::check_name(m.name());
  }
  if (distribute::in_cross_replica_context()) {
    const distribute::Strategy& scope = distribute::get_strategy();
    check_weights_in_scope(model(), scope);
    if (strategy_id_ == 0) strategy_id_ = scope.id();
  }
  auto resolved_optimizer = optimizer.get();
  auto resolved_loss = loss.get();
  optimizer_ = std::move(resolved_optimizer);
  loss_ = std::move(resolved_loss);
  loss_name_ = loss.name();
  metric_args_ = std::move(metrics);
  metrics_.clear();
}

std::optional<eagle::io::Json> Trainer::get_compile_config() const {
  if (!compiled()) return std::nullopt;
  eagle::io::Json metric_list;
  if (!metric_args_.empty()) {
    metric_list = eagle::io::Json::array();
    for (const MetricArg& m : metric_args_) {
      metric_list.push_back(m.metric() ? metrics::serialize(*m.metric())
                                       : eagle::io::Json(m.name()));
    }
  }
  return eagle::io::Json::object()
      .set("optimizer", optimizers::serialize(*optimizer_))
      .set("loss", loss_name_.empty() ? losses::serialize(*loss_) : eagle::io::Json(loss_name_))
      .set("loss_weights", nullptr)
      .set("metrics", std::move(metric_list))
      .set("weighted_metrics", nullptr)
      .set("run_eagerly", false)
      .set("steps_per_execution", 1)
      .set("jit_compile", false);
}

void Trainer::compile_from_config(const eagle::io::Json& config) {
  if (!config.is_object()) {
    throw InvalidArgumentError(
        fmt::format("A compile config is an object, not {}", config.type_name()));
  }
  const eagle::io::Json* optimizer = config.find("optimizer");
  const eagle::io::Json* loss = config.find("loss");
  if (loss == nullptr || loss->is_null()) {
    throw UnimplementedError(
        "The compile config has no loss: eagle's compile needs one (a model that overrides "
        "compute_loss is compiled by hand)");
  }
  std::vector<MetricArg> metric_args;
  for (const auto& [key, value] : config.as_object()) {
    if (key == "optimizer" || key == "loss" || key == "run_eagerly" ||
        key == "steps_per_execution" || key == "jit_compile" || key == "auto_scale_loss") {
      continue;
    }
    if (key == "metrics") {
      if (value.is_null()) continue;
      if (!value.is_array()) {
        throw InvalidArgumentError("The compile config's metrics must be a list");
      }
      for (const eagle::io::Json& m : value.as_array()) {
        if (m.is_string()) {
          metric_args.emplace_back(m.as_string());
        } else {
          metric_args.emplace_back(metrics::deserialize(m));
        }
      }
    } else if (key == "loss_weights" || key == "weighted_metrics") {
      if (!value.is_null()) {
        throw UnimplementedError(
            fmt::format("The compile config sets {}, which eagle's compile does not take", key));
      }
    } else {
      throw InvalidArgumentError(
          fmt::format("compile() got an unexpected keyword argument '{}'", key));
    }
  }
  std::shared_ptr<optimizers::Optimizer> resolved = optimizer == nullptr || optimizer->is_null()
                                                        ? optimizers::get("rmsprop")
                                                        : optimizers::deserialize(*optimizer);
  LossArg loss_arg =
      loss->is_string() ? LossArg(loss->as_string()) : LossArg(losses::deserialize(*loss));
  compile(resolved, std::move(loss_arg), std::move(metric_args));
  if (model().built()) optimizer_->build(model().trainable_variables());
}

void Trainer::require_compiled() const {
  if (!compiled()) {
    throw RuntimeError(
        "You must compile your model before training/testing. Use `model.compile(optimizer, "
        "loss)`.");
  }
}

void Trainer::build_metrics(const Tensor& y, const Tensor& y_pred) {
  if (metrics_.size() == metric_args_.size()) return;
  metrics_.clear();
  for (const MetricArg& m : metric_args_) {
    metrics_.push_back(m.metric() ? m.metric() : metrics::get(m.name(), y, y_pred));
  }
}

void Trainer::reset_metrics() {
  loss_tracker_.reset_state();
  for (const auto& m : metrics_) m->reset_state();
}

Logs Trainer::metric_logs() const {
  Logs logs;
  logs.set("loss", loss_tracker_.result());
  for (const auto& m : metrics_) logs.set(m->name(), m->result());
  return logs;
}

std::vector<std::string> Trainer::metrics_names() const {
  std::vector<std::string> names{"loss"};
  for (std::size_t i = 0; i < metric_args_.size(); ++i) {
    names.push_back(i < metrics_.size()        ? metrics_[i]->name()
                    : metric_args_[i].metric() ? metric_args_[i].metric()->name()
                                               : metric_args_[i].name());
  }
  return names;
}

Tensor Trainer::compute_loss(const Tensor& y, const Tensor& y_pred) const {
  const distribute::ReplicaContext* replica = distribute::get_replica_context();
  const bool in_replica = replica != nullptr && distribute::has_strategy();
  const Tensor loss =
      in_replica ? replica_loss(*loss_, y, y_pred, global_batch_, replica->num_replicas_in_sync())
                 : (*loss_)(y, y_pred);
  // Keras 3's compute_loss: the compiled loss and each of model.losses() (the regularizers'
  // penalties, each a replica's share under a strategy: TensorFlow's trainer scales them for
  // distribution), summed.
  const std::vector<Tensor> penalties = model().losses();
  if (penalties.empty()) return loss;
  const int replicas = in_replica ? replica->num_replicas_in_sync() : 1;
  std::vector<Tensor> terms{loss};
  for (const Tensor& penalty : penalties) {
    Tensor term = reduce_sum(is_floating(penalty.dtype()) ? penalty : cast(penalty, kFloat32));
    if (term.dtype() != loss.dtype()) term = cast(term, loss.dtype());
    if (replicas > 1) term = term * scalar_like(term, 1.0 / replicas);
    terms.push_back(term);
  }
  return reduce_sum(stack(terms));
}

Trainer::StepOutput Trainer::train_step(const Tensor& x, const Tensor& y) {
  StepOutput out;
  std::vector<std::optional<Tensor>> grads;
  std::vector<Variable> variables;
  {
    GradientTape tape;
    out.y_pred = model()(x, true);  // the first call builds: new variables are read, so watched
    out.loss = compute_loss(y, out.y_pred);
    tape.stop();
    variables = model().trainable_variables();
    // Built here: in a replica, a mirrored variable's source is this replica's component.
    std::vector<GradientSource> sources(variables.begin(), variables.end());
    grads = tape.gradient(out.loss, sources);
  }
  std::vector<optimizers::GradientAndVariable> pairs;
  for (std::size_t i = 0; i < variables.size(); ++i) pairs.emplace_back(grads[i], variables[i]);
  if (!pairs.empty()) optimizer_->apply_gradients(pairs);
  return out;
}

Trainer::StepOutput Trainer::test_step(const Tensor& x, const Tensor& y) {
  StepOutput out;
  out.y_pred = model()(x, false);
  out.loss = compute_loss(y, out.y_pred);
  return out;
}

Tensor Trainer::predict_step(const Tensor& x) { return model()(x, false); }

void Trainer::record_outputs(const Tensor& y, const std::vector<StepOutput>& outputs,
                             const distribute::Strategy& strategy) {
  Tensor y_pred;
  double loss = 0;
  if (strategy.num_replicas_in_sync() == 1) {
    y_pred = outputs.front().y_pred;
    loss = static_cast<double>(outputs.front().loss.item<float>());
  } else {
    // Every replica's (every worker's) predictions and losses, in global replica order: the
    // global batch's.
    std::vector<Tensor> y_preds;
    std::vector<Tensor> losses;
    for (const StepOutput& out : outputs) {
      y_preds.push_back(out.y_pred);
      losses.push_back(reshape(out.loss, {1}));
    }
    y_pred = strategy.gather(distribute::PerReplica<Tensor>(std::move(y_preds)), 0);
    // Each replica's loss is already over the global batch: their sum is the batch's loss.
    for (const float l :
         strategy.gather(distribute::PerReplica<Tensor>(std::move(losses)), 0).to_vector<float>()) {
      loss += static_cast<double>(l);
    }
  }
  build_metrics(y, y_pred);
  loss_tracker_.update_state(loss, static_cast<double>(y.shape()[0]));
  for (const auto& m : metrics_) m->update_state(y, y_pred);
}

void Trainer::train_function(const Tensor& x, const Tensor& y,
                             const distribute::Strategy& strategy) {
  global_batch_ = x.shape()[0];
  const distribute::PerReplica<StepOutput> outputs =
      strategy.run([this](const Tensor& xs, const Tensor& ys) { return train_step(xs, ys); },
                   strategy.split_batch(x), strategy.split_batch(y));
  record_outputs(y, outputs.values(), strategy);
}

void Trainer::test_function(const Tensor& x, const Tensor& y,
                            const distribute::Strategy& strategy) {
  global_batch_ = x.shape()[0];
  const distribute::PerReplica<StepOutput> outputs =
      strategy.run([this](const Tensor& xs, const Tensor& ys) { return test_step(xs, ys); },
                   strategy.split_batch(x), strategy.split_batch(y));
  record_outputs(y, outputs.values(), strategy);
}

Tensor Trainer::predict_function(const Tensor& x, const distribute::Strategy& strategy) {
  global_batch_ = x.shape()[0];
  const distribute::PerReplica<Tensor> outputs =
      strategy.run([this](const Tensor& xs) { return predict_step(xs); }, strategy.split_batch(x));
  if (strategy.num_replicas_in_sync() == 1) return outputs[0];
  auto scope = device(strategy.devices().front());
  return strategy.gather(outputs, 0);
}

Logs Trainer::run_evaluation(const Tensor& x, const Tensor& y, std::int64_t batch_size,
                             const std::vector<callbacks::Callback*>& callbacks, int verbose,
                             const distribute::Strategy& strategy) {
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
    test_function(rows(x, begin, end, nullptr), rows(y, begin, end, nullptr), strategy);
    const Logs logs = metric_logs();
    for (auto* c : callbacks) c->on_test_batch_end(step, logs);
    if (bar) bar->update(step + 1, logs.items(), false);
  }
  const Logs logs = metric_logs();
  for (auto* c : callbacks) c->on_test_end(logs);
  if (bar) bar->update(steps, logs.items(), true);
  return logs;
}

callbacks::History Trainer::fit(const Tensor& x_all, const Tensor& y_all, FitOptions options) {
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
  const distribute::Strategy& strategy = prepare_strategy(x);
  options.verbose = verbose_on_this_worker(&strategy, options.verbose);

  auto history = std::make_shared<callbacks::History>();
  std::vector<callbacks::Callback*> callbacks = raw(options.callbacks);
  callbacks.push_back(history.get());
  for (auto* c : callbacks) c->set_model(&model());

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
      train_function(rows(x, begin, end, o), rows(y, begin, end, o), strategy);
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
  // Keras's fit, after the last epoch: an optimizer with use_ema gives the model its averages.
  if (options.epochs > options.initial_epoch) {
    auto scope = strategy.scope();
    optimizer_->finalize_variable_values(model().trainable_variables());
  }
  for (auto* c : callbacks) c->on_train_end(epoch_logs);
  return *history;
}

std::vector<double> Trainer::evaluate(const Tensor& x, const Tensor& y, EvaluateOptions options) {
  require_compiled();
  const std::vector<callbacks::Callback*> callbacks = raw(options.callbacks);
  for (auto* c : callbacks) c->set_model(&model());
  check_batch_size(options.batch_size);
  check_cardinality(x, y);
  const distribute::Strategy& strategy = prepare_strategy(x);
  options.verbose = verbose_on_this_worker(&strategy, options.verbose);
  const Logs logs = run_evaluation(x, y, options.batch_size, callbacks, options.verbose, strategy);
  std::vector<double> out;
  for (const auto& item : logs.items()) out.push_back(item.second);
  return out;
}

Tensor Trainer::predict(const Tensor& x, PredictOptions options) {
  check_batch_size(options.batch_size);
  const std::int64_t n = num_samples(x);
  const std::int64_t steps = steps_for(n, options.batch_size);
  const distribute::Strategy& strategy = prepare_strategy(x);
  options.verbose = verbose_on_this_worker(&strategy, options.verbose);
  const std::vector<callbacks::Callback*> callbacks = raw(options.callbacks);
  for (auto* c : callbacks) c->set_model(&model());
  for (auto* c : callbacks) c->on_predict_begin({});
  std::optional<utils::Progbar> bar;
  if (options.verbose != 0 && steps > 0) bar.emplace(steps, 30, options.verbose);
  std::vector<Tensor> outputs;
  for (std::int64_t step = 0; step < steps; ++step) {
    const std::int64_t begin = step * options.batch_size;
    const std::int64_t end = std::min(n, begin + options.batch_size);
    outputs.push_back(predict_function(rows(x, begin, end, nullptr), strategy));
    for (auto* c : callbacks) c->on_predict_batch_end(step, {});
    if (bar) bar->update(step + 1, {}, false);
  }
  for (auto* c : callbacks) c->on_predict_end({});
  if (bar) bar->update(steps, {}, true);
  if (outputs.empty()) return predict_function(x, strategy);
  return outputs.size() == 1 ? outputs[0] : concat(outputs, 0);
}

std::vector<double> Trainer::train_on_batch(const Tensor& x, const Tensor& y) {
  require_compiled();
  check_cardinality(x, y);
  const distribute::Strategy& strategy = prepare_strategy(x);
  reset_metrics();
  train_function(x, y, strategy);
  std::vector<double> out;
  const Logs logs = metric_logs();
  for (const auto& item : logs.items()) out.push_back(item.second);
  return out;
}

std::vector<double> Trainer::test_on_batch(const Tensor& x, const Tensor& y) {
  require_compiled();
  check_cardinality(x, y);
  const distribute::Strategy& strategy = prepare_strategy(x);
  reset_metrics();
  test_function(x, y, strategy);
  std::vector<double> out;
  const Logs logs = metric_logs();
  for (const auto& item : logs.items()) out.push_back(item.second);
  return out;
}

}  // namespace eagle::keras
