// The ops gradient functions are written with, beyond the public ones: TensorFlow's fused
// activation gradients (ReluGrad, SigmoidGrad, ...) and the reductions that undo broadcasting.
#pragma once

#include <cstdint>
#include <vector>

#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"

namespace eagle::autodiff {

// TensorFlow's operand order: ReluGrad(gradients, features); the others (y, dy), y the forward
// op's output. Same shapes, floating dtypes.
Tensor relu_grad(const Tensor& gradients, const Tensor& features);
Tensor sigmoid_grad(const Tensor& y, const Tensor& dy);
Tensor tanh_grad(const Tensor& y, const Tensor& dy);
Tensor sqrt_grad(const Tensor& y, const Tensor& dy);
Tensor rsqrt_grad(const Tensor& y, const Tensor& dy);
Tensor reciprocal_grad(const Tensor& y, const Tensor& dy);
// BiasAddGrad: out_backprop summed over every axis but the last.
Tensor bias_add_grad(const Tensor& out_backprop);

// `g` (of a broadcast result) summed over the axes that broadcasting added or stretched, so it
// has `shape` (TensorFlow's BroadcastGradientArgs + Sum + Reshape). Returns g when it already
// has that shape.
Tensor sum_to(const Tensor& g, const Shape& shape);
Tensor reshape_to(const Tensor& x, const Shape& shape);
// The gradient of a gather along one axis with indices known on the host: the result has `size`
// entries along `axis`, entry i the sum of g's entries j with source[j] == i (one matmul with a
// one-hot matrix, so every backend has it). Used by MirrorPad and StridedSlice.
Tensor scatter_along_axis(const Tensor& g, int axis, const std::vector<std::int64_t>& source,
                          std::int64_t size);

}  // namespace eagle::autodiff
