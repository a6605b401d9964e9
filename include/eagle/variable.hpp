// eagle::Variable: mutable state on one device, TensorFlow's ResourceVariable (docs/guide.md,
// "Training: variables and gradient tapes").
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"
#include "eagle/tensor_data.hpp"

namespace eagle {

namespace detail {
struct VariableState;
struct VariableAccess;
}  // namespace detail

// When a distributed variable's copies are kept in sync (tf.VariableSynchronization): kAuto is
// the strategy's choice (on write, for a MirroredStrategy); kOnRead keeps one copy per replica,
// combined by the aggregation when read outside the replicas (Keras's metrics).
enum class VariableSynchronization { kAuto, kNone, kOnWrite, kOnRead };
// How the replicas' writes to a distributed variable combine in a replica function
// (tf.VariableAggregation): kNone refuses them there (TensorFlow's error); kSum and kMean write the
// sum or mean of the replicas' values to every copy; kOnlyFirstReplica writes replica 0's.
enum class VariableAggregation { kNone, kSum, kMean, kOnlyFirstReplica };

struct VariableOptions {
  std::string name = "Variable";  // v.name() is "<name>:0"
  bool trainable = true;          // read under a GradientTape, a trainable variable is watched
  VariableSynchronization synchronization = VariableSynchronization::kAuto;
  VariableAggregation aggregation = VariableAggregation::kNone;
};

// A handle, cheap to copy: copies are the same variable (as Python references to a tf.Variable).
//
//   eagle::Variable w(eagle::random_normal({784, 10}, 0, 1, eagle::kFloat32, 1), {"w"});
//   w.assign_sub(eagle::constant(0.1f) * grad);
//   eagle::Tensor y = eagle::matmul(x, w);   // reads w (ReadVariableOp)
//
// The variable is created on the device the current scope places VarHandleOp on (docs/guide.md,
// "How an op is placed") and stays there: ReadVariableOp, AssignVariableOp and every update run
// there whatever the scope says (TensorFlow's resource pinning). dtype and shape are fixed at
// creation. Reads and updates are safe from many threads at once; a value read never changes
// afterwards, even when the variable is updated (Note [Variable storage]).
class Variable {
 public:
  // An undefined handle (for containers); using it throws InvalidArgumentError.
  Variable() = default;
  explicit Variable(const Tensor& initial_value, VariableOptions options = {});
  explicit Variable(const TensorData& initial_value, VariableOptions options = {});

  bool defined() const { return state_ != nullptr; }

  // The value now: ReadVariableOp on the variable's device. Under an active GradientTape a
  // trainable variable is watched first (watch_accessed_variables).
  Tensor read_value() const;
  Tensor value() const { return read_value(); }
  // A Variable is accepted wherever a Tensor is: it is read.
  operator Tensor() const { return read_value(); }  // NOLINT: implicit by design

  // In-place updates on the variable's device. The value must have the variable's dtype and
  // shape (InvalidArgumentError naming the variable otherwise); a failed update changes nothing.
  const Variable& assign(const Tensor& value) const;
  const Variable& assign_add(const Tensor& delta) const;
  const Variable& assign_sub(const Tensor& delta) const;

  std::string name() const;  // "w:0"
  bool trainable() const;
  DType dtype() const;
  const Shape& shape() const;
  // Full name of the device the variable lives on.
  const std::string& device() const;
  // The id of the variable's handle: what a GradientTape watches (stable for its life).
  std::uint64_t id() const;

  // Mirrored variables (created under a distribute::MirroredStrategy's scope(); docs/guide.md,
  // "Distributed training: MirroredStrategy") have one component per replica device. Reads,
  // device(), id() and gradients resolve to the component of the replica function running on this
  // thread, to component 0 elsewhere; assign*() outside a replica function updates every
  // component, and inside one combines the replicas' values by the variable's aggregation (kNone:
  // TensorFlow's error; an optimizer's apply_gradients is the way to train them there). Note
  // [Distributed variables] in src/variables/variable_state.hpp.
  bool is_mirrored() const;
  VariableAggregation aggregation() const;
  VariableSynchronization synchronization() const;
  // The components, in replica order, as plain variables ({*this} when not mirrored).
  std::vector<Variable> components() const;

 private:
  friend struct detail::VariableAccess;
  explicit Variable(std::shared_ptr<detail::VariableState> state) : state_(std::move(state)) {}
  const detail::VariableState& state() const { return *resolved(); }
  // One branch on the non-mirrored path.
  const std::shared_ptr<detail::VariableState>& resolved() const;
  std::shared_ptr<detail::VariableState> state_;
};

// <eagle.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>
std::string to_string(const Variable& v);
std::ostream& operator<<(std::ostream& os, const Variable& v);

}  // namespace eagle

template <>
struct fmt::formatter<eagle::Variable> : fmt::formatter<std::string> {
  template <class FormatContext>
  auto format(const eagle::Variable& v, FormatContext& ctx) const {
    return fmt::formatter<std::string>::format(eagle::to_string(v), ctx);
  }
};
