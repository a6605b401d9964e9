// Keras's optimizers (docs/guide.md, "Training: variables and gradient tapes", Optimizers):
// Keras's names and defaults, each step one fused op per variable on the variable's device.
// The classes compute Keras 3's update operation by operation (_KerasAdam, ... in the placement
// log); those in eagle::optimizers::legacy compute Keras 2's, on TensorFlow's kernels
// (ResourceApplyAdam, ...), as tf.keras.optimizers.legacy did.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eagle/io/json.hpp"
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
  bool scheduled() const { return static_cast<bool>(schedule_); }
  const std::function<double(std::int64_t)>& schedule() const { return schedule_; }

 private:
  double value_ = 0;
  std::function<double(std::int64_t)> schedule_;
};

namespace schedules {
// Keras 3's schedules, computed as Keras computes them: in float32 (the dtype of the initial
// learning rate), operation by operation. A decay_steps <= 0 is Keras's InvalidArgumentError.

// initial * decay_rate^(step / decay_steps), the exponent floored when staircase.
std::function<double(std::int64_t)> ExponentialDecay(double initial_learning_rate,
                                                     std::int64_t decay_steps, double decay_rate,
                                                     bool staircase = false);
// values[i] while step <= boundaries[i] (values has one more).
std::function<double(std::int64_t)> PiecewiseConstantDecay(std::vector<std::int64_t> boundaries,
                                                           std::vector<double> values);
// initial / (1 + decay_rate * step / decay_steps), the quotient floored when staircase.
std::function<double(std::int64_t)> InverseTimeDecay(double initial_learning_rate,
                                                     std::int64_t decay_steps, double decay_rate,
                                                     bool staircase = false);
// (initial - end) * (1 - step / decay_steps)^power + end, the step held at decay_steps, or with
// cycle the decay_steps stretched to the next multiple above the step.
std::function<double(std::int64_t)> PolynomialDecay(double initial_learning_rate,
                                                    std::int64_t decay_steps,
                                                    double end_learning_rate = 0.0001,
                                                    double power = 1.0, bool cycle = false);
// initial * ((1 - alpha) * 0.5 * (1 + cos(pi * step / decay_steps)) + alpha), the step held at
// decay_steps; with a warmup_target, first warmup_steps of linear warmup from initial to
// warmup_target, which the decay then starts from.
std::function<double(std::int64_t)> CosineDecay(double initial_learning_rate,
                                                std::int64_t decay_steps, double alpha = 0.0,
                                                std::optional<double> warmup_target = std::nullopt,
                                                std::int64_t warmup_steps = 0);
// SGDR (Loshchilov and Hutter): cosine decay restarting after first_decay_steps, each period
// t_mul times longer and m_mul times lower than the one before.
std::function<double(std::int64_t)> CosineDecayRestarts(double initial_learning_rate,
                                                        std::int64_t first_decay_steps,
                                                        double t_mul = 2.0, double m_mul = 1.0,
                                                        double alpha = 0.0);

// keras.optimizers.schedules.serialize: {"module": "keras.optimizers.schedules", "class_name":
// "ExponentialDecay", "config": {...}, "registered_name": null} of a schedule made by the
// functions above (Keras's keys and names); std::nullopt for any other function.
std::optional<io::Json> serialize(const std::function<double(std::int64_t)>& schedule);
// keras.optimizers.schedules.deserialize: the schedule such an object describes. A missing or
// mistyped argument is InvalidArgumentError, another class UnimplementedError (Keras's "Could
// not locate class" text).
std::function<double(std::int64_t)> deserialize(const io::Json& serialized);
}  // namespace schedules

// Gradient clipping, Keras's options: per variable by norm, per element by value, or all
// gradients together by their global norm (at most one of the two norms).
struct ClipOptions {
  std::optional<double> clipnorm;
  std::optional<double> clipvalue;
  std::optional<double> global_clipnorm;
};

