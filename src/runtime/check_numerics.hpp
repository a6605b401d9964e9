// enable_check_numerics's check of one executed op (the dispatcher calls it after the kernel).
#pragma once

#include "eagle/tensor.hpp"
#include "opdefs/op_defs.hpp"

namespace eagle::runtime {

// InvalidArgumentError with TensorFlow's check_numerics callback text when a floating output of
// `op` holds a NaN or an infinity; nothing for TensorFlow's SAFE_OPS and Identity.
void check_output_numerics(opdefs::OpId op, const Tensor* inputs, int num_inputs,
                           const Tensor* outputs, int num_outputs);

}  // namespace eagle::runtime
