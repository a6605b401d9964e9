// oneDNN's batch normalization for float32 FusedBatchNormV3 and FusedBatchNormGradV3 on eagle's
// NHWC buffers (issue 17). Built only with EAGLE_WITH_ONEDNN; the provider is chosen with the
// convolutions' (Note [Convolution providers] in cpu/conv_kernels.cpp).
//
// Note [Batch norm on oneDNN]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// - oneDNN's primitives read and write eagle's nhwc buffers in place (its JIT kernels take nhwc
//   as they are); scale and shift are separate arguments (use_scale | use_shift; oneDNN 2.6's
//   backward also lists the shift among its inputs, though no gradient reads it).
// - Training runs forward_training, which computes the batch mean and the biased variance;
//   TensorFlow's other outputs (the running averages with exponential_avg_factor, the
//   Bessel-corrected variance, the reserve spaces) are computed after it by
//   reference::batch_norm_statistics, the reference kernel's own arithmetic, so given the same
//   statistics both providers return the same bits there. Inference and the inference gradient
//   use the given statistics (use_global_stats).
// - Primitives are cached and run as Note [oneDNN primitives] says, keyed by the shape, epsilon,
//   the flags and the OpenMP team size. The statistics span the whole batch, so Note [Batch
//   blocks] does not apply: one primitive runs on a team of min(intra-op threads, bytes moved /
//   kMinChunkBytes) threads, the rule of parallel_for (Note [Intra-op parallelism]). oneDNN
//   reduces each thread's partial sums, so the statistics and gradients on two threads may
//   differ from one thread's in the last bits (tests/nn_ops_test.cpp holds both to the
//   reference at 1e-5). Each thread sums its rows in one running float32 sum, so at hundreds of
//   thousands of rows per channel the variance is off by up to 1e-4 relative (the reference,
//   summing in blocks, by about 1e-6; docs/performance.md, "Batch norm on oneDNN").
// - The team pays what Note [Batch blocks] avoids for convolutions: each of oneDNN's barriers
//   waits for a thread that is off its core. On an idle 2-core machine two threads take
//   0.5-0.65 of one thread's time; on the dev VM loaded by builds, 10-20 times as long. Channel
//   blocks would avoid the barriers, but oneDNN 2.6 runs a strided channel slice of an nhwc
//   tensor on its reference implementation (bnorm_ref:any), not its JIT kernels.
// - So the kernels use oneDNN only where its team would have more than one thread
//   (threaded_team): on one thread the reference is as fast (15% faster on the seed's
//   128x26x26x32) and two orders of magnitude more accurate at large batches.
#pragma once

#include <cstdint>
#include <string>

#include "opdefs/attrs.hpp"

namespace eagle::cpu::onednn {

// x's NHWC dimensions.
struct BatchNormShape {
  std::int64_t batch, height, width, channels;
};

// FusedBatchNormV3 in float32: the arguments of reference::fused_batch_norm, with x's shape.
void fused_batch_norm(const opdefs::FusedBatchNormAttrs& a, const BatchNormShape& s, const float* x,
                      const float* scale, const float* offset, const float* old_mean,
                      const float* old_variance, float* y, float* batch_mean, float* batch_variance,
                      float* reserve_mean, float* reserve_variance);

// FusedBatchNormGradV3 in float32: the arguments of reference::fused_batch_norm_grad.
void fused_batch_norm_grad(const opdefs::FusedBatchNormAttrs& a, const BatchNormShape& s,
                           const float* dy, const float* x, const float* scale, const float* mean,
                           const float* variance, float* dx, float* scale_backprop,
                           float* offset_backprop);

// The implementation oneDNN chose for a forward (training or not) of this shape on the current
// intra-op thread count, "bnorm_jit:avx512_core" and the like (for the benchmark and the tests).
// Whether FusedBatchNormV3 of shape s (or its gradient, `backward`) would run on a team of more
// than one thread, the only case in which the kernels choose oneDNN over the reference.
bool threaded_team(const opdefs::FusedBatchNormAttrs& a, const BatchNormShape& s, bool backward);

std::string batch_norm_implementation(const opdefs::FusedBatchNormAttrs& a,
                                      const BatchNormShape& s);

}  // namespace eagle::cpu::onednn