// Keras 3's arguments of every optimizer (BaseOptimizer) besides the learning rate and the clip
// options: decoupled weight decay, an exponential moving average of the variables, and gradient
// accumulation (docs/guide.md, "Optimizers").
struct BaseOptions {
  // var -= var * weight_decay * lr before each update, for every variable not excluded by
  // Optimizer::exclude_from_weight_decay.
  std::optional<double> weight_decay;
  // Keeps average = m * average + (1 - m) * var after every step (m = ema_momentum, 0 at the
  // first step); every ema_overwrite_frequency steps, or at finalize_variable_values() (fit calls
  // it after the last epoch), the variables take their averages.
  bool use_ema = false;
  double ema_momentum = 0.99;
  std::optional<std::int64_t> ema_overwrite_frequency;
  // Sums the gradients of this many apply_gradients calls and updates on the last, with their
  // mean; iterations() counts updates.
  std::optional<std::int64_t> gradient_accumulation_steps;
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

  // The updates made so far (Keras's `iterations`: with gradient accumulation, the calls divided
  // by gradient_accumulation_steps).
  std::int64_t iterations() const;
  // The learning rate of the next step: a number is kept as Keras keeps it, in a float32
  // variable (Adam(0.001).learning_rate() is 0.0010000000474974513); a schedule's value at the
  // calls made so far.
  double learning_rate() const;
  // Keras's `optimizer.learning_rate = x`; an optimizer made with a schedule refuses it
  // (InvalidArgumentError with Keras's text).
  void set_learning_rate(double learning_rate);
  const std::string& name() const { return name_; }
  // The slots of a variable: Keras 3's names ("momentum", "velocity", "velocity_hat",
  // "average_gradient", ...; the legacy classes Keras 2's "m", "v", "vhat", "rms", "mg"), and
  // "average" (use_ema) and "gradient_accumulator".
  Variable get_slot(const Variable& variable, const std::string& slot_name) const;
  // Keras's optimizer.variables: the step counter "iteration" (int64), the "learning_rate"
  // (unless a schedule), then the moving averages, the gradient accumulators and each variable's
  // slots, in the order the variables were first passed. What a checkpoint saves.
  std::vector<Variable> variables() const;
  // Keras's optimizer.build(var_list): makes the state of each variable (its slots, average and
  // accumulator) now, as the first step would, in the order given; variables already built are
  // skipped. load_weights builds a compiled model's optimizer this way to take a file's state.
  void build(const std::vector<Variable>& var_list);
  // Keras's optimizer.built: some variable's state has been made.
  bool built() const;
  // Keras's exclude_from_weight_decay: these variables, and those whose name contains a match of
  // one of var_names (regular expressions, as Keras's re.search), are not decayed. Only before
  // the first step (InvalidArgumentError after, Keras's text).
  void exclude_from_weight_decay(const std::vector<Variable>& var_list = {},
                                 const std::vector<std::string>& var_names = {});
  // With use_ema, the variables take their moving averages (fit calls it after the last epoch).
  // var_list must be every variable the optimizer has updated, in the order first passed.
  void finalize_variable_values(const std::vector<Variable>& var_list);

  // Keras's optimizer.get_config(): the constructor's arguments by Keras 3's names and in its
  // order: "name" (Keras's: "adam", "rm_sprop"), "learning_rate" (the float32 value now, or the
  // schedule serialized), "weight_decay", the clip options, the EMA, "loss_scale_factor" (null),
  // "gradient_accumulation_steps", then the class's own ("beta_1", ...). A learning-rate function
  // not made by schedules:: has no configuration: UnimplementedError, as Keras's
  // NotImplementedError for a schedule without get_config. The legacy classes give their Keras 3
  // class's.
  virtual io::Json get_config() const;

