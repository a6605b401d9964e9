// Numerically stable softmax over the last axis.
#pragma once

#include "eagle/shape.hpp"

namespace eagle::cpu {

// T: float, double, float16, bfloat16 (the last two computed in float32).
template <class T>
void softmax(const T* in, const Shape& shape, T* out);

}  // namespace eagle::cpu
