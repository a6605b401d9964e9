// ParameterServerTraining: the workers' threads, the consistent read, the update and its
// staleness, the deterministic schedule, and the first failure carried to the caller.
#include "eagle/distribute/parameter_server_training.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "eagle/config.hpp"
#include "eagle/device_name.hpp"
#include "eagle/errors.hpp"
#include "eagle/gradient_tape.hpp"
#include "eagle/ops.hpp"
#include "eagle/scope.hpp"

namespace eagle::distribute {

// Note [Consistent reads]
// ~~~~~~~~~~~~~~~~~~~~~~~
// A worker step reads every variable with `Shared::mutex` held shared; an update applies every
// variable's new value with it held exclusive, and counts itself in `version` there. So the
// values one step reads all come from one version (the optimizer's own lock orders updates, but
// would let a reader in between two variables of one update), and staleness = the version at the
// write - the version at the read is exact. A read copies nothing (Note [Variable storage]: a
// value read never changes), so the shared lock covers only the ReadVariableOps; the gradient
// goes to the parameter device before the exclusive lock is taken, which covers only the update.

// Note [Deterministic schedule]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Deterministic mode passes one turn round robin: worker 0, 1, ..., N - 1, 0, ... Each worker
// still runs on its own thread under its own device scope. In its turn a worker applies the
// gradient it computed in its previous turn, then reads the variables and computes its next
// gradient (its first turn only computes, its last only applies). So every worker has a gradient
// in flight while the others apply theirs, as in asynchronous training at a steady state: worker
// w's first update has staleness w, every later update N - 1, and every run applies the same
// updates in the same order. Its stale reads are what asynchronous training does by design
// (docs/guide.md, "Asynchronous training: `eagle::distribute::ParameterServerTraining`").

// Note [Staleness-aware updates]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// With options.staleness_aware, an update whose gradient was computed from weights s > 1 updates
// old is applied divided by s: the learning rate over the staleness (Zhang, Gupta, Lian and Liu,
// "Staleness-aware async-SGD for distributed deep learning", IJCAI 2016). Updates of staleness 0
// and 1 (a worker alone, or two taking turns) are applied as computed. Why: with momentum,
// gradients that are many updates old add up to steps the weights cannot take; four workers of
// samples/sync_vs_async, truly concurrent on a 16-core machine (mean staleness 2.5, some over
// 30), diverged where the same run on two cores converged. The staleness is known only under the
// exclusive lock (Note [Consistent reads]), so the division runs there: one elementwise op per
// variable on the parameter device.

struct ParameterServerTraining::Shared {
  mutable std::shared_mutex mutex;  // Note [Consistent reads]
  std::int64_t version = 0;         // updates applied, guarded by mutex
  std::atomic<bool> running{false};
};

namespace {

constexpr const char* kJobPrefix = "/job:localhost/replica:0/task:0";

// The full name of the first logical device `spec` matches, in listing order.
std::string resolve_device(const std::string& spec, const char* role) {
  const DeviceName wanted = DeviceName::parse(spec);
  std::vector<std::string> names;
  for (const auto& device : config::list_logical_devices()) {
    names.push_back(kJobPrefix + device.name);
    if (DeviceName::parse(names.back()).matches(wanted)) return names.back();
  }
  throw InvalidArgumentError(fmt::format(
      "ParameterServerTraining: the {} '{}' matches no device of this process; its devices are {}",
      role, spec, fmt::join(names, ", ")));
}

// One computed gradient waiting to be applied.
struct PendingUpdate {
  std::int64_t step = 0;
  std::int64_t read_version = 0;
  double loss = 0;
  std::vector<optimizers::GradientAndVariable> grads;  // on the parameter device
};

double scalar_of(const Tensor& loss) {
  if (loss.dtype() == kFloat32) return loss.item<float>();
  if (loss.dtype() == kFloat64) return loss.item<double>();
  return cast(loss, kFloat32).item<float>();
}

// Rethrows the exception being handled as its own eagle error class with `prefix` before its
// message, the original nested. Call only inside a handler.
[[noreturn]] void throw_prefixed(const Error& e, const std::string& prefix) {
  throw_like_nested(e, prefix + e.what());
}

[[noreturn]] void rethrow_naming_worker(const std::exception_ptr& error,
                                        const std::string& prefix) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    throw_prefixed(e, prefix);
  } catch (const std::exception& e) {
    std::throw_with_nested(UnknownError(prefix + e.what()));
  } catch (...) {
    std::throw_with_nested(UnknownError(prefix + "an exception that is not a std::exception"));
  }
}

}  // namespace

