// MirroredVariable: the policy of a MirroredStrategy's variables (Note [Distributed variables] in
// src/variables/variable_state.hpp), and the strategy's variable creator that makes them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "eagle/variable.hpp"
#include "eagle/variable_creator.hpp"
#include "variables/variable_state.hpp"

namespace eagle::distribute::detail {

class StrategyRuntime;

class MirroredVariable final : public eagle::detail::DistributedVariablePolicy {
 public:
  MirroredVariable(std::uint64_t strategy_id, std::vector<std::string> devices,
                   std::vector<std::shared_ptr<eagle::detail::VariableState>> components)
      : strategy_id_(strategy_id),
        devices_(std::move(devices)),
        components_(std::move(components)) {}

  const std::vector<std::shared_ptr<eagle::detail::VariableState>>& components() const override {
    return components_;
  }
  const std::shared_ptr<eagle::detail::VariableState>& resolve(
      const eagle::detail::VariableState& proxy) const override;
  std::vector<std::pair<const eagle::detail::VariableState*, Tensor>> assignment(
      const eagle::detail::VariableState& proxy, const Tensor& value,
      const char* op) const override;
  Variable create_like(const Tensor& initial_value, const VariableOptions& options) const override;
  const char* kind() const override { return "MirroredVariable"; }
  std::uint64_t owner() const override { return strategy_id_; }

 private:
  std::uint64_t strategy_id_;
  std::vector<std::string> devices_;
  std::vector<std::shared_ptr<eagle::detail::VariableState>> components_;
};

// The variable creator of a MirroredStrategy's scope and replica threads: a MirroredVariable over
// the strategy's devices, each component made by `next` under its device's scope. In the
// cross-replica context the calling thread creates it (worker 0's initial value under a
// MultiWorkerMirroredStrategy); in a replica function the k-th variable of a name that the
// replicas create is one variable, made by the first replica to get there from its initial value
// (StrategyRuntime::create_in_replicas): every replica holds the same mirrored variable, as in
// TensorFlow.
Variable create_mirrored_variable(const StrategyRuntime& runtime, const NextVariableCreator& next,
                                  const Tensor& initial_value, const VariableOptions& options);

}  // namespace eagle::distribute::detail
