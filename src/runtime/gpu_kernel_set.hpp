// The (op, dtype) pairs a GPU implements: the one declaration that the CUDA backend registers
// kernels for and that the simulated GPUs accept, so soft placement decides the same on both
// (Note [GPU kernel set]).
#pragma once

#include "eagle/dtype.hpp"
#include "runtime/op_id.hpp"

namespace eagle::runtime {

bool gpu_implements(OpId op, DType dtype);

}  // namespace eagle::runtime
