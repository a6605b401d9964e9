// The optimizer base (Keras 3's BaseOptimizer): gradient checks and clipping, slots on their
// variable's device, the step counter and learning rate, weight decay, moving averages and
// gradient accumulation.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <regex>

#include <fmt/format.h>

#include "core/python_repr.hpp"
#include "eagle/config.hpp"
#include "eagle/distribute/strategy.hpp"
#include "eagle/errors.hpp"
#include "eagle/gradient_tape.hpp"
#include "eagle/ops.hpp"
#include "eagle/optimizers.hpp"
#include "eagle/scope.hpp"
#include "runtime/flags.hpp"
#include "runtime/log_sink.hpp"
#include "variables/variable_state.hpp"

namespace eagle::optimizers {
namespace {

// tf.clip_by_norm: t * clip / max(||t||, clip), with ||0|| handled without a NaN.
Tensor clip_by_norm(const Tensor& t, double clip) {
  const Tensor l2sum = reduce_sum(t * t);
  const Tensor positive = l2sum > 0.0;
  const Tensor norm = where(positive, sqrt(where(positive, l2sum, ones_like(l2sum))), l2sum);
  return (t * clip) / maximum(norm, scalar_like(norm, clip));
}

std::string names_of(const std::vector<std::string>& names) {
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += (i ? ", '" : "'") + names[i] + "'";
  }
  return out + "]";
}

}  // namespace

Optimizer::Optimizer(std::string name, LearningRate learning_rate, ClipOptions clip,
                     BaseOptions base)
    : name_(std::move(name)),
      learning_rate_(std::move(learning_rate)),
      clip_(clip),
      base_(std::move(base)) {
  // Keras 3's checks (BaseOptimizer.__init__), in its order; a 0 is Python's falsy "not set".
  if (base_.gradient_accumulation_steps == std::int64_t{0}) base_.gradient_accumulation_steps = {};
  if (base_.gradient_accumulation_steps && *base_.gradient_accumulation_steps < 2) {
    throw InvalidArgumentError(
        fmt::format("`gradient_accumulation_steps` must be an integer >= 2. Received: "
                    "gradient_accumulation_steps={}",
                    *base_.gradient_accumulation_steps));
  }
  if (base_.ema_overwrite_frequency == std::int64_t{0}) base_.ema_overwrite_frequency = {};
  if (base_.use_ema) {
    if (base_.ema_momentum > 1 || base_.ema_momentum < 0) {
      throw InvalidArgumentError(
          fmt::format("`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={}",
                      detail::python_float(base_.ema_momentum)));
    }
    if (base_.ema_overwrite_frequency && *base_.ema_overwrite_frequency < 1) {
      throw InvalidArgumentError(
          fmt::format("`ema_overwrite_frequency` must be an integer >= 1 or None. Received: "
                      "ema_overwrite_frequency={}",
                      *base_.ema_overwrite_frequency));
    }
  }
  const auto repr = [](const std::optional<double>& v) {
    return v ? detail::python_float(*v) : std::string("None");
  };
  if (int{clip_.clipnorm.has_value()} + int{clip_.clipvalue.has_value()} +
          int{clip_.global_clipnorm.has_value()} >
      1) {
    throw InvalidArgumentError(fmt::format(
        "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
        "clipnorm={}, clipvalue={}, global_clipnorm={}",
        repr(clip_.clipnorm), repr(clip_.clipvalue), repr(clip_.global_clipnorm)));
  }
  // Keras's "iteration" and "learning_rate" variables, on the host whatever the scope (as the
  // step counter of TensorFlow's optimizers), plain under a strategy's scope: one copy, written
  // once per step (merge_call).
  auto cpu = device("/CPU:0");
  runtime::UnloggedOps unlogged;
  iterations_ = detail::make_plain_variable(constant(std::int64_t{0}),
                                            VariableOptions{name_ + "/iteration", false});
  if (!learning_rate_.scheduled()) {
    learning_rate_variable_ =
        detail::make_plain_variable(constant(static_cast<float>(learning_rate_.at(0))),
                                    VariableOptions{name_ + "/learning_rate", false});
  }
}

