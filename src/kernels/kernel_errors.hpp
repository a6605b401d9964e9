// The errors a kernel raises for the values of its inputs, one text for every backend
// (TensorFlow's texts, the " [Op:Name]" suffix included).
#pragma once

#include <string_view>

#include <fmt/format.h>

#include "eagle/errors.hpp"

namespace eagle::kernels {

// An integer Pow with a negative exponent.
[[noreturn]] inline void throw_negative_integer_power() {
  throw InvalidArgumentError("Integers to negative integer powers are not allowed [Op:Pow]");
}

// An integer division or modulo by zero (Note [Integer division by zero] in
// src/kernels/elementwise_functors.hpp).
[[noreturn]] inline void throw_integer_division_by_zero(std::string_view op) {
  throw InvalidArgumentError(fmt::format("Integer division by zero [Op:{}]", op));
}

}  // namespace eagle::kernels
