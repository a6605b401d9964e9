// The optimizer base (Keras 2's OptimizerV2): gradient checks and clipping, slots on their
// variable's device, iterations, learning-rate schedules.
#include <cmath>
#include <mutex>

#include <fmt/format.h>

#include "eagle/config.hpp"
#include "eagle/distribute/strategy.hpp"
#include "eagle/errors.hpp"
#include "eagle/gradient_tape.hpp"
#include "eagle/ops.hpp"
#include "eagle/optimizers.hpp"
#include "eagle/scope.hpp"
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

namespace schedules {

std::function<double(std::int64_t)> ExponentialDecay(double initial_learning_rate,
                                                     std::int64_t decay_steps, double decay_rate,
                                                     bool staircase) {
  if (decay_steps <= 0) {
    throw InvalidArgumentError(
        fmt::format("ExponentialDecay: decay_steps must be positive, got {}", decay_steps));
  }
  return [=](std::int64_t step) {
    double p = static_cast<double>(step) / static_cast<double>(decay_steps);
    if (staircase) p = std::floor(p);
    return initial_learning_rate * std::pow(decay_rate, p);
  };
}

std::function<double(std::int64_t)> PiecewiseConstantDecay(std::vector<std::int64_t> boundaries,
                                                           std::vector<double> values) {
  if (values.size() != boundaries.size() + 1) {
    throw InvalidArgumentError(
        fmt::format("The length of boundaries should be 1 less than the length of values "
                    "(boundaries: {}, values: {})",
                    boundaries.size(), values.size()));
  }
  return [boundaries = std::move(boundaries), values = std::move(values)](std::int64_t step) {
    for (std::size_t i = 0; i < boundaries.size(); ++i) {
      if (step <= boundaries[i]) return values[i];
    }
    return values.back();
  };
}

}  // namespace schedules

Optimizer::Optimizer(std::string name, LearningRate learning_rate, ClipOptions clip)
    : name_(std::move(name)), learning_rate_(std::move(learning_rate)), clip_(clip) {
  if (clip_.clipnorm && clip_.global_clipnorm) {
    throw InvalidArgumentError(
        fmt::format("Cannot accept both `clipnorm` and `global_clipnorm`. Received: `clipnorm`={}, "
                    "`global_clipnorm`={}.",
                    *clip_.clipnorm, *clip_.global_clipnorm));
  }
}

std::int64_t Optimizer::iterations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return iterations_;
}

double Optimizer::learning_rate() const { return learning_rate_.at(iterations()); }

std::uint64_t Optimizer::slot_key(const Variable& variable) {
  // A mirrored variable's slots are found from any replica: keyed by its first component.
  return detail::primary_id(variable);
}

const std::vector<Variable>& Optimizer::slots_for(const Variable& variable) {
  auto it = slots_.find(slot_key(variable));
  if (it != slots_.end()) return it->second;
  std::vector<Variable> slots;
  const std::string base = variable.name().substr(0, variable.name().rfind(':'));
  // Slots live with their variable (docs/guide.md, "Training: variables and gradient tapes"),
  // whatever scope the step runs under: a mirrored variable's are mirrored over the same devices
  // by the same strategy, so they cannot end up under another strategy than their variable
  // (tensorflow#41768).
  for (const std::string& slot : slot_names()) {
    Tensor initial;
    {
      auto scope = device(variable.device());
      initial = fill(variable.shape(), slot_initial_value(slot), variable.dtype());
    }
    slots.push_back(detail::make_variable_like(
        variable, initial, VariableOptions{name_ + "/" + base + "/" + slot, false}));
  }
  return slots_.emplace(slot_key(variable), std::move(slots)).first->second;
}

Variable Optimizer::get_slot(const Variable& variable, const std::string& slot_name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::vector<std::string> names = slot_names();
  auto it = slots_.find(slot_key(variable));
  for (std::size_t i = 0; it != slots_.end() && i < names.size(); ++i) {
    if (names[i] == slot_name) return it->second[i];
  }
  throw InvalidArgumentError(fmt::format("No slot '{}' for variable '{}' in optimizer {}",
                                         slot_name, variable.name(), name_));
}