std::int64_t Optimizer::calls() const {
  runtime::UnloggedOps unlogged;
  return iterations_.read_value().item<std::int64_t>();
}

std::int64_t Optimizer::iterations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::int64_t n = calls();
  return base_.gradient_accumulation_steps ? n / *base_.gradient_accumulation_steps : n;
}

double Optimizer::learning_rate_at(std::int64_t calls) const {
  // Keras evaluates a schedule at _iterations, the calls (not the updates).
  if (learning_rate_.scheduled()) return learning_rate_.at(calls);
  runtime::UnloggedOps unlogged;
  return static_cast<double>(learning_rate_variable_.read_value().item<float>());
}

double Optimizer::learning_rate() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return learning_rate_at(calls());
}

void Optimizer::set_learning_rate(double learning_rate) {
  if (learning_rate_.scheduled()) {
    throw InvalidArgumentError(
        "This optimizer was created with a `LearningRateSchedule` object as its `learning_rate` "
        "constructor argument, hence its learning rate is not settable. If you need the learning "
        "rate to be settable, you should instantiate the optimizer with a float `learning_rate` "
        "argument.");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  learning_rate_variable_.assign(constant(static_cast<float>(learning_rate)));
}

std::uint64_t Optimizer::slot_key(const Variable& variable) {
  // A mirrored variable's slots are found from any replica: keyed by its first component.
  return detail::primary_id(variable);
}

Optimizer::Tracked& Optimizer::track(const Variable& variable) {
  auto found = index_.find(slot_key(variable));
  if (found != index_.end()) return tracked_[found->second];
  Tracked record;
  record.variable = variable;
  const std::string base = variable.name().substr(0, variable.name().rfind(':'));
  // Slots live with their variable (docs/guide.md, "Training: variables and gradient tapes"),
  // whatever scope the step runs under: a mirrored variable's are mirrored over the same devices
  // by the same strategy, so they cannot end up under another strategy than their variable
  // (tensorflow#41768).
  // Values a checkpoint restored before the slots existed are their initial values (a mirrored
  // slot starts with them on every replica).
  std::map<std::string, Tensor> restored;
  if (auto pending = pending_slots_.find(slot_key(variable)); pending != pending_slots_.end()) {
    restored = std::move(pending->second);
    pending_slots_.erase(pending);
  }
  const auto make = [&](const std::string& slot, double initial_value) {
    Tensor initial;
    {
      auto scope = device(variable.device());
      const auto value = restored.find(slot);
      initial = value != restored.end() ? identity(value->second)
                                        : fill(variable.shape(), initial_value, variable.dtype());
    }
    return detail::make_variable_like(variable, initial,
                                      VariableOptions{name_ + "/" + base + "/" + slot, false});
  };
  if (base_.use_ema) record.average = make("average", 0.0);
  if (base_.gradient_accumulation_steps) record.accumulator = make("gradient_accumulator", 0.0);
  for (const std::string& slot : slot_names()) {
    record.slots.push_back(make(slot, slot_initial_value(slot)));
  }
  for (const Variable& excluded : excluded_from_decay_) {
    if (slot_key(excluded) == slot_key(variable)) record.decayed = false;
  }
  for (const std::string& pattern : excluded_names_) {
    if (std::regex_search(variable.name(), std::regex(pattern))) record.decayed = false;
  }
  if (tracked_.empty()) build_own_variables(variable);
  tracked_.push_back(std::move(record));
  index_.emplace(slot_key(variable), tracked_.size() - 1);
  return tracked_.back();
}

Variable Optimizer::get_slot(const Variable& variable, const std::string& slot_name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = index_.find(slot_key(variable));
  if (found != index_.end()) {
    const Tracked& record = tracked_[found->second];
    if (slot_name == "average" && record.average.defined()) return record.average;
    if (slot_name == "gradient_accumulator" && record.accumulator.defined()) {
      return record.accumulator;
    }
    const std::vector<std::string> names = slot_names();
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == slot_name) return record.slots[i];
    }
  }
  throw InvalidArgumentError(fmt::format("No slot '{}' for variable '{}' in optimizer {}",
                                         slot_name, variable.name(), name_));
}

