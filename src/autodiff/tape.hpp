// The state behind eagle::GradientTape and the thread's set of recording tapes.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "autodiff/gradient_registry.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/device.hpp"
#include "variables/variable_state.hpp"

namespace eagle::autodiff {

// The ids a tape watches: open addressing with linear probing in a power-of-two table (ids are
// never 0, which marks an empty slot). Every op with a tape active looks its inputs up here, and
// every recorded output is inserted: a node-based std::unordered_set allocated per insert and
// chased a pointer per lookup, which was most of a recorded op's cost (docs/performance.md).
class IdSet {
 public:
  bool contains(std::uint64_t id) const {
    if (slots_.empty()) return false;
    for (std::size_t i = slot_of(id);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i] == id) return true;
      if (slots_[i] == 0) return false;
    }
  }
  // True when `id` was not there before.
  bool insert(std::uint64_t id) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    for (std::size_t i = slot_of(id);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i] == id) return false;
      if (slots_[i] == 0) {
        slots_[i] = id;
        ++count_;
        return true;
      }
    }
  }
  void clear() {
    slots_.clear();
    count_ = 0;
  }

 private:
  std::size_t slot_of(std::uint64_t id) const {
    return static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void grow() {
    std::vector<std::uint64_t> old;
    old.swap(slots_);
    const std::size_t size = old.empty() ? 64 : 2 * old.size();
    slots_.assign(size, 0);
    shift_ = 64;
    for (std::size_t s = size; s > 1; s >>= 1) --shift_;
    count_ = 0;
    for (std::uint64_t id : old) {
      if (id != 0) insert(id);
    }
  }

  std::vector<std::uint64_t> slots_;
  std::size_t count_ = 0;
  int shift_ = 64;
};

// One recorded op: what its gradient needs, and the device it ran on (its backward runs there).
struct TapeEntry {
  opdefs::OpId op;
  opdefs::OpAttrs attrs;
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
  IdSet watched;
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

// Whether a tape of the calling thread is recording.
bool thread_is_recording();

// Pauses every recording tape of the calling thread while it lives (eagle::custom_gradient runs
// its function so: the tapes keep one IdentityN instead of the function's ops).
class ThreadRecordingPause {
 public:
  ThreadRecordingPause();
  ~ThreadRecordingPause();
  ThreadRecordingPause(const ThreadRecordingPause&) = delete;
  ThreadRecordingPause& operator=(const ThreadRecordingPause&) = delete;

 private:
  std::vector<TapeState*> paused_;
};

// Called by Variable::read_value before the read: each recording tape of the thread that
// watches accessed variables watches a trainable one.
void variable_accessed(const std::shared_ptr<detail::VariableState>& state);

}  // namespace eagle::autodiff
