// Validation shared by the ops: TensorFlow's messages, each ending in " [Op:<Name>]".
#pragma once

#include <string>
#include <vector>

#include "eagle/errors.hpp"
#include "eagle/ops/reduce.hpp"
#include "eagle/tensor.hpp"
#include "opdefs/op_defs.hpp"
#include "runtime/dispatcher.hpp"

namespace eagle::ops {

[[noreturn]] void throw_invalid(opdefs::OpId op, const std::string& message);

// Undefined handles are a user error, not a crash.
void check_defined(const Tensor& x, opdefs::OpId op, int index = 0);
// "cannot compute AddV2 as input #1(zero-based) was expected to be a float tensor but is a
// int32 tensor [Op:AddV2]"
void check_same_dtype(opdefs::OpId op, const Tensor* inputs, int n);
// NotFoundError through the placer's message when no kernel exists for the dtype is raised
// by the dispatcher; this is for dtypes an op rejects before placement.
Shape broadcast_shapes(opdefs::OpId op, const Shape& a, const Shape& b);
// Maps a possibly negative axis into [0, rank); InvalidArgumentError names the valid range.
int normalize_axis(opdefs::OpId op, int axis, int rank);

// The axes `axes` names in a tensor of `in`'s rank: sorted, unique, in [0, rank); TensorFlow's
// "Invalid reduction dimension" and "Axes contains duplicate dimension" errors.
std::vector<int> normalized_axes(opdefs::OpId op, const Shape& in, const Axes& axes);
// `in` without the (normalized) `axes`, or with them as 1 when `keepdims`.
Shape reduced_shape(const Shape& in, const std::vector<int>& axes, bool keepdims);

// Dispatches an op with one input whose dtype keys the kernel.
Tensor run_unary(opdefs::OpId op, const Tensor& x, const Shape& out_shape, DType out_dtype,
                 const opdefs::OpAttrs& attrs = runtime::no_attrs());

}  // namespace eagle::ops