std::vector<Variable> Optimizer::variables() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Variable> out{iterations_};
  if (learning_rate_variable_.defined()) out.push_back(learning_rate_variable_);
  // Keras's build order: the averages, the accumulators, then the optimizer's own slots.
  for (const Tracked& t : tracked_) {
    if (t.average.defined()) out.push_back(t.average);
  }
  for (const Tracked& t : tracked_) {
    if (t.accumulator.defined()) out.push_back(t.accumulator);
  }
  const std::vector<std::string> names = slot_names();
  for (const std::vector<std::string>& group : slot_groups()) {
    for (const Tracked& t : tracked_) {
      for (const std::string& slot : group) {
        const auto at = std::find(names.begin(), names.end(), slot);
        out.push_back(t.slots[static_cast<std::size_t>(at - names.begin())]);
      }
    }
  }
  if (!tracked_.empty()) {
    for (const Variable& v : own_variables()) out.push_back(v);
  }
  return out;
}

void Optimizer::build(const std::vector<Variable>& var_list) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Variable& variable : var_list) track(variable);
}

bool Optimizer::built() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !tracked_.empty();
}

void Optimizer::exclude_from_weight_decay(const std::vector<Variable>& var_list,
                                          const std::vector<std::string>& var_names) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!tracked_.empty()) {
    throw InvalidArgumentError(
        "`exclude_from_weight_decay()` can only be configured before the optimizer is built.");
  }
  for (const std::string& pattern : var_names) {
    try {
      std::regex checked(pattern);
    } catch (const std::regex_error& e) {
      throw InvalidArgumentError(fmt::format(
          "exclude_from_weight_decay: '{}' is not a regular expression: {}", pattern, e.what()));
    }
  }
  excluded_from_decay_ = var_list;
  excluded_names_ = var_names;
}

std::vector<std::pair<Variable, std::vector<std::pair<std::string, Variable>>>>
Optimizer::slot_variables() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::vector<std::string> names = slot_names();
  std::vector<std::pair<Variable, std::vector<std::pair<std::string, Variable>>>> out;
  for (const Tracked& t : tracked_) {
    std::vector<std::pair<std::string, Variable>> slots;
    if (t.average.defined()) slots.emplace_back("average", t.average);
    if (t.accumulator.defined()) slots.emplace_back("gradient_accumulator", t.accumulator);
    for (std::size_t i = 0; i < names.size(); ++i) slots.emplace_back(names[i], t.slots[i]);
    out.emplace_back(t.variable, std::move(slots));
  }
  return out;
}

void Optimizer::restore_slots(const Variable& variable,
                              const std::map<std::string, Tensor>& values) {
  for (const auto& [slot, value] : values) {
    if (value.shape() != variable.shape() || value.dtype() != variable.dtype()) {
      throw InvalidArgumentError(fmt::format(
          "Received incompatible tensor with shape {} and dtype {} when attempting to restore "
          "the slot '{}' of variable '{}' with shape {} and dtype {}",
          value.shape().to_tuple_string(), dtype_name(value.dtype()), slot, variable.name(),
          variable.shape().to_tuple_string(), dtype_name(variable.dtype())));
    }
  }
  std::vector<std::pair<Variable, Tensor>> now;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = index_.find(slot_key(variable));
    if (found == index_.end()) {
      auto& pending = pending_slots_[slot_key(variable)];
      for (const auto& [slot, value] : values) pending[slot] = value;
      return;
    }
    const Tracked& record = tracked_[found->second];
    const std::vector<std::string> names = slot_names();
    for (const auto& [slot, value] : values) {
      if (slot == "average" && record.average.defined()) {
        now.emplace_back(record.average, value);
        continue;
      }
      if (slot == "gradient_accumulator" && record.accumulator.defined()) {
        now.emplace_back(record.accumulator, value);
        continue;
      }
      const auto name = std::find(names.begin(), names.end(), slot);
      if (name == names.end()) {
        throw InvalidArgumentError(fmt::format("No slot '{}' for variable '{}' in optimizer {}",
                                               slot, variable.name(), name_));
      }
      now.emplace_back(record.slots[static_cast<std::size_t>(name - names.begin())], value);
    }
  }
  for (const auto& [slot, value] : now) slot.assign(value);
}

