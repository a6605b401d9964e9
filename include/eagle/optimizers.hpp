// Keras 2's optimizers (docs/guide.md, "Training: variables and gradient tapes", Optimizers):
// names, defaults and update formulas, each step one fused op per variable on the variable's
// device (ResourceApplyAdam, ... in the placement log).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eagle/tensor.hpp"
#include "eagle/variable.hpp"

namespace eagle::distribute {
class Strategy;
}

namespace eagle::optimizers {

// A learning rate: a number, or a schedule of the step (the optimizer's iterations before the
// update), as Keras's LearningRateSchedule.
class LearningRate {
 public:
  LearningRate(double value) : value_(value) {}               // NOLINT: implicit by design
  LearningRate(std::function<double(std::int64_t)> schedule)  // NOLINT: implicit by design
      : schedule_(std::move(schedule)) {}
  double at(std::int64_t step) const { return schedule_ ? schedule_(step) : value_; }

 private:
  double value_ = 0;
  std::function<double(std::int64_t)> schedule_;
};

namespace schedules {
// Keras's ExponentialDecay: initial * decay_rate^(step / decay_steps), the exponent floored
// when staircase.
std::function<double(std::int64_t)> ExponentialDecay(double initial_learning_rate,
                                                     std::int64_t decay_steps, double decay_rate,
                                                     bool staircase = false);
// Keras's PiecewiseConstantDecay: values[i] while step <= boundaries[i] (values has one more).
std::function<double(std::int64_t)> PiecewiseConstantDecay(std::vector<std::int64_t> boundaries,
                                                           std::vector<double> values);
}  // namespace schedules

// Gradient clipping, Keras's options: per variable by norm, per element by value, or all
// gradients together by their global norm (at most one of the two norms).
struct ClipOptions {
  std::optional<double> clipnorm;
  std::optional<double> clipvalue;
  std::optional<double> global_clipnorm;
};

using GradientAndVariable = std::pair<std::optional<Tensor>, Variable>;

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One step: each variable with a gradient is updated (a std::nullopt gradient skips its
  // variable, with Keras's warning; when none has one, InvalidArgumentError with Keras's
  // text). A gradient of another shape or dtype than its variable is InvalidArgumentError
  // naming the variable, raised before any variable changes. Then iterations() grows by 1.
  // Under a strategy (Note [One update path] in src/optimizers/optimizer.cpp): inside a replica
  // function, the replicas' gradients are summed across replicas first (every replica must pass
  // the same variables) and each replica updates its own components, iterations() growing by 1
  // per step; outside one, the same update is applied to every component of a mirrored
  // variable. A variable that is not the running strategy's is InvalidArgumentError inside a
  // replica function.
  // skip_gradients_aggregation (Keras 2.11's): in a replica function, the gradients are already
  // the replicas' sum (the caller all-reduced them, to clip the sums in a custom train_step): they
  // are applied as given.
  void apply_gradients(const std::vector<GradientAndVariable>& grads_and_vars,
                       bool skip_gradients_aggregation = false);
  // Records loss() on a tape, differentiates it with respect to `variables` and applies.
  void minimize(const std::function<Tensor()>& loss, const std::vector<Variable>& variables);

  std::int64_t iterations() const;
  // The learning rate of the next step.
  double learning_rate() const;
  const std::string& name() const { return name_; }
  // The slots of a variable (Keras's get_slot): "m", "v", "momentum", "rms", ...
  Variable get_slot(const Variable& variable, const std::string& slot_name) const;

 protected:
  Optimizer(std::string name, LearningRate learning_rate, ClipOptions clip);
  // The slot names this optimizer keeps per variable, and their initial value.
  virtual std::vector<std::string> slot_names() const = 0;
  virtual double slot_initial_value(const std::string& /*slot*/) const { return 0.0; }
  // Runs the fused update of one variable (its slots in slot_names() order) at `step` (1-based).
  virtual void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                         const Tensor& gradient, double learning_rate, std::int64_t step) = 0;

 private:
  static std::uint64_t slot_key(const Variable& variable);
  const std::vector<Variable>& slots_for(const Variable& variable);
  void clip_gradients(std::vector<std::pair<Tensor, Variable>>& updates) const;
  // Step 2 of Note [One update path] (src/optimizers/optimizer.cpp) for one variable.
  void apply_update(const distribute::Strategy& strategy, const Variable& variable,
                    const std::vector<Variable>& slots, const Tensor& gradient,
                    double learning_rate, std::int64_t step);

  std::string name_;
  LearningRate learning_rate_;
  ClipOptions clip_;
  mutable std::mutex mutex_;  // slots and iterations: one step at a time
  std::int64_t iterations_ = 0;
  std::map<std::uint64_t, std::vector<Variable>> slots_;
};

struct SGDOptions {
  LearningRate learning_rate = 0.01;
  double momentum = 0.0;
  bool nesterov = false;
  ClipOptions clip;
};
// Keras SGD: var -= lr * g; with momentum, ResourceApplyKerasMomentum.
class SGD : public Optimizer {
 public:
  explicit SGD(SGDOptions options = {});

 protected:
  std::vector<std::string> slot_names() const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  SGDOptions options_;
};

struct AdamOptions {
  LearningRate learning_rate = 0.001;
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  bool amsgrad = false;
  ClipOptions clip;
};
// Keras Adam (ResourceApplyAdam). epsilon is Keras's "epsilon hat": with
// lr_t = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t), var -= lr_t * m / (sqrt(v) + epsilon), so it
// is added to the root of the uncorrected v (PyTorch's goes with the bias-corrected moments).
class Adam : public Optimizer {
 public:
  explicit Adam(AdamOptions options = {});

 protected:
  std::vector<std::string> slot_names() const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  AdamOptions options_;
};

struct RMSpropOptions {
  LearningRate learning_rate = 0.001;
  double rho = 0.9;
  double momentum = 0.0;
  double epsilon = 1e-7;
  bool centered = false;
  ClipOptions clip;
};
// Keras RMSprop (ResourceApplyRMSProp / ResourceApplyCenteredRMSProp).
class RMSprop : public Optimizer {
 public:
  explicit RMSprop(RMSpropOptions options = {});

 protected:
  std::vector<std::string> slot_names() const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  RMSpropOptions options_;
};

struct AdagradOptions {
  LearningRate learning_rate = 0.001;
  double initial_accumulator_value = 0.1;
  double epsilon = 1e-7;
  ClipOptions clip;
};
// Keras Adagrad (ResourceApplyAdagradV2).
class Adagrad : public Optimizer {
 public:
  explicit Adagrad(AdagradOptions options = {});

 protected:
  std::vector<std::string> slot_names() const override;
  double slot_initial_value(const std::string& slot) const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  AdagradOptions options_;
};

}  // namespace eagle::optimizers
