// oneDNN (Debian libdnnl, v2 API) for the float32 convolutions and average pooling (batch norm:
// onednn_batch_norm.hpp; what they share: onednn_common.hpp). Built only with EAGLE_WITH_ONEDNN
// (CMake option EAGLE_ONEDNN); the choice of provider is Note [Convolution providers] in
// cpu/conv_kernels.cpp.
//
// Note [oneDNN primitives]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// - Pooling reads and writes eagle's nhwc buffers in place. Convolutions let oneDNN choose
//   their layouts (Note [oneDNN layouts]).
// - A primitive is created once per (kind, geometry) and kept in a process-wide cache behind a
//   mutex (creation costs tens of microseconds to milliseconds; a lookup well under one).
// - Primitives run with a user scratchpad allocated per call, so one primitive may run on several
//   threads at once (oneDNN's library-managed scratchpad is shared per primitive).
// - libdnnl is built with OpenMP: each call sets the calling thread's OpenMP team size to eagle's
//   intra-op thread count (config::threading), so oneDNN uses the threads eagle is allowed. Its
//   JIT kernels fix their thread count when the primitive is made (from that team size) and
//   always run on that many threads, so the cache key holds the count too, and a primitive is
//   made under the team size it will run on (one made under the default team of every core and
//   run after omp_set_num_threads(1) still took two threads: `--threads 1` was not one thread).
// - Max pooling is eagle's own (Note [Direct max pooling] in cpu/max_pool_direct.cpp): oneDNN's
//   drops NaN and needs the forward's workspace for its backward pass.
//
// Note [oneDNN layouts]
// ~~~~~~~~~~~~~~~~~~~~~
// Given plain nhwc/hwio descriptors, Debian's oneDNN 2.6 picks its gemm-based convolution
// (im2col + sgemm, `x64:gemm:jit`), which on the seed CNN's shapes is about half as fast as its
// direct JIT kernels and, on two OpenMP threads, 4-10x slower than on one in backward-data
// (docs/performance.md, "Seed CNN: where the time goes"). What forces gemm is the filter's hwio:
// with the filter's layout left to oneDNN (format_tag::any), its JIT kernels take eagle's nhwc
// activations as they are (brgconv forward, jit backward data and weights on AVX-512). So each
// convolution is first described with nhwc activations and an `any` filter; only when oneDNN
// has no direct kernel for that (gemm or ref; an older CPU) are the activations' layouts left
// to it too (blocked nChw16c, say). Each primitive keeps, beside itself, a reorder per argument
// whose chosen layout differs from eagle's: inputs are reordered into per-thread staging
// buffers, the output is reordered back into eagle's nhwc/hwio tensor (an eager library cannot
// keep a blocked tensor between ops). With nhwc activations only the small filter is reordered:
// the backward passes lost the reorders of their activations, which had cost 8-13% of them
// (resnet's filter gradient 85 -> 75 ms, the seed's second layer's 1.9 -> 1.55 ms on 2 threads).
// A layout that puts every element where eagle's does (nchw with one channel) is used in place.
#pragma once

#include <optional>
#include <string>

#include "cpu/conv_epilogue.hpp"
#include "opdefs/attrs.hpp"

namespace eagle::cpu::onednn {

// With an epilogue: _FusedConv2D (Note [Fused convolutions]).
void conv2d(const opdefs::Conv2DAttrs& a, const float* input, const float* filter, float* output,
            const ConvEpilogue& epilogue = {});
void conv2d_backprop_input(const opdefs::Conv2DAttrs& a, const float* filter,
                           const float* out_backprop, float* input_backprop);
void conv2d_backprop_filter(const opdefs::Conv2DAttrs& a, const float* input,
                            const float* out_backprop, float* filter_backprop);
void avg_pool(const opdefs::Pool2DAttrs& a, const float* input, float* output);
void avg_pool_grad(const opdefs::Pool2DAttrs& a, const float* grad, float* input_grad);

// The forward convolution whose output is Conv2DBackpropInput's for geometry a, where that is
// how it runs (Note [Backprop-input as a forward convolution] in onednn_conv.cpp).
std::optional<opdefs::Conv2DAttrs> backprop_input_as_forward(const opdefs::Conv2DAttrs& a);

enum class ConvPass { kForward, kBackwardData, kBackwardWeights };

// "jit:avx512_core" and the like: the implementation oneDNN chose for a Conv2D of this geometry,
// or one of its backprops (for the benchmark's report and the tests).
std::string conv2d_implementation(const opdefs::Conv2DAttrs& a, ConvPass pass = ConvPass::kForward);

// Whether that primitive reads and writes eagle's nhwc activations in place, without reorders
// (Note [oneDNN layouts]).
bool conv2d_activations_in_place(const opdefs::Conv2DAttrs& a, ConvPass pass);

}  // namespace eagle::cpu::onednn
