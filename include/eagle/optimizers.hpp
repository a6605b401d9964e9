// Keras's optimizers (docs/guide.md, "Training: variables and gradient tapes", Optimizers):
// Keras's names and defaults, each step one fused op per variable on the variable's device.
// The classes compute Keras 3's update operation by operation (_KerasAdam, ... in the placement
// log); those in eagle::optimizers::legacy compute Keras 2's, on TensorFlow's kernels
// (ResourceApplyAdam, ...), as tf.keras.optimizers.legacy did.
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

// An optimizer's options at their defaults but the learning rate (what Adam(0.001) constructs).
template <class Options>
Options options_with_learning_rate(LearningRate learning_rate) {
  Options options;
  options.learning_rate = std::move(learning_rate);
  return options;
}

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
  // The same with the gradients and their variables side by side, as tape.gradient gives them
  // (Python's zip(grads, vars)); a count that differs is InvalidArgumentError, raised before any
  // variable changes.
  void apply_gradients(const std::vector<std::optional<Tensor>>& gradients,
                       const std::vector<Variable>& variables,
                       bool skip_gradients_aggregation = false);
  // Keras 3's name for the form above: optimizer.apply(grads, trainable_variables).
  void apply(const std::vector<std::optional<Tensor>>& gradients,
             const std::vector<Variable>& variables) {
    apply_gradients(gradients, variables);
  }
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
// Keras SGD: var -= lr * g; with momentum, ResourceApplyKerasMomentum (Keras 2 and 3 compute the
// same sequence).
class SGD : public Optimizer {
 public:
  explicit SGD(SGDOptions options = {});
  // SGD(0.1), SGD(schedule): Keras's first positional argument, the learning rate.
  explicit SGD(double learning_rate) : SGD(options_with_learning_rate<SGDOptions>(learning_rate)) {}
  explicit SGD(std::function<double(std::int64_t)> schedule)
      : SGD(options_with_learning_rate<SGDOptions>(std::move(schedule))) {}

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
// Keras Adam (_KerasAdam; legacy::Adam: ResourceApplyAdam). epsilon is Keras's "epsilon hat":
// with alpha = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t), var -= m * alpha / (sqrt(v) + epsilon),
// so it is added to the root of the uncorrected v (PyTorch's goes with the bias-corrected moments).
class Adam : public Optimizer {
 public:
  explicit Adam(AdamOptions options = {});
  explicit Adam(double learning_rate)
      : Adam(options_with_learning_rate<AdamOptions>(learning_rate)) {}
  explicit Adam(std::function<double(std::int64_t)> schedule)
      : Adam(options_with_learning_rate<AdamOptions>(std::move(schedule))) {}

 protected:
  Adam(AdamOptions options, bool legacy);
  Adam(std::string name, AdamOptions options);
  std::vector<std::string> slot_names() const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  AdamOptions options_;
  bool legacy_ = false;
};

struct RMSpropOptions {
  LearningRate learning_rate = 0.001;
  double rho = 0.9;
  double momentum = 0.0;
  double epsilon = 1e-7;
  bool centered = false;
  ClipOptions clip;
};
// Keras RMSprop (_KerasRMSprop / _KerasCenteredRMSprop: var -= lr * g / sqrt(v + epsilon);
// legacy::RMSprop: ResourceApplyRMSProp / ResourceApplyCenteredRMSProp with momentum, Keras 2's
// var -= lr * g / (sqrt(v) + epsilon) without).
class RMSprop : public Optimizer {
 public:
  explicit RMSprop(RMSpropOptions options = {});
  explicit RMSprop(double learning_rate)
      : RMSprop(options_with_learning_rate<RMSpropOptions>(learning_rate)) {}
  explicit RMSprop(std::function<double(std::int64_t)> schedule)
      : RMSprop(options_with_learning_rate<RMSpropOptions>(std::move(schedule))) {}

 protected:
  RMSprop(RMSpropOptions options, bool legacy);
  std::vector<std::string> slot_names() const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  RMSpropOptions options_;
  bool legacy_ = false;
};

struct AdagradOptions {
  LearningRate learning_rate = 0.001;
  double initial_accumulator_value = 0.1;
  double epsilon = 1e-7;
  ClipOptions clip;
};
// Keras Adagrad (_KerasAdagrad: var -= lr * g / sqrt(accumulator + epsilon); legacy::Adagrad:
// ResourceApplyAdagradV2, var -= lr * g / (sqrt(accumulator) + epsilon)).
class Adagrad : public Optimizer {
 public:
  explicit Adagrad(AdagradOptions options = {});
  explicit Adagrad(double learning_rate)
      : Adagrad(options_with_learning_rate<AdagradOptions>(learning_rate)) {}
  explicit Adagrad(std::function<double(std::int64_t)> schedule)
      : Adagrad(options_with_learning_rate<AdagradOptions>(std::move(schedule))) {}