  // What a checkpoint saves and restores (eagle/train/checkpoint.hpp): the step counter, the
  // learning rate's variable (undefined for a schedule), and each variable the optimizer keeps
  // state for with its slots by name (slot_names(), "average", "gradient_accumulator").
  Variable iterations_variable() const { return iterations_; }
  Variable learning_rate_variable() const { return learning_rate_variable_; }
  std::vector<std::pair<Variable, std::vector<std::pair<std::string, Variable>>>> slot_variables()
      const;
  // Values for the slots of `variable`, by slot name: assigned now when the slots exist, else
  // their initial values when the first step that passes `variable` makes them (TensorFlow's
  // deferred restoration of slots). A value of another shape or dtype: InvalidArgumentError.
  void restore_slots(const Variable& variable, const std::map<std::string, Tensor>& values);

 protected:
  Optimizer(std::string name, LearningRate learning_rate, ClipOptions clip, BaseOptions base);
  // The slot names this optimizer keeps per variable, and their initial value.
  virtual std::vector<std::string> slot_names() const = 0;
  virtual double slot_initial_value(const std::string& /*slot*/) const { return 0.0; }
  // The order of variables() (Keras's build): groups of slot names, each group's slots
  // interleaved variable by variable (Keras's add_optimizer_variables(var_list, names)), one
  // group after another. Default: all of slot_names() in one group.
  virtual std::vector<std::vector<std::string>> slot_groups() const { return {slot_names()}; }
  // State of the optimizer's own beyond the slots (Nadam's u_product), made when the first
  // variable is built (under the optimizer's lock) and listed last in variables(), as Keras's.
  virtual void build_own_variables(const Variable& /*first*/) {}
  virtual std::vector<Variable> own_variables() const { return {}; }
  // Runs the fused update of one variable (its slots in slot_names() order) at `step` (1-based).
  virtual void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                         const Tensor& gradient, double learning_rate, std::int64_t step) = 0;

 private:
  // What the base class keeps per variable besides the subclass's slots.
  struct Tracked {
    Variable variable;
    std::vector<Variable> slots;  // slot_names() order
    Variable average;             // use_ema
    Variable accumulator;         // gradient_accumulation_steps
    bool decayed = true;          // not excluded from weight decay
  };
  static std::uint64_t slot_key(const Variable& variable);
  // The variable's record, made (slots included) the first time it is passed. Holds mutex_.
  Tracked& track(const Variable& variable);
  std::int64_t calls() const;  // apply_gradients calls so far (Keras's _iterations)
  double learning_rate_at(std::int64_t calls) const;
  void clip_gradients(std::vector<std::pair<Tensor, Variable>>& updates) const;
  // Runs fn(target, companions) on each component of `variable` the strategy updates, with the
  // same components of the companion variables (its slots, average, accumulator).
  void update_with(
      const distribute::Strategy& strategy, const Variable& variable,
      const std::vector<Variable>& companions,
      const std::function<void(const Variable&, const std::vector<Variable>&)>& fn) const;
  // Adds the gradients to the accumulators; on the last call of a cycle, replaces each gradient
  // by the mean and zeroes the accumulator. False when no update runs this call.
  bool accumulate(const distribute::Strategy& strategy,
                  std::vector<std::pair<Tensor, Variable>>& updates,
                  const std::vector<Tracked*>& records, std::int64_t calls);
  void update_moving_averages(const distribute::Strategy& strategy, std::int64_t calls,
                              const std::vector<const Tracked*>& all) const;

  std::string name_;
  LearningRate learning_rate_;
  ClipOptions clip_;
  BaseOptions base_;
  std::vector<Variable> excluded_from_decay_;
  std::vector<std::string> excluded_names_;
  mutable std::mutex mutex_;                    // the records and the counters: one step at a time
  Variable iterations_;                         // int64, Keras's _iterations: the calls made
  Variable learning_rate_variable_;             // float32, for a number learning rate
  std::map<std::uint64_t, std::size_t> index_;  // slot_key -> tracked_ index
  // Slot values restored before their slots exist: slot_key -> slot name -> value.
  std::map<std::uint64_t, std::map<std::string, Tensor>> pending_slots_;
  std::deque<Tracked> tracked_;  // first-passed order (a deque: records stay where they are)
};

