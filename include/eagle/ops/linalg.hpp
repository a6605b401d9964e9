// Linear algebra and friends: matmul, add_n, softmax, einsum.
#pragma once

#include <string>
#include <vector>

#include "eagle/tensor.hpp"

namespace eagle {

// 2-D: MatMul; rank >= 3 (batch dimensions broadcast): BatchMatMulV2.
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);
Tensor add_n(const std::vector<Tensor>& inputs);
Tensor softmax(const Tensor& logits);  // over the last axis

// tf.einsum (Einsum) for one or two operands: "ij,jk->ik", implicit output ("ij,jk": the labels
// seen once, sorted), "..." broadcasting, repeated labels in an input (traces, diagonals) and
// labels summed away. Transposes and one (batched) matmul, as TensorFlow's kernel.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& inputs);

}  // namespace eagle
