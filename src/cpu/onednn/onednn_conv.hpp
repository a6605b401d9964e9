// oneDNN (Debian libdnnl, v2 API) for the float32 convolution and pooling ops: the one place
// eagle calls it. Built only with EAGLE_WITH_ONEDNN (CMake option EAGLE_ONEDNN); the choice of
// provider is Note [Convolution providers] in cpu/conv_kernels.cpp.
//
// Note [oneDNN primitives]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// - Activations are described as nhwc and filters as hwio, eagle's own layouts, so oneDNN reads
//   and writes eagle's buffers in place: no reorder of any tensor.
// - A primitive is created once per (kind, geometry) and kept in a process-wide cache behind a
//   mutex (creation costs tens of microseconds to milliseconds; a lookup well under one).
// - Primitives run with a user scratchpad allocated per call, so one primitive may run on several
//   threads at once (oneDNN's library-managed scratchpad is shared per primitive).
// - libdnnl is built with OpenMP: each call sets the calling thread's OpenMP team size to eagle's
//   intra-op thread count (config::threading), so oneDNN uses the threads eagle is allowed.
// - Max pooling backward needs the forward's workspace (where each maximum was): MaxPoolGrad runs
//   the forward-training primitive on orig_input first. oneDNN's kernels pick the first maximum
//   of a window, TensorFlow's rule; tests/nn_conv_test.cpp checks it on ties.
#pragma once

#include <string>

#include "ops/attrs.hpp"

namespace eagle::cpu::onednn {

void conv2d(const ops::Conv2DAttrs& a, const float* input, const float* filter, float* output);
void conv2d_backprop_input(const ops::Conv2DAttrs& a, const float* filter,
                           const float* out_backprop, float* input_backprop);
void conv2d_backprop_filter(const ops::Conv2DAttrs& a, const float* input,
                            const float* out_backprop, float* filter_backprop);
void max_pool(const ops::Pool2DAttrs& a, const float* input, float* output);
void max_pool_grad(const ops::Pool2DAttrs& a, const float* input, const float* grad,
                   float* input_grad);
void avg_pool(const ops::Pool2DAttrs& a, const float* input, float* output);
void avg_pool_grad(const ops::Pool2DAttrs& a, const float* grad, float* input_grad);

// "jit:avx512_core" and the like: the implementation oneDNN chose for a Conv2D of this geometry
// (for the benchmark's report and the tests).
std::string conv2d_implementation(const ops::Conv2DAttrs& a);

}  // namespace eagle::cpu::onednn