void Optimizer::finalize_variable_values(const std::vector<Variable>& var_list) {
  if (!base_.use_ema) return;
  std::vector<std::pair<Variable, Variable>> pairs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (tracked_.empty()) return;  // no step ran: nothing averaged
    if (var_list.size() != tracked_.size()) {
      throw InvalidArgumentError(fmt::format(
          "The length of model variables ({}) to override does not match the length of model "
          "variables stored in the optimizer ({}). Please check if the optimizer was called on "
          "your model.",
          var_list.size(), tracked_.size()));
    }
    for (std::size_t i = 0; i < var_list.size(); ++i) {
      pairs.emplace_back(var_list[i], tracked_[i].average);
    }
  }
  const distribute::Strategy& strategy = distribute::get_strategy();
  for (const auto& [variable, average] : pairs) {
    update_with(strategy, variable, {average},
                [](const Variable& target, const std::vector<Variable>& companions) {
                  target.assign(companions[0].read_value());
                });
  }
}

// Note [One update path]
// ~~~~~~~~~~~~~~~~~~~~~~
// Every step goes the way of Keras's optimizer under tf.distribute (Note [One distribution
// interface] in src/distribute/strategy.cpp):
//   0. with gradient_accumulation_steps, each replica adds its own gradients to its copy of the
//      accumulators; only the last call of a cycle goes on, with the means (Keras 3 also
//      all-reduces only then);
//   1. in a replica function of a strategy, the gradients are summed over the replicas
//      (ReplicaContext::all_reduce: one pack per dtype), then clipped. Keras 3 clips each
//      replica's gradients before the sum, Keras 2 the sums: eagle clips the sums, the
//      gradient of the global batch, which is what a clip norm is tuned for;
//   2. each variable is updated through strategy.extended().update(var, fn), the weight decay
//      first: a plain variable once, a mirrored one on this replica's component in a replica
//      function (every replica applies the same summed gradient to its own copy: the copies stay
//      bit-identical), on every component in the cross-replica context; the moving averages
//      (use_ema) follow the same way;
//   3. the call counter grows by one per step: in a replica function through merge_call, which
//      runs once when every replica has reached it, after every replica read the step it applies
//      (a replica running ahead into its next step cannot read a count not yet advanced).
// The default strategy (no strategy) takes the same path: its all_reduce returns the gradients
// and update(var, fn) is fn(var).
void Optimizer::apply_gradients(const std::vector<std::optional<Tensor>>& gradients,
                                const std::vector<Variable>& variables,
                                bool skip_gradients_aggregation) {
  if (gradients.size() != variables.size()) {
    throw InvalidArgumentError(fmt::format(
        "apply_gradients got {} gradients for {} variables: pass one gradient per variable, in "
        "the variables' order (as tape.gradient(loss, variables) returns them)",
        gradients.size(), variables.size()));
  }
  std::vector<GradientAndVariable> grads_and_vars;
  grads_and_vars.reserve(gradients.size());
  for (std::size_t i = 0; i < gradients.size(); ++i) {
    grads_and_vars.emplace_back(gradients[i], variables[i]);
  }
  apply_gradients(grads_and_vars, skip_gradients_aggregation);
}