struct SGDOptions {
  LearningRate learning_rate = 0.01;
  double momentum = 0.0;
  bool nesterov = false;
  ClipOptions clip;
  BaseOptions base;
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
  io::Json get_config() const override;

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
  BaseOptions base;
};
// Keras Adam (_KerasAdam, slots "momentum", "velocity", "velocity_hat"; legacy::Adam:
// ResourceApplyAdam, slots "m", "v", "vhat"). epsilon is Keras's "epsilon hat":
// with alpha = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t), var -= m * alpha / (sqrt(v) + epsilon),
// so it is added to the root of the uncorrected v (PyTorch's goes with the bias-corrected moments).
class Adam : public Optimizer {
 public:
  explicit Adam(AdamOptions options = {});
  explicit Adam(double learning_rate)
      : Adam(options_with_learning_rate<AdamOptions>(learning_rate)) {}
  explicit Adam(std::function<double(std::int64_t)> schedule)
      : Adam(options_with_learning_rate<AdamOptions>(std::move(schedule))) {}
  io::Json get_config() const override;

 protected:
  Adam(AdamOptions options, bool legacy);
  Adam(std::string name, AdamOptions options);
  std::vector<std::string> slot_names() const override;
  std::vector<std::vector<std::string>> slot_groups() const override;
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
  BaseOptions base;
};
// Keras RMSprop (_KerasRMSprop / _KerasCenteredRMSprop: var -= lr * g / sqrt(v + epsilon); slots
// "velocity", "average_gradient", "momentum" (legacy: "rms", "mg", "momentum");
// legacy::RMSprop: ResourceApplyRMSProp / ResourceApplyCenteredRMSProp with momentum, Keras 2's
// var -= lr * g / (sqrt(v) + epsilon) without).
class RMSprop : public Optimizer {
 public:
  explicit RMSprop(RMSpropOptions options = {});
  explicit RMSprop(double learning_rate)
      : RMSprop(options_with_learning_rate<RMSpropOptions>(learning_rate)) {}
  explicit RMSprop(std::function<double(std::int64_t)> schedule)
      : RMSprop(options_with_learning_rate<RMSpropOptions>(std::move(schedule))) {}
  io::Json get_config() const override;

 protected:
  RMSprop(RMSpropOptions options, bool legacy);
  std::vector<std::string> slot_names() const override;
  std::vector<std::vector<std::string>> slot_groups() const override;
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
  BaseOptions base;
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
  io::Json get_config() const override;

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
  BaseOptions base;
};
// Keras AdamW: Adam with BaseOptions::weight_decay on by default (0.004): the decoupled decay
// var -= var * weight_decay * lr first, then the Adam step, both on the variable's device.
class AdamW : public Adam {
 public:
  explicit AdamW(AdamWOptions options = {});
  explicit AdamW(double learning_rate)
      : AdamW(options_with_learning_rate<AdamWOptions>(learning_rate)) {}
};

struct AdamaxOptions {
  LearningRate learning_rate = 0.001;
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  ClipOptions clip;
  BaseOptions base;
};
// Keras Adamax (_KerasAdamax), slots "momentum" and "norm": Adam with the infinity norm.
class Adamax : public Optimizer {
 public:
  explicit Adamax(AdamaxOptions options = {});
  explicit Adamax(double learning_rate)
      : Adamax(options_with_learning_rate<AdamaxOptions>(learning_rate)) {}
  io::Json get_config() const override;

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
  BaseOptions base;
};
// Keras Nadam (_KerasNadam), slots "momentum" and "velocity": Adam with Nesterov momentum and
// Keras's momentum schedule u_t = beta_1 * (1 - 0.5 * 0.96^t), whose running product the optimizer
// keeps (in the dtype of the first variable it updates, as Keras's u_product variable).
class Nadam : public Optimizer {
 public:
  explicit Nadam(NadamOptions options = {});
  explicit Nadam(double learning_rate)
      : Nadam(options_with_learning_rate<NadamOptions>(learning_rate)) {}
  io::Json get_config() const override;

