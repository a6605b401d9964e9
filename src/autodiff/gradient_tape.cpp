// eagle::GradientTape, and the backward pass over what a tape recorded.
#include "eagle/gradient_tape.hpp"

#include <atomic>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "autodiff/grad_ops.hpp"
#include "autodiff/tape.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
#include "runtime/log_sink.hpp"
#include "runtime/scope_stack.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle {
namespace {

using autodiff::TapeEntry;
using autodiff::TapeState;
using runtime::impl_of;

const Tensor& checked(const Tensor& t, const char* what) {
  if (!t.defined()) {
    throw InvalidArgumentError(fmt::format("Use of an undefined eagle::Tensor as {}", what));
  }
  return t;
}

// TensorFlow's logging.log_first_n(WARN, ..., 5): process-wide.
void warn_non_floating_watch(DType dtype) {
  static std::atomic<int> warned{0};
  if (warned.fetch_add(1, std::memory_order_relaxed) >= 5) return;
  runtime::emit_log(debugging::LogLevel::kWarning,
                    fmt::format("The dtype of the watched tensor must be floating (e.g. "
                                "tf.float32), got tf.{}",
                                dtype_name(dtype)));
}

// Note [Backward pass]
// ~~~~~~~~~~~~~~~~~~~~
// Entries are recorded in execution order, which is a topological order of what they compute,
// so one walk in reverse finds every consumer of a tensor before its producer: when an entry is
// reached, the gradients of its outputs are complete. Before the walk, one forward sweep marks
// the tensors that depend on a source; an entry none of whose inputs does is skipped, and a
// gradient function is told which inputs need a gradient (matmul's data input does not). Each
// entry's gradient runs under its forward op's device (eagle's rule, where TensorFlow uses the
// caller's scope: docs/guide.md, "Training: variables and gradient tapes"), and a gradient is
// dropped once its producer has used it, so memory falls as the walk goes.
std::vector<std::optional<Tensor>> backward(const TapeState& tape,
                                            const std::vector<Tensor>& targets,
                                            const std::vector<Tensor>& seeds,
                                            const std::vector<GradientSource>& sources,
                                            UnconnectedGradients unconnected) {
  std::unordered_set<std::uint64_t> source_ids;
  // A source the tape never watched gets no gradient, even when a recorded op read it
  // (TensorFlow: tape.gradient(x * c, [x, c]) is [c, None] when only x was watched).
  for (const GradientSource& s : sources) {
    if (is_floating(s.dtype()) && tape.watched.contains(s.id())) source_ids.insert(s.id());
  }
  std::unordered_set<std::uint64_t> depends = source_ids;
  // Entries a persistent tape records during this pass (its own backward ops) are not walked.
  const std::size_t recorded = tape.entries.size();
  std::vector<bool> relevant(recorded, false);
  for (std::size_t e = 0; e < recorded; ++e) {
    const TapeEntry& entry = tape.entries[e];
    for (const autodiff::TapeTensor& in : entry.inputs) {
      if (depends.count(in.id) != 0) {
        relevant[e] = true;
        break;
      }
    }
    if (!relevant[e]) continue;
    for (const autodiff::TapeTensor& out : entry.outputs) {
      if (is_floating(out.spec.dtype)) depends.insert(out.id);
    }
  }

  std::unordered_map<std::uint64_t, Tensor> grads;
  const auto accumulate = [&](std::uint64_t id, const Tensor& g) {
    auto [it, fresh] = grads.emplace(id, g);
    if (!fresh) it->second = add(it->second, g);
  };
  for (std::size_t t = 0; t < targets.size(); ++t) {
    if (is_floating(targets[t].dtype())) accumulate(impl_of(targets[t])->id(), seeds[t]);
  }

  for (std::size_t e = recorded; e-- > 0;) {
    if (!relevant[e]) continue;
    const TapeEntry& entry = tape.entries[e];
    std::vector<Tensor> output_grads(entry.outputs.size());
    bool any = false;
    for (std::size_t o = 0; o < entry.outputs.size(); ++o) {
      auto it = grads.find(entry.outputs[o].id);
      if (it == grads.end()) continue;
      output_grads[o] = it->second;
      any = true;
      if (source_ids.count(entry.outputs[o].id) == 0) grads.erase(it);
    }
    if (!any) continue;
    const autodiff::GradientDef& def = autodiff::gradient_registry()[entry.op];
    if (def.fn == nullptr) {
      throw NotFoundError(
          fmt::format("gradient registry has no entry for: {}", opdefs::op_name(entry.op)));
    }
    std::vector<bool> needs(entry.inputs.size());
    for (std::size_t i = 0; i < entry.inputs.size(); ++i) {
      needs[i] = depends.count(entry.inputs[i].id) != 0;
    }
    std::vector<Tensor> input_grads(entry.inputs.size());
    {
      runtime::ScopedDevice on_forward_device(*entry.device);
      def.fn(autodiff::GradContext(entry.op, entry.attrs, entry.inputs, entry.outputs, output_grads,
                                   needs),
             input_grads);
      for (std::size_t i = 0; i < entry.inputs.size(); ++i) {
        if (needs[i] && input_grads[i].defined()) accumulate(entry.inputs[i].id, input_grads[i]);
      }
    }
  }

  std::vector<std::optional<Tensor>> result;
  result.reserve(sources.size());
  for (const GradientSource& s : sources) {
    auto it = source_ids.count(s.id()) != 0 ? grads.find(s.id()) : grads.end();
    if (it != grads.end()) {
      result.emplace_back(it->second);
    } else if (unconnected == UnconnectedGradients::kZero) {
      result.emplace_back(zeros(s.shape(), s.dtype()));
    } else {
      result.emplace_back(std::nullopt);
    }
  }
  return result;
}

}  // namespace

