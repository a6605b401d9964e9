// The one path every op takes: scope check, placement, input copies, kernel, log line.
#pragma once

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"
#include "runtime/op_id.hpp"

namespace eagle::runtime {

struct OpCall {
  OpId op;
  DType kernel_dtype;  // the kernel-table key (usually the first input's dtype)
  const Tensor* inputs;
  int num_inputs;
  const Shape& output_shape;  // inferred and validated by the op before dispatch
  DType output_dtype;
  const void* attrs = nullptr;
  bool is_constant = false;  // Const: host default, always soft, no log line (SEMANTICS §4)
};

Tensor execute(const OpCall& call);

}  // namespace eagle::runtime