 protected:
  std::vector<std::string> slot_names() const override;
  void build_own_variables(const Variable& first) override;
  std::vector<Variable> own_variables() const override { return {u_product_variable_}; }
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  // The product of u_1 .. u_step, advanced once per step whatever the number of variables. It
  // depends on the step only: a restored step counter restores it (the variable shows it).
  double u_product_at(std::int64_t step);

  NadamOptions options_;
  std::mutex u_mutex_;
  DType u_dtype_ = DType::kFloat32;  // the first variable's (Keras makes u_product so)
  std::int64_t u_step_ = 0;
  double u_product_ = 1.0;
  Variable u_product_variable_;  // Keras's u_product, a float scalar on the host
};

struct AdadeltaOptions {
  LearningRate learning_rate = 0.001;
  double rho = 0.95;
  double epsilon = 1e-7;
  ClipOptions clip;
  BaseOptions base;
};
// Keras Adadelta (_KerasAdadelta), slots "accumulated_grad" and "accumulated_delta_var".
class Adadelta : public Optimizer {
 public:
  explicit Adadelta(AdadeltaOptions options = {});
  explicit Adadelta(double learning_rate)
      : Adadelta(options_with_learning_rate<AdadeltaOptions>(learning_rate)) {}
  io::Json get_config() const override;

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
  BaseOptions base;
};
// Keras Lion (_KerasLion), slot "momentum": var -= lr * sign(interpolated momentum). beta_1
// outside (0, 1] is Keras's InvalidArgumentError (it would make Lion SignSGD).
class Lion : public Optimizer {
 public:
  explicit Lion(LionOptions options = {});
  explicit Lion(double learning_rate)
      : Lion(options_with_learning_rate<LionOptions>(learning_rate)) {}
  io::Json get_config() const override;

 protected:
  std::vector<std::string> slot_names() const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  LionOptions options_;
};

struct LambOptions {
  LearningRate learning_rate = 0.001;
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  ClipOptions clip;
  BaseOptions base;
};
// Keras Lamb (You et al.), slots "momentum" and "velocity": Adam's bias-corrected step scaled per
// variable by the trust ratio ||var|| / ||step|| (1 when either norm is 0). Keras computes it with
// separate ops, which eagle runs too (Square, Sum, Sqrt, ... in the placement log).
class Lamb : public Optimizer {
 public:
  explicit Lamb(LambOptions options = {});
  explicit Lamb(double learning_rate)
      : Lamb(options_with_learning_rate<LambOptions>(learning_rate)) {}
  io::Json get_config() const override;

 protected:
  std::vector<std::string> slot_names() const override;
  void apply_one(const Variable& variable, const std::vector<Variable>& slots,
                 const Tensor& gradient, double learning_rate, std::int64_t step) override;

 private:
  LambOptions options_;
};

// keras.optimizers.serialize: {"module": "keras.optimizers", "class_name": "Adam", "config":
// optimizer.get_config(), "registered_name": null}, what a .keras file's compile_config holds.
io::Json serialize(const Optimizer& optimizer);
// keras.optimizers.deserialize: a new optimizer from such an object (or from a name, as get).
// Missing keys take the class's defaults; a mistyped or unknown key is InvalidArgumentError, a
// setting eagle lacks (loss_scale_factor) or another class UnimplementedError.
std::shared_ptr<Optimizer> deserialize(const io::Json& serialized);
// keras.optimizers.get of a name: "adam", "sgd", "rmsprop", "adagrad", "adamw", "adamax",
// "nadam", "adadelta", "lion", "lamb" (any case), at Keras's defaults. Another: Keras's
// "Unknown optimizer" InvalidArgumentError.
std::shared_ptr<Optimizer> get(const std::string& name);

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