void Optimizer::apply_gradients(const std::vector<GradientAndVariable>& grads_and_vars,
                                bool skip_gradients_aggregation) {
  const distribute::Strategy& strategy = distribute::get_strategy();
  const distribute::ReplicaContext* const context = distribute::get_replica_context();
  // A replica function of a strategy; the default strategy's context is the thread itself.
  const distribute::ReplicaContext* const replica =
      context != nullptr && distribute::has_strategy() ? context : nullptr;
  // Check everything before any variable changes.
  std::vector<std::pair<Tensor, Variable>> updates;
  std::vector<std::string> missing;
  for (const auto& [grad, var] : grads_and_vars) {
    if (!var.defined()) throw InvalidArgumentError("Use of an undefined eagle::Variable");
    if (replica != nullptr && !strategy.extended().variable_created_in_scope(var)) {
      throw InvalidArgumentError(fmt::format(
          "apply_gradients in replica {} on {}: variable '{}' was not created under this "
          "MirroredStrategy's scope(), so its replicas cannot update it in sync. Create it (the "
          "model) inside `with strategy.scope()`: auto scope = strategy.scope();",
          replica->local_replica_id(), replica->device(), var.name()));
    }
    if (!grad || !grad->defined()) {
      missing.push_back(var.name());
      continue;
    }
    if (grad->shape() != var.shape() || grad->dtype() != var.dtype()) {
      throw InvalidArgumentError(fmt::format(
          "The gradient of variable '{}' has shape {} and dtype {}, the variable {} and {}",
          var.name(), grad->shape().to_tuple_string(), dtype_name(grad->dtype()),
          var.shape().to_tuple_string(), dtype_name(var.dtype())));
    }
    // Under the explicit device policy the update op would refuse a gradient on another device
    // (Tensors on conflicting devices) after earlier variables were updated: refuse it here.
    if (grad->device() != var.device() && config::get_device_policy() == DevicePolicy::kExplicit) {
      throw InvalidArgumentError(fmt::format(
          "Tensors on conflicting devices: the gradient of variable '{}' is on {} but the "
          "variable is on {}, and the device policy is explicit",
          var.name(), grad->device(), var.device()));
    }
    if (!is_floating(var.dtype())) {
      throw InvalidArgumentError(
          fmt::format("Variable '{}' is {}: optimizers update floating variables", var.name(),
                      dtype_name(var.dtype())));
    }
    updates.emplace_back(*grad, var);
  }
  if (updates.empty()) {
    throw InvalidArgumentError(
        fmt::format("No gradients provided for any variable: {}.", names_of(missing)));
  }
  if (!missing.empty() && (replica == nullptr || replica->local_replica_id() == 0)) {
    runtime::emit_log(debugging::LogLevel::kWarning,
                      fmt::format("Gradients do not exist for variables {} when minimizing the "
                                  "loss. If you're using `model.compile()`, did you forget to "
                                  "provide a `loss` argument?",
                                  names_of(missing)));
  }
  // Out of a replica function one thread runs the step and holds the lock throughout; replicas
  // take it only to read and write the optimizer's own state.
  std::unique_lock<std::mutex> lock(mutex_);
  // Keras builds on every variable passed, with a gradient or not.
  for (const auto& [grad, var] : grads_and_vars) track(var);
  std::vector<Tracked*> records;
  records.reserve(updates.size());
  for (const auto& [g, v] : updates) records.push_back(&track(v));
  // Read before the collectives: every replica applies the same step.
  const std::int64_t calls = this->calls();
  const double lr = learning_rate_at(calls);
  const std::int64_t accumulation = base_.gradient_accumulation_steps.value_or(1);
  const std::int64_t step = calls / accumulation + 1;
  std::vector<const Tracked*> averaged;  // Keras averages every variable it was built on
  if (base_.use_ema) {
    for (const Tracked& t : tracked_) averaged.push_back(&t);
  }
  if (replica != nullptr) lock.unlock();

  const bool updating =
      !base_.gradient_accumulation_steps || accumulate(strategy, updates, records, calls);
  if (updating) {
    if (replica != nullptr && !skip_gradients_aggregation) {
      std::vector<Tensor> grads;
      std::vector<std::string> names;
      grads.reserve(updates.size());
      names.reserve(updates.size());
      for (const auto& [g, v] : updates) {
        grads.push_back(g);
        names.push_back(v.name());
      }
      const std::vector<Tensor> summed =
          replica->all_reduce(distribute::ReduceOp::kSum, grads, names);
      for (std::size_t i = 0; i < updates.size(); ++i) updates[i].first = summed[i];
    }
    clip_gradients(updates);
  }
  const auto count_call = [this] {
    runtime::UnloggedOps unlogged;
    iterations_.assign_add(constant(std::int64_t{1}));
  };
  if (replica != nullptr) {
    // Once all replicas have read the count (Note [One update path], step 3).
    replica->merge_call([&] {
      std::lock_guard<std::mutex> guard(mutex_);
      count_call();
    });
  }
  if (updating) {
    for (std::size_t i = 0; i < updates.size(); ++i) {
      const auto& [gradient, variable] = updates[i];
      const Tracked& record = *records[i];
      const bool decay = base_.weight_decay && record.decayed;
      update_with(strategy, variable, record.slots,
                  [&](const Variable& target, const std::vector<Variable>& slots) {
                    // A mirrored variable's update() runs fn under a scope of the component's
                    // device: the gradient is copied there. A plain variable's update op takes
                    // the gradient where it is (the device policy decides).
                    const Tensor local =
                        !variable.is_mirrored() || gradient.device() == target.device()
                            ? gradient
                            : identity(gradient);
                    if (decay) {
                      // Keras 3's _apply_weight_decay: var -= var * wd * lr, in var's dtype.
                      const Tensor value = target.read_value();
                      target.assign_sub(value * scalar_like(value, *base_.weight_decay) *
                                        scalar_like(value, lr));
                    }
                    apply_one(target, slots, local, lr, step);
                  });
    }
  }
  if (base_.use_ema) update_moving_averages(strategy, calls, averaged);
  if (replica == nullptr) count_call();
}

