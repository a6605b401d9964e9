// The thread's stack of variable creators (eagle::variable_creator_scope), as Variable's
// constructor walks it.
#pragma once

#include "eagle/variable_creator.hpp"

namespace eagle::detail {

// Whether any creator is installed on this thread (one thread-local load: the plain path).
bool has_variable_creators();
// Runs the creators innermost first, `base` at the end of the chain.
Variable create_through_creators(const Tensor& initial_value, const VariableOptions& options,
                                 const NextVariableCreator& base);

}  // namespace eagle::detail
