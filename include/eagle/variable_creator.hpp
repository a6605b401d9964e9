// eagle::variable_creator_scope: the hook through which whoever owns a scope decides how the
// variables created in it are made (TensorFlow's tf.variable_creator_scope). A distribution
// strategy's scope() installs one to mirror its variables; variables/ knows nothing of it.
#pragma once

#include <cstdint>
#include <functional>

#include "eagle/tensor.hpp"
#include "eagle/variable.hpp"

namespace eagle {

// The rest of the chain: the next outer creator, or the plain creation at the end of the chain.
using NextVariableCreator =
    std::function<Variable(const Tensor& initial_value, const VariableOptions& options)>;
// A creator: makes the variable itself, or calls `next` (once or several times: a mirrored
// variable's components are each made by `next` under their device's scope) and wraps what it
// returns.
using VariableCreator = std::function<Variable(
    const NextVariableCreator& next, const Tensor& initial_value, const VariableOptions& options)>;

// While it lives, every Variable constructed on this thread goes through `creator` (innermost
// first, as TensorFlow chains them). Scopes end in the reverse order of their opening.
class [[nodiscard]] VariableCreatorScope {
 public:
  explicit VariableCreatorScope(VariableCreator creator);
  ~VariableCreatorScope();
  VariableCreatorScope(const VariableCreatorScope&) = delete;
  VariableCreatorScope& operator=(const VariableCreatorScope&) = delete;
  VariableCreatorScope(VariableCreatorScope&&) = delete;
  VariableCreatorScope& operator=(VariableCreatorScope&&) = delete;

 private:
  std::uint64_t depth_;
};

//   auto scope = eagle::variable_creator_scope(
//       [](const eagle::NextVariableCreator& next, const eagle::Tensor& init,
//          const eagle::VariableOptions& options) {
//         eagle::VariableOptions renamed = options;
//         renamed.name = "model/" + options.name;
//         return next(init, renamed);
//       });
inline VariableCreatorScope variable_creator_scope(VariableCreator creator) {
  return VariableCreatorScope(std::move(creator));
}

}  // namespace eagle
