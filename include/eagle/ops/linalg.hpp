// Linear algebra and friends: matmul, add_n, softmax.
#pragma once

#include <vector>

#include "eagle/tensor.hpp"

namespace eagle {

// 2-D: MatMul; rank >= 3 (batch dimensions broadcast): BatchMatMulV2.
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);
Tensor add_n(const std::vector<Tensor>& inputs);
Tensor softmax(const Tensor& logits);  // over the last axis

}  // namespace eagle