// Note [One update path]
// ~~~~~~~~~~~~~~~~~~~~~~
// Every step goes the way of Keras's optimizer under tf.distribute (Note [One distribution
// interface] in src/distribute/strategy.cpp):
//   1. in a replica function of a strategy, the gradients are summed over the replicas
//      (ReplicaContext::all_reduce: one pack per dtype), then clipped (Keras clips the sums);
//   2. each variable is updated through strategy.extended().update(var, fn): a plain variable
//      once, a mirrored one on this replica's component in a replica function (every replica
//      applies the same summed gradient to its own copy: the copies stay bit-identical), on
//      every component in the cross-replica context;
//   3. iterations() grows by one per step: in a replica function through merge_call, which runs
//      once when every replica has reached it, after every replica read the step it applies (a
//      replica running ahead into its next step cannot read a count not yet advanced).
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
  if (replica == nullptr) {
    // One thread: the step holds the lock throughout.
    clip_gradients(updates);
    std::lock_guard<std::mutex> lock(mutex_);
    const double lr = learning_rate_.at(iterations_);
    const std::int64_t step = iterations_ + 1;
    for (const auto& [g, v] : updates) apply_update(strategy, v, slots_for(v), g, lr, step);
    ++iterations_;
    return;
  }
  // Read before the collectives: every replica applies the same step.
  std::int64_t iterations = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    iterations = iterations_;
  }
  const double lr = learning_rate_.at(iterations);
  const std::int64_t step = iterations + 1;
  std::vector<Tensor> grads;
  std::vector<std::string> names;
  grads.reserve(updates.size());
  names.reserve(updates.size());
  for (const auto& [g, v] : updates) {
    grads.push_back(g);
    names.push_back(v.name());
  }
  const std::vector<Tensor> summed =
      skip_gradients_aggregation ? grads
                                 : replica->all_reduce(distribute::ReduceOp::kSum, grads, names);
  for (std::size_t i = 0; i < updates.size(); ++i) updates[i].first = summed[i];
  clip_gradients(updates);
  replica->merge_call([this] {
    std::lock_guard<std::mutex> lock(mutex_);
    ++iterations_;
  });
  for (const auto& [g, v] : updates) {
    std::vector<Variable> slots;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      slots = slots_for(v);
    }
    apply_update(strategy, v, slots, g, lr, step);
  }
}

void Optimizer::apply_update(const distribute::Strategy& strategy, const Variable& variable,
                             const std::vector<Variable>& slots, const Tensor& gradient,
                             double learning_rate, std::int64_t step) {
  if (!variable.is_mirrored()) {
    strategy.extended().update(variable, [&](const Variable& target) {
      apply_one(target, slots, gradient, learning_rate, step);
    });
    return;
  }
  // A mirrored variable's slots are mirrored over the same devices: the target component's
  // index picks theirs.
  const std::vector<Variable> components = variable.components();
  strategy.extended().update(variable, [&](const Variable& target) {
    std::size_t index = 0;
    while (index < components.size() && components[index].id() != target.id()) ++index;
    std::vector<Variable> target_slots;
    target_slots.reserve(slots.size());
    for (const Variable& s : slots) target_slots.push_back(s.components().at(index));
    // update() runs fn under a scope of the target's device: the gradient is copied there.
    const Tensor local = gradient.device() == target.device() ? gradient : identity(gradient);
    apply_one(target, target_slots, local, learning_rate, step);
  });
}

void Optimizer::clip_gradients(std::vector<std::pair<Tensor, Variable>>& updates) const {
  // Keras's order: clipnorm, global_clipnorm, clipvalue.
  if (clip_.clipnorm) {
    for (auto& [g, v] : updates) g = clip_by_norm(g, *clip_.clipnorm);
  }
  if (clip_.global_clipnorm) {
    Tensor total;
    for (auto& [g, v] : updates) {
      const Tensor s = cast(reduce_sum(g * g), kFloat32);
      total = total.defined() ? total + s : s;
    }
    const double norm = std::sqrt(static_cast<double>(total.item<float>()));
    const double scale =
        *clip_.global_clipnorm * std::min(1.0 / norm, 1.0 / *clip_.global_clipnorm);
    for (auto& [g, v] : updates) g = g * scale;
  }
  if (clip_.clipvalue) {
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
