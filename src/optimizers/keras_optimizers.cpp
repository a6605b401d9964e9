// SGD, Adam, RMSprop and Adagrad: their slots and their one fused update op per variable.
#include <cmath>
#include <mutex>
#include <shared_mutex>

#include "eagle/optimizers.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/dispatcher.hpp"
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
    : Optimizer("SGD", options.learning_rate, options.clip), options_(std::move(options)) {}

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

Adam::Adam(AdamOptions options)
    : Optimizer("Adam", options.learning_rate, options.clip), options_(std::move(options)) {}

std::vector<std::string> Adam::slot_names() const {
  if (options_.amsgrad) return {"m", "v", "vhat"};
  return {"m", "v"};
}

void Adam::apply_one(const Variable& variable, const std::vector<Variable>& slots,
                     const Tensor& gradient, double learning_rate, std::int64_t step) {
  opdefs::OptimizerAttrs a;
  a.lr = learning_rate;
  a.beta1 = options_.beta_1;
  a.beta2 = options_.beta_2;
  a.beta1_power = std::pow(options_.beta_1, static_cast<double>(step));
  a.beta2_power = std::pow(options_.beta_2, static_cast<double>(step));
  a.epsilon = options_.epsilon;
  if (options_.amsgrad) {
    run_update(opdefs::OpId::kResourceApplyAdamWithAmsgrad, variable, slots, 3, gradient, a);
  } else {
    run_update(opdefs::OpId::kResourceApplyAdam, variable, slots, 2, gradient, a);
  }
}

RMSprop::RMSprop(RMSpropOptions options)
    : Optimizer("RMSprop", options.learning_rate, options.clip), options_(std::move(options)) {}

std::vector<std::string> RMSprop::slot_names() const {
  std::vector<std::string> names{"rms"};
  if (options_.centered) names.push_back("mg");
  if (options_.momentum > 0) names.push_back("momentum");
  return names;
}

void RMSprop::apply_one(const Variable& variable, const std::vector<Variable>& slots,
                        const Tensor& gradient, double learning_rate, std::int64_t) {
  opdefs::OptimizerAttrs a;
  a.lr = learning_rate;
  a.rho = options_.rho;
  a.momentum = options_.momentum;
  a.epsilon = options_.epsilon;
  run_update(options_.centered ? opdefs::OpId::kResourceApplyCenteredRMSProp
                               : opdefs::OpId::kResourceApplyRMSProp,
             variable, slots, slots.size(), gradient, a);
}

Adagrad::Adagrad(AdagradOptions options)
    : Optimizer("Adagrad", options.learning_rate, options.clip), options_(std::move(options)) {}

std::vector<std::string> Adagrad::slot_names() const { return {"accumulator"}; }

double Adagrad::slot_initial_value(const std::string&) const {
  return options_.initial_accumulator_value;
}

void Adagrad::apply_one(const Variable& variable, const std::vector<Variable>& slots,
                        const Tensor& gradient, double learning_rate, std::int64_t) {
  opdefs::OptimizerAttrs a;
  a.lr = learning_rate;
  a.epsilon = options_.epsilon;
  run_update(opdefs::OpId::kResourceApplyAdagradV2, variable, slots, 1, gradient, a);
}

}  // namespace eagle::optimizers