// ---- GradientSource ---------------------------------------------------------------------------

GradientSource::GradientSource(const Tensor& tensor) : tensor_(checked(tensor, "a source")) {}
GradientSource::GradientSource(const Variable& variable) : variable_(variable) {
  if (!variable.defined()) {
    throw InvalidArgumentError("Use of an undefined eagle::Variable as a source");
  }
}
std::uint64_t GradientSource::id() const { return is_variable() ? variable_.id() : tensor_.id(); }
DType GradientSource::dtype() const { return is_variable() ? variable_.dtype() : tensor_.dtype(); }
const Shape& GradientSource::shape() const {
  return is_variable() ? variable_.shape() : tensor_.shape();
}

// ---- GradientTape -----------------------------------------------------------------------------

GradientTape::GradientTape(GradientTapeOptions options)
    : state_(std::make_unique<TapeState>(options.persistent, options.watch_accessed_variables)) {
  autodiff::push_tape(*state_);
}

GradientTape::~GradientTape() {
  if (state_->active) autodiff::remove_tape(*state_);
}

void GradientTape::watch(const GradientSource& source) {
  if (!is_floating(source.dtype())) {
    warn_non_floating_watch(source.dtype());
    return;
  }
  if (source.is_variable()) {
    state_->watch_variable(detail::VariableAccess::state(source.variable()));
  } else {
    state_->watch_id(source.id());
  }
}

void GradientTape::watch(const std::vector<GradientSource>& sources) {
  for (const GradientSource& s : sources) watch(s);
}

GradientTape::RecordingPause::RecordingPause(TapeState& state)
    : state_(state), was_recording_(state.recording) {
  state_.recording = false;
}
GradientTape::RecordingPause::~RecordingPause() { state_.recording = was_recording_; }

GradientTape::RecordingPause GradientTape::stop_recording() { return RecordingPause(*state_); }

void GradientTape::stop() {
  state_->recording = false;
  if (state_->active) {
    autodiff::remove_tape(*state_);
    state_->active = false;
  }
}

void GradientTape::reset() {
  state_->entries.clear();
  state_->watched.clear();
  state_->watched_variables.clear();
  state_->used = false;
}

std::vector<std::optional<Tensor>> GradientTape::gradient(
    const Tensor& target, const std::vector<GradientSource>& sources,
    const GradientOptions& options) {
  return gradient(std::vector<Tensor>{target}, sources, options);
}

