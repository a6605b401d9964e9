// Matrix products on the CPU: OpenBLAS for float32/float64, blocked loops for integers,
// float16/bfloat16 through float32 GEMM.
#pragma once

#include <cstdint>

#include "eagle/shape.hpp"

namespace eagle::cpu {

// One (possibly batched) product. a: [..., m, k] (or [..., k, m] when transpose_a), b likewise;
// batch dimensions of a and b broadcast to out_shape's batch dimensions (NumPy rules, already
// validated by the caller). out: out_shape = [batch..., m, n], row-major.
// Integer products wrap (two's complement).
template <class T>
void matmul(const T* a, const Shape& a_shape, const T* b, const Shape& b_shape, bool transpose_a,
            bool transpose_b, T* out, const Shape& out_shape);

}  // namespace eagle::cpu
