// The kernels that touch no bytes of a tensor, written once for every backend: their outputs
// alias their inputs (tensors are immutable) or are a fresh buffer nobody has written yet.
#pragma once

#include "runtime/device.hpp"
#include "runtime/kernel_table.hpp"

namespace eagle::portable {

// Registers Identity, IdentityN, StopGradient, Reshape, ExpandDims, Squeeze, VarHandleOp and
// ReadVariableOp for `type`'s devices, for the dtypes the op table's column of `type` names.
// A simulated GPU gets them with the rest of the CPU's kernels (Note [GPU kernel set]).
void register_portable_kernels(runtime::KernelTable& table, runtime::DeviceType type);

}  // namespace eagle::portable