std::vector<std::optional<Tensor>> GradientTape::gradient(
    const std::vector<Tensor>& targets, const std::vector<GradientSource>& sources,
    const GradientOptions& options) {
  TapeState& tape = *state_;
  if (tape.used) {
    throw RuntimeError(
        "A non-persistent GradientTape can only be used to compute one set of gradients (or "
        "jacobians)");
  }
  for (const Tensor& t : targets) checked(t, "a gradient target");
  if (!options.output_gradients.empty() && options.output_gradients.size() != targets.size()) {
    throw InvalidArgumentError(
        fmt::format("Must specify one output gradient per target: {} targets but {} output "
                    "gradients",
                    targets.size(), options.output_gradients.size()));
  }
  std::vector<Tensor> seeds;
  seeds.reserve(targets.size());
  for (std::size_t t = 0; t < targets.size(); ++t) {
    if (options.output_gradients.empty()) {
      seeds.push_back(ones_like(targets[t]));
      continue;
    }
    const Tensor& g = checked(options.output_gradients[t], "an output gradient");
    if (g.shape() != targets[t].shape() || g.dtype() != targets[t].dtype()) {
      throw InvalidArgumentError(fmt::format(
          "The output gradient of target #{} must have its shape {} and dtype {}, got {} {}", t,
          targets[t].shape().to_string(), dtype_name(targets[t].dtype()), g.shape().to_string(),
          dtype_name(g.dtype())));
    }
    seeds.push_back(g);
  }
  // Recorded only on a persistent tape still in its context (higher order on one tape); a
  // non-persistent tape stops recording, as TensorFlow's does.
  if (!tape.persistent) {
    tape.recording = false;
  } else if (tape.recording) {
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) {
      runtime::emit_log(
          debugging::LogLevel::kWarning,
          "Calling GradientTape.gradient on a persistent tape inside its context is "
          "significantly less efficient than calling it outside the context (it causes the "
          "gradient ops to be recorded on the tape, leading to increased CPU and memory usage). "
          "Only call GradientTape.gradient inside the context if you actually want to trace the "
          "gradient in order to compute higher order derivatives.");
    }
  }
  auto result = backward(tape, targets, seeds, sources, options.unconnected);
  if (!tape.persistent) {
    tape.used = true;
    tape.entries.clear();  // release every saved tensor now, as TensorFlow's tape does
    tape.watched.clear();
  }
  return result;
}

std::vector<std::optional<Tensor>> GradientTape::jacobian(
    const Tensor& target, const std::vector<GradientSource>& sources,
    UnconnectedGradients unconnected) {
  TapeState& tape = *state_;
  if (tape.used) {
    throw RuntimeError(
        "A non-persistent GradientTape can only be used to compute one set of gradients (or "
        "jacobians)");
  }
  checked(target, "a jacobian target");
  if (!tape.persistent) tape.recording = false;
  const std::int64_t n = target.num_elements();
  std::vector<std::vector<Tensor>> rows(sources.size());
  std::vector<bool> connected(sources.size(), false);
  std::vector<double> one_hot(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    one_hot[static_cast<std::size_t>(i)] = 1.0;
    const Tensor seed = cast(constant(one_hot, target.shape()), target.dtype());
    one_hot[static_cast<std::size_t>(i)] = 0.0;
    auto g = backward(tape, {target}, {seed}, sources, UnconnectedGradients::kNone);
    for (std::size_t s = 0; s < sources.size(); ++s) {
      if (g[s]) connected[s] = true;
      rows[s].push_back(g[s] ? *g[s] : zeros(sources[s].shape(), sources[s].dtype()));
    }
  }
  std::vector<std::optional<Tensor>> result;
  for (std::size_t s = 0; s < sources.size(); ++s) {
    if (!connected[s] && unconnected == UnconnectedGradients::kNone) {
      result.emplace_back(std::nullopt);
      continue;
    }
    Shape shape = target.shape();
    for (int d = 0; d < sources[s].shape().rank(); ++d) shape.push_back(sources[s].shape()[d]);
    const Tensor stacked = n == 0 ? zeros(shape, sources[s].dtype()) : stack(rows[s], 0);
    result.emplace_back(autodiff::reshape_to(stacked, shape));
  }
  if (!tape.persistent) {
    tape.used = true;
    tape.entries.clear();
    tape.watched.clear();
  }
  return result;
}

std::vector<Variable> GradientTape::watched_variables() const {
  std::vector<Variable> out;
  for (const auto& state : state_->watched_variables) {
    out.push_back(detail::VariableAccess::wrap(state));
  }
  return out;
}

}  // namespace eagle
