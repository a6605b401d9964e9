// tf.strings: ops on string tensors (dtype kString), on the CPU as TensorFlow's (Note [String
// tensors]); under a GPU scope they run on the CPU by soft placement, with the usual log line.
#pragma once

#include <string>
#include <vector>

#include "eagle/ops/reduce.hpp"
#include "eagle/tensor.hpp"

namespace eagle::strings {

// tf.strings.join (StringJoin): the inputs joined element by element with `separator`. Each
// input is a string tensor of one common shape, or a scalar used for every element;
// InvalidArgumentError "Input shapes do not match: [2] vs. [3]" otherwise.
Tensor join(const std::vector<Tensor>& inputs, const std::string& separator = "");

// tf.strings.length (StringLength): int32 lengths, in bytes ("BYTE") or in UTF-8 characters
// ("UTF8_CHAR").
Tensor length(const Tensor& input, const std::string& unit = "BYTE");

// tf.strings.as_string (AsString): numbers and booleans as strings, formatted as TensorFlow's
// printf-style kernel does: floats "%f" by default ("1.500000"), with `precision` digits,
// `scientific` ("%e") or `shortest` ("%g"); integers "%d"; booleans "true" / "false"; `width`
// pads to that width with spaces, or with `fill` ("0", " ", "+", "-", "#").
Tensor as_string(const Tensor& input, int precision = -1, bool scientific = false,
                 bool shortest = false, int width = -1, const std::string& fill = "");

// tf.strings.reduce_join (ReduceJoin): the strings along `axes` joined with `separator`, in
// row-major order; every axis by default (a scalar).
Tensor reduce_join(const Tensor& inputs, const Axes& axes = {}, bool keepdims = false,
                   const std::string& separator = "");

}  // namespace eagle::strings