const Tensor& WorkerContext::value(const Variable& variable) const {
  if (!variable.defined()) throw InvalidArgumentError("Use of an undefined eagle::Variable");
  const auto it = index_->find(variable.id());
  if (it == index_->end()) {
    throw InvalidArgumentError(fmt::format(
        "Variable '{}' is not one of this ParameterServerTraining's variables (make it with "
        "create_variable)",
        variable.name()));
  }
  return values_[it->second];
}

std::vector<std::int64_t> AsyncTrainingResult::staleness_histogram() const {
  std::vector<std::int64_t> histogram;
  for (const UpdateRecord& u : updates) {
    const auto s = static_cast<std::size_t>(u.staleness);
    if (histogram.size() <= s) histogram.resize(s + 1, 0);
    ++histogram[s];
  }
  return histogram;
}

double AsyncTrainingResult::mean_staleness() const {
  if (updates.empty()) return 0;
  double sum = 0;
  for (const UpdateRecord& u : updates) sum += static_cast<double>(u.staleness);
  return sum / static_cast<double>(updates.size());
}

std::int64_t AsyncTrainingResult::max_staleness() const {
  std::int64_t max = 0;
  for (const UpdateRecord& u : updates) max = std::max(max, u.staleness);
  return max;
}

std::string AsyncTrainingResult::staleness_report() const {
  std::string out = fmt::format("staleness of {} updates: mean {:.2f}, max {}\n", updates.size(),
                                mean_staleness(), max_staleness());
  const std::vector<std::int64_t> histogram = staleness_histogram();
  for (std::size_t s = 0; s < histogram.size(); ++s) {
    out += fmt::format("  {}: {}\n", s, histogram[s]);
  }
  return out;
}

// One run(): its arguments, the records, the deterministic turn and the first failure.
struct ParameterServerTraining::Run {
  optimizers::Optimizer& optimizer;
  std::int64_t steps;
  const WorkerLossFn& loss_fn;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::vector<UpdateRecord> records;  // guarded by Shared::mutex, held exclusive

  std::atomic<bool> stop{false};  // a worker failed: the others leave at their next turn
  std::mutex turn_mutex;          // deterministic mode (Note [Deterministic schedule])
  std::condition_variable turn_changed;
  int turn = 0;

  std::mutex error_mutex;
  std::exception_ptr error;  // the first failure
  std::string error_prefix;  // "Worker 1 (<device>), step 3: "

  Run(optimizers::Optimizer& o, std::int64_t s, const WorkerLossFn& f)
      : optimizer(o), steps(s), loss_fn(f) {}

  void stop_all() {
    {
      std::lock_guard<std::mutex> lock(turn_mutex);
      stop = true;
    }
    turn_changed.notify_all();
  }
};

ParameterServerTraining::ParameterServerTraining(ParameterServerTrainingOptions options)
    : deterministic_(options.deterministic),
      staleness_aware_(options.staleness_aware),
      shared_(std::make_unique<Shared>()) {
  parameter_device_ = resolve_device(options.parameter_device, "parameter device");
  if (options.worker_devices.empty()) {
    for (const auto& gpu : config::list_logical_devices("GPU")) {
      options.worker_devices.push_back(gpu.name);
    }
    if (options.worker_devices.empty()) options.worker_devices.push_back("/CPU:0");
  }
  for (const std::string& spec : options.worker_devices) {
    worker_devices_.push_back(resolve_device(spec, "worker device"));
  }
  parameter_devices_ = {parameter_device_};
}

ParameterServerTraining::~ParameterServerTraining() = default;

