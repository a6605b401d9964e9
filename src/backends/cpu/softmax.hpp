// Numerically stable softmax over the last axis.
#pragma once

#include "cpu/isa.hpp"
#include "eagle/shape.hpp"

namespace eagle::cpu {
EAGLE_CPU_ISA_BEGIN

// T: float, double, float16, bfloat16 (the last two computed in float32).
template <class T>
void softmax(const T* in, const Shape& shape, T* out);

EAGLE_CPU_ISA_END
}  // namespace eagle::cpu
