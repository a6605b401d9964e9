// The CPU kernels of Conv2D, its backprops and the pooling ops, and the choice of who computes
// them (Note [Convolution providers]).
#pragma once

#include <string>
#include <vector>

#include "runtime/kernel_table.hpp"

namespace eagle::cpu {

// The providers this build has: "reference" always, "onednn" when built with oneDNN.
std::vector<std::string> built_conv_providers();
// EAGLE_CONV_PROVIDER (auto, onednn, reference); auto (or unset) is oneDNN when built.
// InvalidArgumentError for a provider this build lacks or an unknown name.
std::string choose_conv_provider();
// The provider registered for float32 in this process ("" before the kernels are registered).
std::string active_conv_provider();

void register_conv_kernels(runtime::KernelTable& table);

}  // namespace eagle::cpu
