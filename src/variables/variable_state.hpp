// What a Variable handle points at, for the runtime's eyes only (the tape, the optimizers).
#pragma once

#include <memory>
#include <shared_mutex>
#include <string>
#include <utility>

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
struct VariableState {
  std::string name;  // without ":0"
  bool trainable = true;
  Tensor buffer;
  mutable std::shared_mutex mutex;
};

struct VariableAccess {
  static const std::shared_ptr<VariableState>& state(const Variable& v) { return v.state_; }
  static Variable wrap(std::shared_ptr<VariableState> state) { return Variable(std::move(state)); }
};

}  // namespace eagle::detail