 protected:
  Adagrad(AdagradOptions options, bool legacy);
  std::vector<std::string> slot_names() const override;
  double slot_initial_value(const std::string& slot) const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  AdagradOptions options_;
  bool legacy_ = false;
};

struct AdamWOptions {
  LearningRate learning_rate = 0.001;
  double weight_decay = 0.004;
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  bool amsgrad = false;
  ClipOptions clip;
};
// Keras AdamW: Adam after a decoupled weight decay, var -= var * weight_decay * lr (Keras 3's
// order: the decay first, then the Adam step, both on the variable's device).
class AdamW : public Adam {
 public:
  explicit AdamW(AdamWOptions options = {});
  explicit AdamW(double learning_rate)
      : AdamW(options_with_learning_rate<AdamWOptions>(learning_rate)) {}

 protected:
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  double weight_decay_;
};

struct AdamaxOptions {
  LearningRate learning_rate = 0.001;
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  ClipOptions clip;
};
// Keras Adamax (_KerasAdamax), slots "momentum" and "norm": Adam with the infinity norm.
class Adamax : public Optimizer {
 public:
  explicit Adamax(AdamaxOptions options = {});
  explicit Adamax(double learning_rate)
      : Adamax(options_with_learning_rate<AdamaxOptions>(learning_rate)) {}

 protected:
  std::vector<std::string> slot_names() const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  AdamaxOptions options_;
};

struct NadamOptions {
  LearningRate learning_rate = 0.001;
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  ClipOptions clip;
};
// Keras Nadam (_KerasNadam), slots "momentum" and "velocity": Adam with Nesterov momentum and
// Keras's momentum schedule u_t = beta_1 * (1 - 0.5 * 0.96^t), whose running product the optimizer
// keeps (in the dtype of the first variable it updates, as Keras's u_product variable).
class Nadam : public Optimizer {
 public:
  explicit Nadam(NadamOptions options = {});
  explicit Nadam(double learning_rate)
      : Nadam(options_with_learning_rate<NadamOptions>(learning_rate)) {}

 protected:
  std::vector<std::string> slot_names() const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  // The product of u_1 .. u_step, advanced once per step whatever the number of variables.
  double u_product_at(std::int64_t step, DType dtype);

  NadamOptions options_;
  std::mutex u_mutex_;
  std::optional<DType> u_dtype_;
  std::int64_t u_step_ = 0;
  double u_product_ = 1.0;
};

struct AdadeltaOptions {
  LearningRate learning_rate = 0.001;
  double rho = 0.95;
  double epsilon = 1e-7;
  ClipOptions clip;
};
// Keras Adadelta (_KerasAdadelta), slots "accumulated_grad" and "accumulated_delta_var".
class Adadelta : public Optimizer {
 public:
  explicit Adadelta(AdadeltaOptions options = {});
  explicit Adadelta(double learning_rate)
      : Adadelta(options_with_learning_rate<AdadeltaOptions>(learning_rate)) {}

 protected:
  std::vector<std::string> slot_names() const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  AdadeltaOptions options_;
};

struct LionOptions {
  LearningRate learning_rate = 0.001;
  double beta_1 = 0.9;
  double beta_2 = 0.99;
  ClipOptions clip;
};
// Keras Lion (_KerasLion), slot "momentum": var -= lr * sign(interpolated momentum). beta_1
// outside (0, 1] is Keras's InvalidArgumentError (it would make Lion SignSGD).
class Lion : public Optimizer {
 public:
  explicit Lion(LionOptions options = {});
  explicit Lion(double learning_rate)
      : Lion(options_with_learning_rate<LionOptions>(learning_rate)) {}

 protected:
  std::vector<std::string> slot_names() const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  LionOptions options_;
};

// Keras 2's arithmetic (tf.keras.optimizers.legacy in TensorFlow 2.11 to 2.15): TensorFlow's
// ResourceApply* kernels and Keras 2's constants, for reproducing a Keras 2 run. Same names,
// options, slots and behaviour as the classes above; only the update's arithmetic differs
// (docs/guide.md, "Matching Keras step for step").
namespace legacy {
using SGD = optimizers::SGD;  // Keras 2 and 3 compute SGD alike
class Adam : public optimizers::Adam {
 public:
  explicit Adam(AdamOptions options = {}) : optimizers::Adam(std::move(options), true) {}
};
class RMSprop : public optimizers::RMSprop {
 public:
  explicit RMSprop(RMSpropOptions options = {}) : optimizers::RMSprop(std::move(options), true) {}
};
class Adagrad : public optimizers::Adagrad {
 public:
  explicit Adagrad(AdagradOptions options = {}) : optimizers::Adagrad(std::move(options), true) {}
};
}  // namespace legacy

}  // namespace eagle::optimizers
