// Matrix products on the CPU: OpenBLAS or oneDNN for float32 (Note [Matmul providers] in
// matmul.cpp), OpenBLAS for float64, blocked loops for integers, float16/bfloat16 through
// float32 GEMM.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eagle/shape.hpp"

namespace eagle::cpu {

// One (possibly batched) product. a: [..., m, k] (or [..., k, m] when transpose_a), b likewise;
// batch dimensions of a and b broadcast to out_shape's batch dimensions (NumPy rules, already
// validated by the caller). out: out_shape = [batch..., m, n], row-major.
// Integer products wrap (two's complement).
template <class T>
void matmul(const T* a, const Shape& a_shape, const T* b, const Shape& b_shape, bool transpose_a,
            bool transpose_b, T* out, const Shape& out_shape);

// The float32 GEMM providers this build has: "openblas" always, "onednn" when built with oneDNN.
std::vector<std::string> built_matmul_providers();
// EAGLE_MATMUL_PROVIDER (auto, onednn, openblas); auto (or unset) is oneDNN when built.
// InvalidArgumentError for a provider this build lacks or an unknown name.
std::string choose_matmul_provider();
// Makes `provider` (one of built_matmul_providers()) serve every later float32 product.
void set_matmul_provider(const std::string& provider);
// The provider serving float32 products in this process.
std::string active_matmul_provider();

}  // namespace eagle::cpu
