// What a Variable handle points at, for the runtime's eyes only (the tape, the optimizers).
#pragma once

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "eagle/tensor.hpp"
#include "eagle/variable.hpp"

namespace eagle::detail {

// Note [Variable storage]
// ~~~~~~~~~~~~~~~~~~~~~~~
// `buffer` is the tensor VarHandleOp made on the variable's device; its id is the variable's
// (what tapes watch) and every variable op takes it as a resource input. ReadVariableOp returns
// an alias of its bytes, no copy. An update (AssignVariableOp, AssignAddVariableOp, an optimizer's
// Apply op) writes the bytes in place when nothing else holds them and gives the buffer fresh
// ones first when a value read earlier still does (KernelContext::mutable_input), so a value
// read never changes: TensorFlow's copy-on-write of a variable's tensor, and the common training
// step (read, differentiate, drop the activations, update) copies nothing.
// `mutex`: reads take it shared, updates exclusive, so a read never sees half an update and
// concurrent assign_adds lose nothing.
struct MirroredComponents;

struct VariableState {
  std::string name;  // without ":0"
  bool trainable = true;
  Tensor buffer;  // undefined in a mirrored variable's proxy
  mutable std::shared_mutex mutex;
  // Set (at creation, then constant) on the proxy state of a mirrored variable (Note [Mirrored
  // variables and the all-reduce rendezvous] in src/distribute/strategy_runtime.hpp).
  std::shared_ptr<const MirroredComponents> mirrored;
};

// The components of a mirrored variable, component i on the strategy's replica device i.
struct MirroredComponents {
  std::uint64_t strategy_id;
  std::vector<std::string> devices;
  std::vector<std::shared_ptr<VariableState>> components;
};

struct VariableAccess {
  // The state the calling thread's accesses go to: the variable itself, or the component of this
  // thread's replica for a mirrored variable.
  static const std::shared_ptr<VariableState>& state(const Variable& v) { return v.resolved(); }
  // The handle's own state (a mirrored variable's proxy).
  static const std::shared_ptr<VariableState>& handle(const Variable& v) { return v.state_; }
  static Variable wrap(std::shared_ptr<VariableState> state) { return Variable(std::move(state)); }
};

// A variable mirrored over `devices` (component i created under a scope of devices[i]), for
// `strategy_id`: what Variable's constructor makes under a strategy's scope, and what optimizers
// make for the slots of a mirrored variable.
Variable make_mirrored_variable(const Tensor& initial_value, VariableOptions options,
                                std::uint64_t strategy_id, const std::vector<std::string>& devices);

}  // namespace eagle::detail