void Optimizer::update_with(
    const distribute::Strategy& strategy, const Variable& variable,
    const std::vector<Variable>& companions,
    const std::function<void(const Variable&, const std::vector<Variable>&)>& fn) const {
  if (!variable.is_mirrored()) {
    strategy.extended().update(variable, [&](const Variable& target) { fn(target, companions); });
    return;
  }
  // A mirrored variable's companions are mirrored over the same devices: the target component's
  // index picks theirs.
  const std::vector<Variable> components = variable.components();
  strategy.extended().update(variable, [&](const Variable& target) {
    std::size_t index = 0;
    while (index < components.size() && components[index].id() != target.id()) ++index;
    std::vector<Variable> local;
    local.reserve(companions.size());
    for (const Variable& c : companions) local.push_back(c.components().at(index));
    fn(target, local);
  });
}

// Keras 3's _backend_apply_gradients with gradient_accumulation_steps: the accumulators hold each
// replica's own gradients (the all-reduce runs on the update call only, on the means).
bool Optimizer::accumulate(const distribute::Strategy& strategy,
                           std::vector<std::pair<Tensor, Variable>>& updates,
                           const std::vector<Tracked*>& records, std::int64_t calls) {
  const std::int64_t steps = *base_.gradient_accumulation_steps;
  const bool update_call = (calls + 1) % steps == 0;
  for (std::size_t i = 0; i < updates.size(); ++i) {
    Tensor& gradient = updates[i].first;
    const Tensor g = gradient;
    if (update_call) {
      // (g + acc) / steps; the accumulator's replica copy in a replica function.
      const Tensor sum = g + records[i]->accumulator.read_value();
      gradient = sum / scalar_like(sum, static_cast<double>(steps));
    }
    const bool mirrored = updates[i].second.is_mirrored();
    update_with(strategy, updates[i].second, {records[i]->accumulator},
                [&](const Variable&, const std::vector<Variable>& companions) {
                  const Variable& accumulator = companions[0];
                  const Tensor value = accumulator.read_value();
                  const Tensor local = !mirrored || g.device() == value.device() ? g : identity(g);
                  accumulator.assign(update_call ? zeros_like(value) : value + local);
                });
  }
  return update_call;
}

