// The reference FusedBatchNormV3 and FusedBatchNormGradV3 kernels (NHWC, seen as [rows, channels]
// with rows = N H W): plain loops, rows outer and channels inner so every pass reads x
// contiguously. They serve every dtype, are the oracle the tests hold oneDNN to, and serve
// float32 too when oneDNN is not built or is turned off (Note [Convolution providers] in
// cpu/conv_kernels.cpp). 16-bit floats compute in float32 (Note [Half precision on the CPU]).
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/numeric.hpp"
#include "opdefs/attrs.hpp"

namespace eagle::cpu::reference {

// The dtype of batch norm's scale, offset and statistics: float32 for 16-bit x (TensorFlow's U).
// It is also the type the kernels compute in.
template <class T>
using batch_norm_stat_t = std::conditional_t<kernels::is_half_v<T>, float, T>;

// FusedBatchNormV3's statistics outputs from the statistics that normalized x (`mean` and the
// biased `variance`: the batch's in training, the given ones in inference): batch_mean and
// batch_variance are the inputs in inference; in training the running averages
// (1 - f) old + f batch with the batch variance Bessel-corrected (n / (n - 1), n = rows, the
// elements per channel), or the batch's own when f == 1 (old_mean and old_variance, then empty,
// are not read). reserve_mean and reserve_variance are `mean` and `variance`. Both providers
// call this after computing the statistics, so these outputs are the same bits for the same
// statistics. U is float or double.
template <class U>
void batch_norm_statistics(const opdefs::FusedBatchNormAttrs& a, std::int64_t rows,
                           std::int64_t channels, const U* mean, const U* variance,
                           const U* old_mean, const U* old_variance, U* batch_mean,
                           U* batch_variance, U* reserve_mean, U* reserve_variance);

// FusedBatchNormV3(x [rows, channels], scale, offset, mean, variance) -> y, batch_mean,
// batch_variance, reserve_space_1 (the mean used), reserve_space_2 (the variance used, biased in
// training). Training: the batch's statistics normalize x; inference: the given ones.
template <class T, class U = batch_norm_stat_t<T>>
void fused_batch_norm(const opdefs::FusedBatchNormAttrs& a, std::int64_t rows,
                      std::int64_t channels, const T* x, const U* scale, const U* offset,
                      const U* old_mean, const U* old_variance, T* y, U* batch_mean,
                      U* batch_variance, U* reserve_mean, U* reserve_variance);

// FusedBatchNormGradV3(y_backprop, x, scale, reserve_space_1, reserve_space_2) -> x_backprop,
// scale_backprop, offset_backprop. With x_hat = (x - mean) / sqrt(variance + epsilon) per
// channel: offset_backprop = sum(dy), scale_backprop = sum(dy x_hat); x_backprop =
// scale / sqrt(variance + epsilon) times dy in inference, and times
// (dy - mean(dy) - x_hat mean(dy x_hat)) in training (the statistics depend on x).
template <class T, class U = batch_norm_stat_t<T>>
void fused_batch_norm_grad(const opdefs::FusedBatchNormAttrs& a, std::int64_t rows,
                           std::int64_t channels, const T* dy, const T* x, const U* scale,
                           const U* mean, const U* variance, T* dx, U* scale_backprop,
                           U* offset_backprop);

}  // namespace eagle::cpu::reference
