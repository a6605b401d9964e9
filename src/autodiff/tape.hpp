// The state behind eagle::GradientTape and the thread's set of recording tapes.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_set>
#include <vector>

#include "autodiff/gradient_registry.hpp"
#include "ops/attrs.hpp"
#include "runtime/device.hpp"
#include "variables/variable_state.hpp"

namespace eagle::autodiff {

// One recorded op: what its gradient needs, and the device it ran on (its backward runs there).
struct TapeEntry {
  OpId op;
  ops::OpAttrs attrs;
  runtime::Device* device;
  std::vector<TapeTensor> inputs;
  std::vector<TapeTensor> outputs;
};

class TapeState {
 public:
  TapeState(bool persistent, bool watch_accessed_variables)
      : persistent(persistent), watch_accessed_variables(watch_accessed_variables) {}

  const bool persistent;
  const bool watch_accessed_variables;
  bool recording = true;  // false while paused (stop_recording) and after stop()
  bool active = true;     // in this thread's set (until stop() or destruction)
  bool used = false;      // a non-persistent tape has computed its one set of gradients
  // Ids of the tensors with a path from a watched source: an op with one as input is recorded.
  std::unordered_set<std::uint64_t> watched;
  // A deque: a persistent tape records the backward pass's ops while that pass reads entries.
  std::deque<TapeEntry> entries;
  std::vector<std::shared_ptr<detail::VariableState>> watched_variables;

  void watch_id(std::uint64_t id) { watched.insert(id); }
  void watch_variable(const std::shared_ptr<detail::VariableState>& state);
};

// The calling thread's recording tapes, innermost last. Registering the first installs the
// thread's op listener (Note [Op listeners]); with no tape an op pays the dispatcher's one
// thread-local load and nothing here.
void push_tape(TapeState& tape);
void remove_tape(TapeState& tape);

// Called by Variable::read_value before the read: each recording tape of the thread that
// watches accessed variables watches a trainable one.
void variable_accessed(const std::shared_ptr<detail::VariableState>& state);

}  // namespace eagle::autodiff
