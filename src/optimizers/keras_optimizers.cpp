// The Keras optimizer classes: their slots and their one fused update op per variable, Keras
// 3's (Note [Keras 3 arithmetic] in kernels/optimizer_functors.hpp) or, for the legacy classes,
// TensorFlow's kernels as Keras 2 fed them.
#include <cmath>
#include <mutex>
#include <shared_mutex>

#include <fmt/format.h>

#include "core/python_repr.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
#include "eagle/optimizers.hpp"
#include "eagle/scope.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/dispatcher.hpp"
#include "runtime/flags.hpp"
#include "variables/variable_state.hpp"

namespace eagle::optimizers {
namespace {

// Runs `op` on the variable and its slots (resource inputs: pinned to the variable's device,
// written in place) with the gradient last, holding each one's lock for the update.
void run_update(opdefs::OpId op, const Variable& variable, const std::vector<Variable>& slots,
                std::size_t num_slots, const Tensor& gradient,
                const opdefs::OptimizerAttrs& attrs) {
  std::vector<std::unique_lock<std::shared_mutex>> locks;
  std::vector<Tensor> inputs;
  const auto add = [&](const Variable& v) {
    const auto& state = detail::VariableAccess::state(v);
    locks.emplace_back(state->mutex);
    inputs.push_back(state->buffer);
  };
  add(variable);
  for (std::size_t i = 0; i < num_slots; ++i) add(slots[i]);
  inputs.push_back(gradient);
  const int n = static_cast<int>(inputs.size());
  const opdefs::OpAttrs op_attrs{attrs};
  runtime::execute(runtime::OpCall{op, variable.dtype(), inputs.data(), n, nullptr, 0, op_attrs,
                                   false, (std::uint32_t{1} << (n - 1)) - 1},
                   nullptr);
}

}  // namespace

SGD::SGD(SGDOptions options)
    : Optimizer("SGD", options.learning_rate, options.clip, options.base),
      options_(std::move(options)) {}

std::vector<std::string> SGD::slot_names() const {
  if (options_.momentum > 0) return {"momentum"};
  return {};
}

void SGD::apply_one(const Variable& variable, const std::vector<Variable>& slots,
                    const Tensor& gradient, double learning_rate, std::int64_t) {
  opdefs::OptimizerAttrs a;
  a.lr = learning_rate;
  if (options_.momentum > 0) {
    a.momentum = options_.momentum;
    a.nesterov = options_.nesterov;
    run_update(opdefs::OpId::kResourceApplyKerasMomentum, variable, slots, 1, gradient, a);
  } else {
    run_update(opdefs::OpId::kResourceApplyGradientDescent, variable, slots, 0, gradient, a);
  }
}

Adam::Adam(AdamOptions options) : Adam(std::move(options), false) {}

Adam::Adam(AdamOptions options, bool legacy)
    : Optimizer("Adam", options.learning_rate, options.clip, options.base),
      options_(std::move(options)),
      legacy_(legacy) {}

Adam::Adam(std::string name, AdamOptions options)
    : Optimizer(std::move(name), options.learning_rate, options.clip, options.base),
      options_(std::move(options)) {}

std::vector<std::string> Adam::slot_names() const {
  if (legacy_)
    return options_.amsgrad ? std::vector<std::string>{"m", "v", "vhat"}
                            : std::vector<std::string>{"m", "v"};
  if (options_.amsgrad) return {"momentum", "velocity", "velocity_hat"};
  return {"momentum", "velocity"};
}

std::vector<std::vector<std::string>> Adam::slot_groups() const {
  // Keras 3: momentums and velocities together, then the velocity_hats.
  if (options_.amsgrad && !legacy_) return {{"momentum", "velocity"}, {"velocity_hat"}};
  return Optimizer::slot_groups();
}

void Adam::apply_one(const Variable& variable, const std::vector<Variable>& slots,
                     const Tensor& gradient, double learning_rate, std::int64_t step) {
  opdefs::OptimizerAttrs a;
  a.lr = learning_rate;
  a.beta1 = options_.beta_1;
  a.beta2 = options_.beta_2;
  a.beta1_power = std::pow(options_.beta_1, static_cast<double>(step));  // Keras 2's
  a.beta2_power = std::pow(options_.beta_2, static_cast<double>(step));
  a.step = step;  // Keras 3 takes the powers in the variable's dtype
  a.epsilon = options_.epsilon;
  if (legacy_) {
    run_update(options_.amsgrad ? opdefs::OpId::kResourceApplyAdamWithAmsgrad
                                : opdefs::OpId::kResourceApplyAdam,
               variable, slots, slots.size(), gradient, a);
  } else {
    run_update(options_.amsgrad ? opdefs::OpId::k_KerasAdamWithAmsgrad : opdefs::OpId::k_KerasAdam,
               variable, slots, slots.size(), gradient, a);
  }
}

RMSprop::RMSprop(RMSpropOptions options) : RMSprop(std::move(options), false) {}

RMSprop::RMSprop(RMSpropOptions options, bool legacy)
    : Optimizer("RMSprop", options.learning_rate, options.clip, options.base),
      options_(std::move(options)),
      legacy_(legacy) {}

std::vector<std::string> RMSprop::slot_names() const {
  // The fused op's input order: the squares' average, the gradients' average, the momentum.
  std::vector<std::string> names{legacy_ ? "rms" : "velocity"};
  if (options_.centered) names.push_back(legacy_ ? "mg" : "average_gradient");
  if (options_.momentum > 0) names.push_back("momentum");
  return names;
}

std::vector<std::vector<std::string>> RMSprop::slot_groups() const {
  if (legacy_) return Optimizer::slot_groups();
  // Keras 3 builds the velocities, then the momentums, then the average gradients.
  std::vector<std::vector<std::string>> groups{{"velocity"}};
  if (options_.momentum > 0) groups.push_back({"momentum"});
  if (options_.centered) groups.push_back({"average_gradient"});
  return groups;
}

void RMSprop::apply_one(const Variable& variable, const std::vector<Variable>& slots,
                        const Tensor& gradient, double learning_rate, std::int64_t) {
  opdefs::OptimizerAttrs a;
  a.lr = learning_rate;
  a.rho = options_.rho;
  a.momentum = options_.momentum;
  a.epsilon = options_.epsilon;
  opdefs::OpId op;
  if (legacy_) {
    op = options_.centered ? opdefs::OpId::kResourceApplyCenteredRMSProp
                           : opdefs::OpId::kResourceApplyRMSProp;
  } else {
    op = options_.centered ? opdefs::OpId::k_KerasCenteredRMSprop : opdefs::OpId::k_KerasRMSprop;
  }
  run_update(op, variable, slots, slots.size(), gradient, a);
}

Adagrad::Adagrad(AdagradOptions options) : Adagrad(std::move(options), false) {}

Adagrad::Adagrad(AdagradOptions options, bool legacy)
    : Optimizer("Adagrad", options.learning_rate, options.clip, options.base),
      options_(std::move(options)),
      legacy_(legacy) {}

std::vector<std::string> Adagrad::slot_names() const { return {"accumulator"}; }

double Adagrad::slot_initial_value(const std::string&) const {
  return options_.initial_accumulator_value;
}

void Adagrad::apply_one(const Variable& variable, const std::vector<Variable>& slots,
                        const Tensor& gradient, double learning_rate, std::int64_t) {
  opdefs::OptimizerAttrs a;
  a.lr = learning_rate;
  a.epsilon = options_.epsilon;
  run_update(legacy_ ? opdefs::OpId::kResourceApplyAdagradV2 : opdefs::OpId::k_KerasAdagrad,
             variable, slots, 1, gradient, a);
}

namespace {
BaseOptions with_weight_decay(BaseOptions base, double weight_decay) {
  base.weight_decay = weight_decay;
  return base;
}
}  // namespace

AdamW::AdamW(AdamWOptions options)
    : Adam("AdamW", AdamOptions{options.learning_rate, options.beta_1, options.beta_2,
                                options.epsilon, options.amsgrad, options.clip,
                                with_weight_decay(options.base, options.weight_decay)}) {}

Adamax::Adamax(AdamaxOptions options)
    : Optimizer("Adamax", options.learning_rate, options.clip, options.base),
      options_(std::move(options)) {}

std::vector<std::string> Adamax::slot_names() const { return {"momentum", "norm"}; }

void Adamax::apply_one(const Variable& variable, const std::vector<Variable>& slots,
                       const Tensor& gradient, double learning_rate, std::int64_t step) {
  opdefs::OptimizerAttrs a;
  a.lr = learning_rate;
  a.beta1 = options_.beta_1;
  a.beta2 = options_.beta_2;
  a.epsilon = options_.epsilon;
  a.step = step;
  run_update(opdefs::OpId::k_KerasAdamax, variable, slots, 2, gradient, a);
}

Nadam::Nadam(NadamOptions options)
    : Optimizer("Nadam", options.learning_rate, options.clip, options.base),
      options_(std::move(options)) {}

std::vector<std::string> Nadam::slot_names() const { return {"momentum", "velocity"}; }

void Nadam::build_own_variables(const Variable& first) {
  u_dtype_ = first.dtype() == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  auto cpu = device("/CPU:0");
  runtime::UnloggedOps unlogged;
  u_product_variable_ = detail::make_plain_variable(cast(constant(1.0), u_dtype_),
                                                    VariableOptions{name() + "/u_product", false});
}

double Nadam::u_product_at(std::int64_t step) {
  std::lock_guard<std::mutex> lock(u_mutex_);
  // Keras's _backend_update_step, once per step: u_product * beta_1 * (1 - 0.5 * 0.96^t), in
  // that order, rounded in u_product's dtype. A step counter restored to an earlier step
  // recomputes the product from the start.
  if (u_step_ > step) {
    u_step_ = 0;
    u_product_ = 1.0;
  }
  const auto advance = [&](auto zero) {
    using C = decltype(zero);
    const C factor = C{1} - C{0.5} * std::pow(static_cast<C>(0.96), static_cast<C>(u_step_ + 1));
    u_product_ =
        static_cast<double>(static_cast<C>(u_product_) * static_cast<C>(options_.beta_1) * factor);
  };
  if (u_step_ < step) {
    while (u_step_ < step) {
      if (u_dtype_ == DType::kFloat64) {
        advance(0.0);
      } else {
        advance(0.0f);
      }
      ++u_step_;
    }
    auto cpu = device("/CPU:0");
    runtime::UnloggedOps unlogged;
    u_product_variable_.assign(cast(constant(u_product_), u_dtype_));
  }
  return u_product_;
}

void Nadam::apply_one(const Variable& variable, const std::vector<Variable>& slots,
                      const Tensor& gradient, double learning_rate, std::int64_t step) {
  opdefs::OptimizerAttrs a;
  a.lr = learning_rate;
  a.beta1 = options_.beta_1;
  a.beta2 = options_.beta_2;
  a.epsilon = options_.epsilon;
  a.step = step;
  a.u_product = u_product_at(step);
  run_update(opdefs::OpId::k_KerasNadam, variable, slots, 2, gradient, a);
}

Adadelta::Adadelta(AdadeltaOptions options)
    : Optimizer("Adadelta", options.learning_rate, options.clip, options.base),
      options_(std::move(options)) {}

std::vector<std::string> Adadelta::slot_names() const {
  return {"accumulated_grad", "accumulated_delta_var"};
}

void Adadelta::apply_one(const Variable& variable, const std::vector<Variable>& slots,
                         const Tensor& gradient, double learning_rate, std::int64_t) {
  opdefs::OptimizerAttrs a;
  a.lr = learning_rate;
  a.rho = options_.rho;
  a.epsilon = options_.epsilon;
  run_update(opdefs::OpId::k_KerasAdadelta, variable, slots, 2, gradient, a);
}

Lion::Lion(LionOptions options)
    : Optimizer("Lion", options.learning_rate, options.clip, options.base),
      options_(std::move(options)) {
  if (options_.beta_1 <= 0 || options_.beta_1 > 1) {
    throw InvalidArgumentError(fmt::format(
        "Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates to "
        "SignSGD. Received: beta_1={}.",
        detail::python_float(options_.beta_1)));
  }
}

std::vector<std::string> Lion::slot_names() const { return {"momentum"}; }

void Lion::apply_one(const Variable& variable, const std::vector<Variable>& slots,
                     const Tensor& gradient, double learning_rate, std::int64_t) {
  opdefs::OptimizerAttrs a;
  a.lr = learning_rate;
  a.beta1 = options_.beta_1;
  a.beta2 = options_.beta_2;
  run_update(opdefs::OpId::k_KerasLion, variable, slots, 1, gradient, a);
}

Lamb::Lamb(LambOptions options)
    : Optimizer("Lamb", options.learning_rate, options.clip, options.base),
      options_(std::move(options)) {}

std::vector<std::string> Lamb::slot_names() const { return {"momentum", "velocity"}; }

void Lamb::apply_one(const Variable& variable, const std::vector<Variable>& slots,
                     const Tensor& gradient, double learning_rate, std::int64_t step) {
  // Keras 3's Lamb.update_step, op by op: the powers in the variable's dtype, 1 - beta rounded
  // once from Python's double.
  const Variable& m = slots[0];
  const Variable& v = slots[1];
  const bool wide = variable.dtype() == kFloat64;
  const auto power = [&](double beta) {
    return wide ? std::pow(beta, static_cast<double>(step))
                : static_cast<double>(std::pow(static_cast<float>(beta), static_cast<float>(step)));
  };
  const auto one_minus = [&](double x) {
    return wide ? 1.0 - x : static_cast<double>(1.0f - static_cast<float>(x));
  };
  const double beta_1_power = power(options_.beta_1);
  const double beta_2_power = power(options_.beta_2);
  const Tensor g = gradient;
  {
    const Tensor m0 = m.read_value();
    m.assign_add((g - m0) * scalar_like(g, 1.0 - options_.beta_1));
    const Tensor v0 = v.read_value();
    v.assign_add((square(g) - v0) * scalar_like(g, 1.0 - options_.beta_2));
  }
  const Tensor m_hat = m.read_value() / scalar_like(g, one_minus(beta_1_power));
  const Tensor v_sqrt = sqrt(v.read_value() / scalar_like(g, one_minus(beta_2_power))) +
                        scalar_like(g, options_.epsilon);
  const Tensor update = m_hat / v_sqrt;
  const Tensor value = variable.read_value();
  const Tensor w_norm = sqrt(reduce_sum(square(value)));
  const Tensor g_norm = sqrt(reduce_sum(square(update)));
  const Tensor one = ones_like(w_norm);
  const Tensor zero = zeros_like(w_norm);
  const Tensor ratio = where(w_norm > zero, where(g_norm > zero, w_norm / g_norm, one), one);
  variable.assign_sub(ratio * scalar_like(ratio, learning_rate) * update);
}

}  // namespace eagle::optimizers