Variable ParameterServerTraining::create_variable(const Tensor& initial_value,
                                                  VariableOptions options) {
  auto in_scope = scope();
  return Variable(initial_value, std::move(options));
}

Variable ParameterServerTraining::create_variable(const NextVariableCreator& next,
                                                  const Tensor& initial_value,
                                                  const VariableOptions& options) const {
  if (shared_->running) {
    throw FailedPreconditionError(
        "ParameterServerTraining: variables cannot be created while run() is in progress");
  }
  Variable variable;
  {
    auto parameter_scope = device(parameter_device_);
    variable = next(initial_value, options);
  }
  index_.emplace(variable.id(), variables_.size());
  variables_.push_back(variable);
  return variable;
}

Tensor ParameterServerTraining::reduce(ReduceOp op, const PerReplica<Tensor>& value,
                                       std::optional<int> axis) const {
  return reduce_single_replica(op, value, axis, "ParameterServerTraining");
}

PerReplica<Tensor> ParameterServerTraining::split_batch(const Tensor& global_batch) const {
  return split_into_one(global_batch);
}

void ParameterServerTraining::run_replicas(
    const std::function<void(const ReplicaContext&)>& body) const {
  static const std::string no_device;
  const ReplicaContext context = make_replica_context(0, 1, &no_device, 0);
  detail::ReplicaContextGuard guard(context);
  body(context);
}

std::vector<Tensor> ParameterServerTraining::replica_all_reduce(
    const ReplicaContext&, ReduceOp, const std::vector<Tensor>& values,
    const std::vector<std::string>&) const {
  return values;  // one replica: its own values
}

void ParameterServerTraining::replica_merge_call(const ReplicaContext&,
                                                 const std::function<void()>& fn) const {
  fn();
}

std::int64_t ParameterServerTraining::version() const {
  std::shared_lock<std::shared_mutex> lock(shared_->mutex);
  return shared_->version;
}

