// CPU reductions over any set of axes, plus argmax. Pure functions over host buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/isa.hpp"
#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"

namespace eagle::cpu {
EAGLE_CPU_ISA_BEGIN

enum class ReduceKind { kSum, kMean, kMax, kMin, kProd, kAny, kAll };

// Reduces `in` (row-major, shape in_shape) over `axes` (sorted, unique, in [0, rank)) into
// `out`, which holds the product of the kept dimensions in row-major order.
// Sums of float16/bfloat16 accumulate in float32, of float32 in float32 with several partial
// sums; integer sums wrap (two's complement). Mean of an empty set: NaN for floats, 0 for
// integers. Max/min of an empty set: the lowest/highest value of T (-inf/inf for floats).
// Max/min propagate NaN. Products wrap for integers; the product of nothing is 1. T: float,
// double, int32_t, int64_t, float16, bfloat16; and bool for kAny / kAll (of nothing: false / true).
template <class T>
void reduce(ReduceKind kind, const T* in, const Shape& in_shape, const std::vector<int>& axes,
            T* out);

// Index of the first largest (smallest) element along `axis`, passing over NaN as TensorFlow
// does (Note [ArgMax and NaN]). `out` holds in_shape without `axis`. T: the reduce types and bool.
template <class T>
void argmax(const T* in, const Shape& in_shape, int axis, std::int64_t* out);
template <class T>
void argmin(const T* in, const Shape& in_shape, int axis, std::int64_t* out);

EAGLE_CPU_ISA_END
}  // namespace eagle::cpu
