// eagle::variable_creator_scope: a thread-local stack of creators that Variable's constructor
// runs innermost first (TensorFlow's variable_creator_scope and its _creator_stack).
#include <cstddef>
#include <utility>
#include <vector>

#include "eagle/errors.hpp"
#include "variables/variable_creator_stack.hpp"

namespace eagle {
namespace {

thread_local std::vector<VariableCreator>* t_creators = nullptr;

std::vector<VariableCreator>& creators() {
  thread_local std::vector<VariableCreator> stack;
  t_creators = &stack;
  return stack;
}

// Calls creator `index` (counting from the outermost) with the rest of the chain below it.
Variable call_creator(const std::vector<VariableCreator>& stack, std::size_t index,
                      const Tensor& initial_value, const VariableOptions& options,
                      const NextVariableCreator& base) {
  // A copy: a creator may open or close scopes while it runs.
  const VariableCreator creator = stack[index];
  const NextVariableCreator next = [&stack, index, &base](const Tensor& init,
                                                          const VariableOptions& o) {
    return index == 0 ? base(init, o) : call_creator(stack, index - 1, init, o, base);
  };
  return creator(next, initial_value, options);
}

}  // namespace

VariableCreatorScope::VariableCreatorScope(VariableCreator creator) {
  if (!creator) throw InvalidArgumentError("variable_creator_scope: the creator is empty");
  std::vector<VariableCreator>& stack = creators();
  stack.push_back(std::move(creator));
  depth_ = stack.size();
}

VariableCreatorScope::~VariableCreatorScope() {
  std::vector<VariableCreator>& stack = creators();
  // Scopes are RAII guards of one thread: they close in reverse order.
  if (stack.size() == depth_) stack.pop_back();
}

namespace detail {

bool has_variable_creators() { return t_creators != nullptr && !t_creators->empty(); }

Variable create_through_creators(const Tensor& initial_value, const VariableOptions& options,
                                 const NextVariableCreator& base) {
  const std::vector<VariableCreator> stack = creators();  // fixed for this creation
  return call_creator(stack, stack.size() - 1, initial_value, options, base);
}

}  // namespace detail
}  // namespace eagle
