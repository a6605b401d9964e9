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
struct DistributedVariablePolicy;

struct VariableState {
  std::string name;  // without ":0"
  bool trainable = true;
  VariableSynchronization synchronization = VariableSynchronization::kAuto;
  VariableAggregation aggregation = VariableAggregation::kNone;
  Tensor buffer;  // undefined in a distributed variable's proxy
  mutable std::shared_mutex mutex;
  // Set (at creation, then constant) on the proxy state of a distributed variable (Note
  // [Distributed variables]).
  std::shared_ptr<const DistributedVariablePolicy> distributed;
};

// Note [Distributed variables]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A distributed variable (a MirroredStrategy's) is a handle on a proxy VariableState that holds no
// buffer but a DistributedVariablePolicy: its components (ordinary VariableStates, one per
// replica device) and the rules that say which component the calling thread's accesses go to and
// where an assignment writes. The policy is implemented in distribute/ (MirroredVariable, Note
// [Mirrored variables and the all-reduce rendezvous] in src/distribute/strategy_runtime.hpp) and
// installed by the strategy's variable creator (eagle::variable_creator_scope): variables/ only
// calls it, with one branch on the plain path (Variable::resolved), and never includes
// distribute/.
struct DistributedVariablePolicy {
  virtual ~DistributedVariablePolicy() = default;
  // The components, in replica order.
  virtual const std::vector<std::shared_ptr<VariableState>>& components() const = 0;
  // The component the calling thread's reads, gradients and device() go to.
  virtual const std::shared_ptr<VariableState>& resolve(const VariableState& proxy) const = 0;
  // Where an assignment of `value` (AssignVariableOp and its Add/Sub forms, `op` names it)
  // writes, and what: every component in the cross-replica context; in a replica function this
  // replica's component, with the replicas' values combined by the aggregation (a collective).
  virtual std::vector<std::pair<const VariableState*, Tensor>> assignment(
      const VariableState& proxy, const Tensor& value, const char* op) const = 0;
  // A variable distributed as this one, from `initial_value` (an optimizer's slots).
  virtual Variable create_like(const Tensor& initial_value,
                               const VariableOptions& options) const = 0;
  // TensorFlow's repr prefix: "MirroredVariable".
  virtual const char* kind() const = 0;
  // Identifies the strategy that distributes the variable (StrategyExtended's
  // variable_created_in_scope compares it).
  virtual std::uint64_t owner() const = 0;
};

struct VariableAccess {
  // The state the calling thread's accesses go to: the variable itself, or the component of this
  // thread's replica for a distributed variable.
  static const std::shared_ptr<VariableState>& state(const Variable& v) { return v.resolved(); }
  // The handle's own state (a distributed variable's proxy).
  static const std::shared_ptr<VariableState>& handle(const Variable& v) { return v.state_; }
  static Variable wrap(std::shared_ptr<VariableState> state) { return Variable(std::move(state)); }
};

// A plain variable on the current scope's device, whatever creators are installed: the end of the
// creator chain (eagle::variable_creator_scope), and what a policy makes its components with.
Variable make_plain_variable(const Tensor& initial_value, const VariableOptions& options);
// A distributed variable: a proxy over `policy`'s components.
Variable make_distributed_variable(const VariableOptions& options,
                                   std::shared_ptr<const DistributedVariablePolicy> policy);
// A variable kept as `reference` is (an optimizer's slot): on its device, or distributed as it is.
Variable make_variable_like(const Variable& reference, const Tensor& initial_value,
                            const VariableOptions& options);
// The first component of a distributed variable, the variable itself otherwise: a key that every
// replica finds the same.
std::uint64_t primary_id(const Variable& v);

}  // namespace eagle::detail
