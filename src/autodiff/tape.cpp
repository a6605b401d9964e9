#include "autodiff/tape.hpp"

#include <algorithm>

#include "eagle/dtype.hpp"
#include "runtime/dispatcher.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::autodiff {
namespace {

using runtime::impl_of;

bool saved(std::uint32_t mask, int i) { return mask == kSaveAll || (i < 32 && (mask >> i & 1u)); }

TapeTensor tape_tensor(const Tensor& t, bool keep) {
  const runtime::TensorImpl& impl = *impl_of(t);
  return TapeTensor{impl.id(), TensorSpec{impl.shape(), impl.dtype()}, keep ? t : Tensor()};
}

// The thread's recording tapes, as the thread's op listener.
class TapeSet final : public runtime::OpListener {
 public:
  std::vector<TapeState*> tapes;

  void add(TapeState& tape) {
    if (tapes.empty()) previous_ = runtime::exchange_this_thread_op_listener(this);
    tapes.push_back(&tape);
  }
  void remove(TapeState& tape) {
    tapes.erase(std::remove(tapes.begin(), tapes.end(), &tape), tapes.end());
    // Uninstalled only when nothing installed itself after us; otherwise this set stays in the
    // chain, forwarding, until the thread ends.
    if (tapes.empty() && runtime::this_thread_op_listener() == this) {
      runtime::exchange_this_thread_op_listener(previous_);
      previous_ = nullptr;
    }
  }

  void on_op(const runtime::ExecutedOp& op) override {
    if (previous_ != nullptr) previous_->on_op(op);
    if (opdefs::op_def(op.op).gradient != opdefs::Gradient::kDifferentiable) return;
    bool floating_output = false;
    for (int i = 0; i < op.num_outputs; ++i) {
      floating_output = floating_output || is_floating(impl_of(op.outputs[i])->dtype());
    }
    if (!floating_output) return;  // nothing a gradient could flow back through
    const GradientDef& def = gradient_registry()[op.op];
    for (TapeState* tape : tapes) {
      if (tape->recording && watches_an_input(*tape, op)) record(*tape, op, def);
    }
  }

 private:
  static bool watches_an_input(const TapeState& tape, const runtime::ExecutedOp& op) {
    for (int i = 0; i < op.num_inputs; ++i) {
      if (tape.watched.contains(impl_of(op.inputs[i])->id())) return true;
    }
    return false;
  }

  static void record(TapeState& tape, const runtime::ExecutedOp& op, const GradientDef& def) {
    TapeEntry entry{op.op, op.attrs, &op.device, {}, {}};
    entry.inputs.reserve(static_cast<std::size_t>(op.num_inputs));
    for (int i = 0; i < op.num_inputs; ++i) {
      entry.inputs.push_back(tape_tensor(op.inputs[i], saved(def.saved_inputs, i)));
    }
    entry.outputs.reserve(static_cast<std::size_t>(op.num_outputs));
    for (int i = 0; i < op.num_outputs; ++i) {
      entry.outputs.push_back(tape_tensor(op.outputs[i], saved(def.saved_outputs, i)));
      if (is_floating(entry.outputs.back().spec.dtype)) tape.watch_id(entry.outputs.back().id);
    }
    tape.entries.push_back(std::move(entry));
  }

  runtime::OpListener* previous_ = nullptr;
};

thread_local TapeSet t_tape_set;

}  // namespace

void TapeState::watch_variable(const std::shared_ptr<detail::VariableState>& state) {
  const std::uint64_t id = impl_of(state->buffer)->id();
  if (!watched.insert(id)) return;
  watched_variables.push_back(state);
}

void push_tape(TapeState& tape) { t_tape_set.add(tape); }
void remove_tape(TapeState& tape) { t_tape_set.remove(tape); }

bool thread_is_recording() {
  for (const TapeState* tape : t_tape_set.tapes) {
    if (tape->recording) return true;
  }
  return false;
}

ThreadRecordingPause::ThreadRecordingPause() {
  for (TapeState* tape : t_tape_set.tapes) {
    if (tape->recording) {
      tape->recording = false;
      paused_.push_back(tape);
    }
  }
}

// A tape the function stopped or destroyed meanwhile is no longer in the thread's set: it stays
// as the function left it.
ThreadRecordingPause::~ThreadRecordingPause() {
  for (TapeState* tape : paused_) {
    if (std::find(t_tape_set.tapes.begin(), t_tape_set.tapes.end(), tape) !=
        t_tape_set.tapes.end()) {
      tape->recording = tape->active;
    }
  }
}

void variable_accessed(const std::shared_ptr<detail::VariableState>& state) {
  if (t_tape_set.tapes.empty() || !state->trainable) return;
  if (!is_floating(impl_of(state->buffer)->dtype())) return;
  for (TapeState* tape : t_tape_set.tapes) {
    if (tape->recording && tape->watch_accessed_variables) tape->watch_variable(state);
  }
}

}  // namespace eagle::autodiff
