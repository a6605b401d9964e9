// The reference convolution and pooling kernels (NHWC, HWIO filters): im2col + the CPU matmul
// (OpenBLAS) for the convolutions, plain loops for pooling. They serve every dtype, are the
// oracle the tests hold oneDNN to, and serve float32 too when oneDNN is not built or is turned
// off (Note [Convolution providers] in cpu/conv_kernels.cpp).
#pragma once

#include "opdefs/attrs.hpp"

namespace eagle::cpu::reference {

// T is float or double (float16/bfloat16 go through float in cpu/conv_kernels.cpp); max_pool
// also takes std::int32_t and std::int64_t.
template <class T>
void conv2d(const opdefs::Conv2DAttrs& a, const T* input, const T* filter, T* output);
template <class T>
void conv2d_backprop_input(const opdefs::Conv2DAttrs& a, const T* filter, const T* out_backprop,
                           T* input_backprop);
template <class T>
void conv2d_backprop_filter(const opdefs::Conv2DAttrs& a, const T* input, const T* out_backprop,
                            T* filter_backprop);

template <class T>
void max_pool(const opdefs::Pool2DAttrs& a, const T* input, T* output);
// The gradient goes to the first maximum of each window in row-major window order.
template <class T>
void max_pool_grad(const opdefs::Pool2DAttrs& a, const T* input, const T* grad, T* input_grad);
template <class T>
void avg_pool(const opdefs::Pool2DAttrs& a, const T* input, T* output);
template <class T>
void avg_pool_grad(const opdefs::Pool2DAttrs& a, const T* grad, T* input_grad);

}  // namespace eagle::cpu::reference
