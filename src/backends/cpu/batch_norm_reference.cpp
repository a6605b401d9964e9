#include "cpu/batch_norm_reference.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/numeric.hpp"

namespace eagle::cpu::reference {

using std::int64_t;

namespace {

// sums[c] = the sum over rows i of term(i, c), rows outer and channels inner, added in blocks of
// kSumBlock rows whose partial sums are then added in order: a running float sum over 65536 rows
// of a channel of mean 2 was off by 1e-4 relative (y against float64), a blocked one
// stays within the tests' 1e-5.
constexpr int64_t kSumBlock = 256;

template <class U, class Term>
void sum_rows(int64_t rows, int64_t channels, Term term, std::vector<U>& sums) {
  std::vector<U> block(static_cast<std::size_t>(channels));
  for (int64_t begin = 0; begin < rows; begin += kSumBlock) {
    std::fill(block.begin(), block.end(), U{0});
    const int64_t end = std::min(rows, begin + kSumBlock);
    for (int64_t i = begin; i < end; ++i) {
      for (int64_t c = 0; c < channels; ++c) block[c] += term(i, c);
    }
    for (int64_t c = 0; c < channels; ++c) sums[c] += block[c];
  }
}

}  // namespace

template <class U>
void batch_norm_statistics(const opdefs::FusedBatchNormAttrs& a, int64_t rows, int64_t channels,
                           const U* mean, const U* variance, const U* old_mean,
                           const U* old_variance, U* batch_mean, U* batch_variance, U* reserve_mean,
                           U* reserve_variance) {
  const U factor = U(a.exponential_avg_factor);
  const U correction = rows > 1 ? U(rows) / U(rows - 1) : U{1};
  for (int64_t c = 0; c < channels; ++c) {
    reserve_mean[c] = mean[c];
    reserve_variance[c] = variance[c];
    if (!a.is_training) {
      batch_mean[c] = mean[c];
      batch_variance[c] = variance[c];
    } else if (a.exponential_avg_factor == 1.0) {
      batch_mean[c] = mean[c];
      batch_variance[c] = variance[c] * correction;
    } else {
      batch_mean[c] = (U{1} - factor) * old_mean[c] + factor * mean[c];
      batch_variance[c] = (U{1} - factor) * old_variance[c] + factor * variance[c] * correction;
    }
  }
}

template <class T, class U>
void fused_batch_norm(const opdefs::FusedBatchNormAttrs& a, int64_t rows, int64_t channels,
                      const T* x, const U* scale, const U* offset, const U* old_mean,
                      const U* old_variance, T* y, U* batch_mean, U* batch_variance,
                      U* reserve_mean, U* reserve_variance) {
  static_assert(std::is_same_v<U, compute_t<T>>, "batch norm computes in its statistics' type");
  const std::size_t size = static_cast<std::size_t>(channels);
  std::vector<U> mean(size), variance(size);
  if (a.is_training) {
    sum_rows(
        rows, channels, [&](int64_t i, int64_t c) { return U(x[i * channels + c]); }, mean);
    for (int64_t c = 0; c < channels; ++c) mean[c] /= U(rows);
    sum_rows(
        rows, channels,
        [&](int64_t i, int64_t c) {
          const U d = U(x[i * channels + c]) - mean[c];
          return d * d;
        },
        variance);
    for (int64_t c = 0; c < channels; ++c) variance[c] /= U(rows);
  } else {
    for (int64_t c = 0; c < channels; ++c) {
      mean[c] = old_mean[c];
      variance[c] = old_variance[c];
    }
  }
  // y = (x - mean) s + offset per channel, TensorFlow's order (a constant channel gives offset).
  std::vector<U> s(size);
  for (int64_t c = 0; c < channels; ++c) {
    s[c] = scale[c] * (U{1} / std::sqrt(variance[c] + U(a.epsilon)));
  }
  for (int64_t i = 0; i < rows; ++i) {
    const T* in = x + i * channels;
    T* out = y + i * channels;
    for (int64_t c = 0; c < channels; ++c) {
      out[c] = convert<T>((U(in[c]) - mean[c]) * s[c] + offset[c]);
    }
  }
  batch_norm_statistics(a, rows, channels, mean.data(), variance.data(), old_mean, old_variance,
                        batch_mean, batch_variance, reserve_mean, reserve_variance);
}

template <class T, class U>
void fused_batch_norm_grad(const opdefs::FusedBatchNormAttrs& a, int64_t rows, int64_t channels,
                           const T* dy, const T* x, const U* scale, const U* mean,
                           const U* variance, T* dx, U* scale_backprop, U* offset_backprop) {
  static_assert(std::is_same_v<U, compute_t<T>>, "batch norm computes in its statistics' type");
  const std::size_t size = static_cast<std::size_t>(channels);
  std::vector<U> sum_dy(size), sum_dy_xhat(size), inv(size);
  for (int64_t c = 0; c < channels; ++c) inv[c] = U{1} / std::sqrt(variance[c] + U(a.epsilon));
  sum_rows(
      rows, channels, [&](int64_t i, int64_t c) { return U(dy[i * channels + c]); }, sum_dy);
  sum_rows(
      rows, channels,
      [&](int64_t i, int64_t c) {
        return U(dy[i * channels + c]) * (U(x[i * channels + c]) - mean[c]) * inv[c];
      },
      sum_dy_xhat);
  // dx = k (dy - mean_dy - x_hat mean_dy_xhat) in training, k dy in inference.
  std::vector<U> k(size), mean_dy(size), mean_dy_xhat(size);
  for (int64_t c = 0; c < channels; ++c) {
    k[c] = scale[c] * inv[c];
    mean_dy[c] = sum_dy[c] / U(rows);
    mean_dy_xhat[c] = sum_dy_xhat[c] / U(rows);
  }
  for (int64_t i = 0; i < rows; ++i) {
    const T* g = dy + i * channels;
    const T* in = x + i * channels;
    T* out = dx + i * channels;
    if (a.is_training) {
      for (int64_t c = 0; c < channels; ++c) {
        const U x_hat = (U(in[c]) - mean[c]) * inv[c];
        out[c] = convert<T>(k[c] * (U(g[c]) - mean_dy[c] - x_hat * mean_dy_xhat[c]));
      }
    } else {
      for (int64_t c = 0; c < channels; ++c) out[c] = convert<T>(k[c] * U(g[c]));
    }
  }
  for (int64_t c = 0; c < channels; ++c) {
    scale_backprop[c] = sum_dy_xhat[c];
    offset_backprop[c] = sum_dy[c];
  }
}

#define EAGLE_BATCH_NORM_STATISTICS(U)                                                         \
  template void batch_norm_statistics<U>(const opdefs::FusedBatchNormAttrs&, int64_t, int64_t, \
                                         const U*, const U*, const U*, const U*, U*, U*, U*, U*);
EAGLE_BATCH_NORM_STATISTICS(float)
EAGLE_BATCH_NORM_STATISTICS(double)
#undef EAGLE_BATCH_NORM_STATISTICS

#define EAGLE_BATCH_NORM_REFERENCE(T)                                                              \
  template void fused_batch_norm<T>(                                                               \
      const opdefs::FusedBatchNormAttrs&, int64_t, int64_t, const T*, const batch_norm_stat_t<T>*, \
      const batch_norm_stat_t<T>*, const batch_norm_stat_t<T>*, const batch_norm_stat_t<T>*, T*,   \
      batch_norm_stat_t<T>*, batch_norm_stat_t<T>*, batch_norm_stat_t<T>*, batch_norm_stat_t<T>*); \
  template void fused_batch_norm_grad<T>(const opdefs::FusedBatchNormAttrs&, int64_t, int64_t,     \
                                         const T*, const T*, const batch_norm_stat_t<T>*,          \
                                         const batch_norm_stat_t<T>*, const batch_norm_stat_t<T>*, \
                                         T*, batch_norm_stat_t<T>*, batch_norm_stat_t<T>*);
EAGLE_BATCH_NORM_REFERENCE(float)
EAGLE_BATCH_NORM_REFERENCE(double)
EAGLE_BATCH_NORM_REFERENCE(float16)
EAGLE_BATCH_NORM_REFERENCE(bfloat16)
#undef EAGLE_BATCH_NORM_REFERENCE

}  // namespace eagle::cpu::reference
