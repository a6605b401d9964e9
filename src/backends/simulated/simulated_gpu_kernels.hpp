// The simulated GPUs' kernels: the CPU kernel of every (op, dtype) that the GPU kernel set
// declares (Note [GPU kernel set]), registered under the GPU device type.
#pragma once

#include "runtime/kernel_table.hpp"

namespace eagle::simulated {

// Call after the CPU kernels are registered. A declared pair without a CPU kernel is an
// InternalError: the declaration and the CPU backend disagree.
void register_simulated_gpu_kernels(runtime::KernelTable& table);

}  // namespace eagle::simulated