// Keras 3's _update_model_variables_moving_average (every call, accumulating or not), then the
// overwrite every ema_overwrite_frequency updates.
void Optimizer::update_moving_averages(const distribute::Strategy& strategy, std::int64_t calls,
                                       const std::vector<const Tracked*>& all) const {
  const std::int64_t iterations = calls / base_.gradient_accumulation_steps.value_or(1);
  for (const Tracked* t : all) {
    update_with(
        strategy, t->variable, {t->average},
        [&](const Variable& target, const std::vector<Variable>& companions) {
          const Variable& average = companions[0];
          // momentum = float(iterations != 0) * ema_momentum, and 1 - momentum, in the
          // variable's dtype.
          const bool wide = target.dtype() == kFloat64;
          const double zero_or_one = iterations != 0 ? 1.0 : 0.0;
          const double momentum = wide
                                      ? zero_or_one * base_.ema_momentum
                                      : static_cast<double>(static_cast<float>(zero_or_one) *
                                                            static_cast<float>(base_.ema_momentum));
          const double keep =
              wide ? 1.0 - momentum : static_cast<double>(1.0f - static_cast<float>(momentum));
          const Tensor avg = average.read_value();
          const Tensor value = target.read_value();
          average.assign(scalar_like(avg, momentum) * avg + scalar_like(value, keep) * value);
        });
  }
  if (base_.ema_overwrite_frequency && (iterations + 1) % *base_.ema_overwrite_frequency == 0) {
    for (const Tracked* t : all) {
      update_with(strategy, t->variable, {t->average},
                  [](const Variable& target, const std::vector<Variable>& companions) {
                    target.assign(companions[0].read_value());
                  });
    }
  }
}

void Optimizer::clip_gradients(std::vector<std::pair<Tensor, Variable>>& updates) const {
  // Keras 3's _clip_gradients: at most one option is set (the constructor checks), and one that
  // is not positive does nothing.
  if (clip_.clipnorm && *clip_.clipnorm > 0) {
    for (auto& [g, v] : updates) g = clip_by_norm(g, *clip_.clipnorm);
  }
  if (clip_.global_clipnorm && *clip_.global_clipnorm > 0) {
    // Keras 3's clip_by_global_norm, op by op on the gradients' device (no host round trip):
    // scale = clip * min(1 / norm, 1 / clip) + (norm - norm), NaN when the norm is not finite.
    const double clip = *clip_.global_clipnorm;
    const DType dtype = updates.front().first.dtype();
    std::vector<Tensor> squares;
    squares.reserve(updates.size());
    for (const auto& [g, v] : updates) {
      const Tensor sum = reduce_sum(square(g));
      squares.push_back(sum.dtype() == dtype ? sum : cast(sum, dtype));
    }
    const Tensor norm = sqrt(reduce_sum(stack(squares)));
    const Tensor scale = scalar_like(norm, clip) *
                             minimum(scalar_like(norm, 1.0) / norm, scalar_like(norm, 1.0 / clip)) +
                         (norm - norm);
    for (auto& [g, v] : updates) g = g * (g.dtype() == dtype ? scale : cast(scale, g.dtype()));
  }
  if (clip_.clipvalue && *clip_.clipvalue > 0) {
    for (auto& [g, v] : updates) {
      g = clip_by_value(g, scalar_like(g, -*clip_.clipvalue), scalar_like(g, *clip_.clipvalue));
    }
  }
}

void Optimizer::minimize(const std::function<Tensor()>& loss,
                         const std::vector<Variable>& variables) {
  GradientTape tape;
  const Tensor value = loss();
  std::vector<GradientSource> sources(variables.begin(), variables.end());
  const auto grads = tape.gradient(value, sources);
  std::vector<GradientAndVariable> pairs;
  for (std::size_t i = 0; i < variables.size(); ++i) pairs.emplace_back(grads[i], variables[i]);
  apply_gradients(pairs);
}

}  // namespace eagle::optimizers
