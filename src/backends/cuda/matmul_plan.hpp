// A (batched) row-major matrix product as cuBLAS (column-major) sees it, with the transposes
// folded into the call and batch broadcasting as strides or, when no single stride describes it,
// as per-matrix offsets. Host code only (no CUDA), unit-tested on any machine.
#pragma once

#include <cstdint>
#include <vector>

#include "eagle/shape.hpp"

namespace eagle::cuda {

// out[b] (m x n, row-major) = op(a[b]) (m x k) * op(b[b]) (k x n). cuBLAS computes the
// column-major product out^T = op(b)^T op(a)^T, so its first operand is b: the fields below are
// the arguments of cublasGemm*Ex in the order cuBLAS takes them.
struct MatmulPlan {
  std::int64_t m = 0, n = 0, k = 0;  // of the row-major product
  std::int64_t batch = 1;            // number of output matrices
  bool transpose_first = false;      // cuBLAS transa: the row-major b is transposed
  bool transpose_second = false;     // cuBLAS transb: the row-major a is transposed
  std::int64_t ld_first = 1;         // leading dimension of b's storage
  std::int64_t ld_second = 1;        // leading dimension of a's storage
  std::int64_t ld_out = 1;
  // Batches as strides (in elements; 0 for an operand broadcast over the batch), or, when
  // `strided` is false, as one element offset per output matrix into a and b.
  bool strided = true;
  std::int64_t stride_a = 0, stride_b = 0, stride_out = 0;
  std::vector<std::int64_t> offsets_a, offsets_b;
};

// a: [..., m, k] ([..., k, m] when transpose_a), b likewise; out_shape the validated result shape
// [batch..., m, n]. Both ranks >= 2.
MatmulPlan make_matmul_plan(const Shape& a, const Shape& b, bool transpose_a, bool transpose_b,
                            const Shape& out_shape);

}  // namespace eagle::cuda
