// The optimizer base (Keras 2's OptimizerV2): gradient checks and clipping, slots on their
// variable's device, iterations, learning-rate schedules.
#include <cmath>
#include <mutex>

#include <fmt/format.h>

#include "distribute/strategy_runtime.hpp"
#include "eagle/config.hpp"
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
  const auto& handle = detail::VariableAccess::handle(variable);
  if (handle && handle->mirrored) return handle->mirrored->components.front()->buffer.id();
  return variable.id();
}

const std::vector<Variable>& Optimizer::slots_for(const Variable& variable) {
  auto it = slots_.find(slot_key(variable));
  if (it != slots_.end()) return it->second;
  std::vector<Variable> slots;
  const std::string base = variable.name().substr(0, variable.name().rfind(':'));
  const auto& handle = detail::VariableAccess::handle(variable);
  if (handle->mirrored) {
    // Slots of a mirrored variable are mirrored over the same devices, whatever strategy scope
    // (or none) this step runs under: they cannot end up under another strategy than their
    // variable (tensorflow#41768).
    const detail::MirroredComponents& m = *handle->mirrored;
    for (const std::string& slot : slot_names()) {
      Tensor initial;
      {
        auto scope = device(m.devices.front());
        initial = fill(variable.shape(), slot_initial_value(slot), variable.dtype());
      }
      slots.push_back(detail::make_mirrored_variable(
          initial, VariableOptions{name_ + "/" + base + "/" + slot, false}, m.strategy_id,
          m.devices));
    }
  } else {
    // Slots live with their variable (SEMANTICS §10), whatever scope the step runs under.
    auto scope = device(variable.device());
    for (const std::string& slot : slot_names()) {
      slots.emplace_back(fill(variable.shape(), slot_initial_value(slot), variable.dtype()),
                         VariableOptions{name_ + "/" + base + "/" + slot, false});
    }
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

void Optimizer::apply_gradients(const std::vector<GradientAndVariable>& grads_and_vars) {
  distribute::detail::ReplicaThread* const replica = distribute::detail::current_replica_thread();
  // Check everything before any variable changes.
  std::vector<std::pair<Tensor, Variable>> updates;
  std::vector<std::string> missing;
  bool any_mirrored = false;
  for (const auto& [grad, var] : grads_and_vars) {
    if (!var.defined()) throw InvalidArgumentError("Use of an undefined eagle::Variable");
    if (replica != nullptr) check_replica_variable(*replica, var);
    any_mirrored = any_mirrored || var.is_mirrored();
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
  if (!missing.empty() && (replica == nullptr || replica->replica_id == 0)) {
    runtime::emit_log(debugging::LogLevel::kWarning,
                      fmt::format("Gradients do not exist for variables {} when minimizing the "
                                  "loss. If you're using `model.compile()`, did you forget to "
                                  "provide a `loss` argument?",
                                  names_of(missing)));
  }
  if (replica != nullptr) {
    apply_in_replica(*replica, updates);
    return;
  }
  clip_gradients(updates);
  std::lock_guard<std::mutex> lock(mutex_);
  const double lr = learning_rate_.at(iterations_);
  const std::int64_t step = iterations_ + 1;
  for (const auto& [g, v] : updates) {
    if (!any_mirrored || !v.is_mirrored()) {
      apply_one(v, slots_for(v), g, lr, step);
      continue;
    }
    // Outside a replica function: the same update on every component.
    const std::vector<Variable> components = v.components();
    const std::vector<Variable>& slots = slots_for(v);
    for (std::size_t i = 0; i < components.size(); ++i) {
      std::vector<Variable> component_slots;
      for (const Variable& s : slots) component_slots.push_back(s.components()[i]);
      const Variable& component = components[i];
      Tensor local = g;
      if (g.device() != component.device()) {
        auto scope = device(component.device());
        local = identity(g);
      }
      apply_one(component, component_slots, local, lr, step);
    }
  }
  ++iterations_;
}

void Optimizer::check_replica_variable(const distribute::detail::ReplicaThread& replica,
                                       const Variable& var) {
  const auto& handle = detail::VariableAccess::handle(var);
  if (handle->mirrored && handle->mirrored->strategy_id == replica.runtime->id()) return;
  throw InvalidArgumentError(fmt::format(
      "apply_gradients in replica {} on {}: variable '{}' was not created under this "
      "MirroredStrategy's scope(), so its replicas cannot update it in sync. Create it (the model) "
      "inside `with strategy.scope()`: auto scope = strategy.scope();",
      replica.replica_id, replica.context.device(), var.name()));
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

// In a replica function (Note [Mirrored variables and the all-reduce rendezvous]): all-reduce the
// gradients (sum), clip the sums (Keras clips after aggregation), update this replica's
// components on this thread.
void Optimizer::apply_in_replica(distribute::detail::ReplicaThread& replica,
                                 std::vector<std::pair<Tensor, Variable>>& updates) {
  // Read before the rendezvous, which advances iterations once all replicas have arrived: every
  // replica sees the same step.
  std::int64_t iterations = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    iterations = iterations_;
  }
  const double lr = learning_rate_.at(iterations);
  const std::int64_t step = iterations + 1;
  std::vector<Tensor> grads;
  std::vector<std::string> names;
  for (const auto& [g, v] : updates) {
    grads.push_back(g);
    names.push_back(v.name());
  }
  const std::vector<Tensor> reduced =
      distribute::detail::all_reduce_gradients(replica, grads, names, [this] {
        std::lock_guard<std::mutex> lock(mutex_);
        ++iterations_;
      });
  for (std::size_t i = 0; i < updates.size(); ++i) updates[i].first = reduced[i];
  clip_gradients(updates);
  const auto r = static_cast<std::size_t>(replica.replica_id);
  for (const auto& [g, v] : updates) {
    std::vector<Variable> component_slots;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const Variable& s : slots_for(v)) {
        component_slots.push_back(detail::VariableAccess::wrap(
            detail::VariableAccess::handle(s)->mirrored->components[r]));
      }
    }
    const Variable component =
        detail::VariableAccess::wrap(detail::VariableAccess::handle(v)->mirrored->components[r]);
    apply_one(component, component_slots, g, lr, step);
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