void ParameterServerTraining::worker_loop(Run& run, int worker) {
  const std::string& worker_device = worker_devices_[static_cast<std::size_t>(worker)];
  const std::size_t workers = worker_devices_.size();
  std::int64_t failing_step = 0;
  try {
    auto worker_scope = device(worker_device);
    std::optional<PendingUpdate> pending;
    // Applies the pending gradient (Note [Consistent reads]); the update is counted and recorded
    // only when it succeeded.
    auto apply = [&] {
      failing_step = pending->step;
      auto parameter_scope = device(parameter_device_);
      std::unique_lock<std::shared_mutex> lock(shared_->mutex);
      const std::int64_t version = shared_->version;
      const std::int64_t staleness = version - pending->read_version;
      double scale = 1;
      if (staleness_aware_ && staleness > 1) {  // Note [Staleness-aware updates]
        scale = 1.0 / static_cast<double>(staleness);
        for (optimizers::GradientAndVariable& pair : pending->grads) {
          std::optional<Tensor>& grad = pair.first;
          if (grad) grad = divide(*grad, scalar_like(*grad, static_cast<double>(staleness)));
        }
      }
      run.optimizer.apply_gradients(pending->grads);
      ++shared_->version;
      run.records.push_back(
          {worker, pending->step, pending->read_version, version, staleness, scale, pending->loss,
           std::chrono::duration<double>(std::chrono::steady_clock::now() - run.start).count()});
      pending.reset();
    };
    // Reads every variable, computes the loss and its gradient here, sends the gradient to the
    // parameter device.
    auto compute = [&](std::int64_t step) {
      failing_step = step;
      WorkerContext context;
      context.worker_ = worker;
      context.device_ = worker_device;
      context.step_ = step;
      context.index_ = &index_;
      std::vector<Tensor> read;
      {
        std::shared_lock<std::shared_mutex> lock(shared_->mutex);
        context.read_version_ = shared_->version;
        for (const Variable& v : variables_) read.push_back(v.read_value());
      }
      for (const Tensor& value : read) context.values_.push_back(identity(value));
      std::vector<GradientSource> sources;
      std::vector<Variable> trained;
      GradientTape tape;
      for (std::size_t i = 0; i < variables_.size(); ++i) {
        if (!variables_[i].trainable()) continue;
        sources.emplace_back(context.values_[i]);
        trained.push_back(variables_[i]);
      }
      tape.watch(sources);
      const Tensor loss = run.loss_fn(context);
      tape.stop();
      if (!loss.defined() || loss.rank() != 0 || !is_floating(loss.dtype())) {
        throw InvalidArgumentError(fmt::format(
            "The loss function must return a scalar floating tensor, got {}",
            loss.defined() ? fmt::format("shape {} and dtype {}", loss.shape().to_tuple_string(),
                                         dtype_name(loss.dtype()))
                           : std::string("an undefined tensor")));
      }
      for (const Variable& v : tape.watched_variables()) {
        if (index_.count(v.id())) {
          throw InvalidArgumentError(fmt::format(
              "The loss function read variable '{}' itself; use context.value(variable), the "
              "value this step read, so that the gradient reaches the variable and its staleness "
              "is counted",
              v.name()));
        }
      }
      const auto grads = tape.gradient(loss, sources);
      PendingUpdate update;
      update.step = step;
      update.read_version = context.read_version_;
      update.loss = scalar_of(loss);
      auto parameter_scope = device(parameter_device_);
      for (std::size_t i = 0; i < trained.size(); ++i) {
        update.grads.emplace_back(
            grads[i] ? std::optional<Tensor>(identity(*grads[i])) : std::nullopt, trained[i]);
      }
      pending = std::move(update);
    };

    for (std::int64_t turn = 0; turn <= run.steps; ++turn) {
      if (deterministic_) {
        std::unique_lock<std::mutex> lock(run.turn_mutex);
        run.turn_changed.wait(lock, [&] { return run.stop || run.turn == worker; });
      }
      if (run.stop) return;
      if (pending) apply();
      if (turn < run.steps) compute(turn);
      if (deterministic_) {
        {
          std::lock_guard<std::mutex> lock(run.turn_mutex);
          run.turn = static_cast<int>((static_cast<std::size_t>(worker) + 1) % workers);
        }
        run.turn_changed.notify_all();
      }
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(run.error_mutex);
      if (!run.error) {
        run.error = std::current_exception();
        run.error_prefix =
            fmt::format("Worker {} ({}), step {}: ", worker, worker_device, failing_step);
      }
    }
    run.stop_all();
  }
}

AsyncTrainingResult ParameterServerTraining::run(optimizers::Optimizer& optimizer,
                                                 std::int64_t steps_per_worker,
                                                 const WorkerLossFn& loss_fn) {
  if (steps_per_worker < 0) {
    throw InvalidArgumentError(fmt::format(
        "ParameterServerTraining.run: steps_per_worker must be >= 0, got {}", steps_per_worker));
  }
  if (!loss_fn) throw InvalidArgumentError("ParameterServerTraining.run: no loss function");
  if (variables_.empty()) {
    throw InvalidArgumentError(
        "ParameterServerTraining.run: no variables to train; make them with create_variable");
  }
  if (shared_->running.exchange(true)) {
    throw FailedPreconditionError(
        "ParameterServerTraining.run: another run() of this object is in progress");
  }
  struct ClearRunning {
    std::atomic<bool>& running;
    ~ClearRunning() { running = false; }
  } clear_running{shared_->running};

  Run state(optimizer, steps_per_worker, loss_fn);
  std::vector<std::thread> threads;
  try {
    for (int w = 0; w < num_workers(); ++w) {
      threads.emplace_back([this, &state, w] { worker_loop(state, w); });
    }
  } catch (...) {  // a thread could not start: stop and join the others, then report it
    state.stop_all();
    for (std::thread& t : threads) t.join();
    throw;
  }
  for (std::thread& t : threads) t.join();
  if (state.error) rethrow_naming_worker(state.error, state.error_prefix);

  AsyncTrainingResult result;
  result.updates = std::move(state.records);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - state.start).count();
  return result;
}

}  // namespace eagle::distribute
