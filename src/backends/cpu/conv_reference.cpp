#include "cpu/conv_reference.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "cpu/intra_op_pool.hpp"
#include "cpu/matmul.hpp"

namespace eagle::cpu::reference {
namespace {

using std::int64_t;

// The patch matrix of a convolution: row m = (n, oh, ow) holds the filter_height x filter_width x
// in_channels input values under the filter at that output position (zeros in the padding), in
// the filter's HWIO order, so patches x filter[K, out_channels] is the convolution. For group g
// of a grouped convolution (Note [Grouped convolution] in ops/conv_ops.cpp) a patch holds only
// the group's in_channels / groups input channels.
struct Patches {
  const opdefs::Conv2DAttrs& a;
  int64_t channels;       // the input channels of one group: all of them without groups
  int64_t first_channel;  // the group's first input channel
  explicit Patches(const opdefs::Conv2DAttrs& attrs, int64_t group = 0)
      : a(attrs),
        channels(attrs.group_in_channels()),
        first_channel(group * attrs.group_in_channels()) {}
  int64_t rows() const { return a.batch * a.out_height * a.out_width; }
  int64_t width() const { return a.filter_height * a.filter_width * channels; }
  // Patches that are the input itself: a 1x1 filter at stride 1, one group.
  bool identity() const {
    return a.filter_height == 1 && a.filter_width == 1 && a.stride_h == 1 && a.stride_w == 1 &&
           a.pad_top == 0 && a.pad_left == 0 && a.groups == 1;
  }
  // Rows per block: the patch matrix of a batch of 128 56x56x64 images under a 3x3 filter is
  // 0.9 GB in float32, so it is built and used 4M values at a time.
  int64_t block_rows() const { return std::max<int64_t>(1, (int64_t{4} << 20) / width()); }

  // Visits the input elements under row m's filter: f(row offset, input offset or -1 for
  // padding), each a run of `channels` values.
  template <class F>
  void for_each_tap(int64_t m, F&& f) const {
    const int64_t ow = m % a.out_width;
    const int64_t oh = (m / a.out_width) % a.out_height;
    const int64_t n = m / (a.out_width * a.out_height);
    const int64_t C = a.in_channels;
    for (int64_t kh = 0; kh < a.filter_height; ++kh) {
      const int64_t ih = oh * a.stride_h - a.pad_top + kh * a.dilation_h;
      for (int64_t kw = 0; kw < a.filter_width; ++kw) {
        const int64_t iw = ow * a.stride_w - a.pad_left + kw * a.dilation_w;
        const bool inside = ih >= 0 && ih < a.in_height && iw >= 0 && iw < a.in_width;
        f((kh * a.filter_width + kw) * channels,
          inside ? ((n * a.in_height + ih) * a.in_width + iw) * C + first_channel : int64_t{-1});
      }
    }
  }

  template <class T>
  void gather(const T* input, int64_t m0, int64_t m1, T* out) const {
    const int64_t K = width(), C = channels;
    parallel_for(m1 - m0, K * static_cast<int64_t>(sizeof(T)) * 2, [&](int64_t b, int64_t e) {
      for (int64_t m = m0 + b; m < m0 + e; ++m) {
        T* row = out + (m - m0) * K;
        for_each_tap(m, [&](int64_t at, int64_t from) {
          if (from < 0) {
            std::fill(row + at, row + at + C, T(0));
          } else {
            std::memcpy(row + at, input + from, static_cast<std::size_t>(C) * sizeof(T));
          }
        });
      }
    });
  }

  // input_grad += the patch rows [m0, m1) added back where they came from (col2im). Serial:
  // overlapping windows add to the same elements.
  template <class T>
  void scatter_add(const T* rows_in, int64_t m0, int64_t m1, T* input_grad) const {
    const int64_t K = width(), C = channels;
    for (int64_t m = m0; m < m1; ++m) {
      const T* row = rows_in + (m - m0) * K;
      for_each_tap(m, [&](int64_t at, int64_t to) {
        if (to < 0) return;
        T* dst = input_grad + to;
        for (int64_t c = 0; c < C; ++c) dst[c] += row[at + c];
      });
    }
  }
};

// Columns [first, first + count) of a [rows, ld] matrix, packed into a [rows, count] one.
template <class T>
void pack_columns(const T* from, int64_t rows, int64_t ld, int64_t first, int64_t count, T* to) {
  for (int64_t r = 0; r < rows; ++r) {
    std::copy(from + r * ld + first, from + r * ld + first + count, to + r * count);
  }
}

// The reverse: a [rows, count] matrix into columns [first, first + count) of a [rows, ld] one.
template <class T>
void unpack_columns(const T* from, int64_t rows, int64_t count, T* to, int64_t ld, int64_t first) {
  for (int64_t r = 0; r < rows; ++r) {
    std::copy(from + r * count, from + (r + 1) * count, to + r * ld + first);
  }
}

// A grouped convolution group by group: each group's patches (its input channels) times its
// filters (HWIO's output columns [g * O/G, (g+1) * O/G), packed) into its output columns.
template <class T>
void grouped_conv2d(const opdefs::Conv2DAttrs& a, const T* input, const T* filter, T* output) {
  const int64_t O = a.out_channels, OG = a.group_out_channels();
  const int64_t M = Patches(a).rows(), K = Patches(a).width();
  const int64_t block = std::min(M, Patches(a).block_rows());
  std::vector<T> patches(static_cast<std::size_t>(block * K));
  std::vector<T> group_filter(static_cast<std::size_t>(K * OG));
  std::vector<T> group_output(static_cast<std::size_t>(block * OG));
  for (int64_t g = 0; g < a.groups; ++g) {
    const Patches p(a, g);
    pack_columns(filter, K, O, g * OG, OG, group_filter.data());
    for (int64_t m0 = 0; m0 < M; m0 += block) {
      const int64_t m1 = std::min(M, m0 + block);
      p.gather(input, m0, m1, patches.data());
      matmul<T>(patches.data(), Shape{m1 - m0, K}, group_filter.data(), Shape{K, OG}, false, false,
                group_output.data(), Shape{m1 - m0, OG});
      unpack_columns(group_output.data(), m1 - m0, OG, output + m0 * O, O, g * OG);
    }
  }
}

// input_backprop of a grouped convolution, group by group: its out_backprop columns times its
// filters' transpose, added back into its input channels.
template <class T>
void grouped_conv2d_backprop_input(const opdefs::Conv2DAttrs& a, const T* filter,
                                   const T* out_backprop, T* input_backprop) {
  const int64_t O = a.out_channels, OG = a.group_out_channels();
  const int64_t M = Patches(a).rows(), K = Patches(a).width();
  const int64_t block = std::min(M, Patches(a).block_rows());
  std::vector<T> rows(static_cast<std::size_t>(block * K));
  std::vector<T> group_filter(static_cast<std::size_t>(K * OG));
  std::vector<T> group_backprop(static_cast<std::size_t>(block * OG));
  for (int64_t g = 0; g < a.groups; ++g) {
    const Patches p(a, g);
    pack_columns(filter, K, O, g * OG, OG, group_filter.data());
    for (int64_t m0 = 0; m0 < M; m0 += block) {
      const int64_t m1 = std::min(M, m0 + block);
      pack_columns(out_backprop + m0 * O, m1 - m0, O, g * OG, OG, group_backprop.data());
      matmul<T>(group_backprop.data(), Shape{m1 - m0, OG}, group_filter.data(), Shape{K, OG}, false,
                true, rows.data(), Shape{m1 - m0, K});
      p.scatter_add(rows.data(), m0, m1, input_backprop);
    }
  }
}

// filter_backprop of a grouped convolution, group by group: its patches' transpose times its
// out_backprop columns, summed over the blocks into its filters' columns.
template <class T>
void grouped_conv2d_backprop_filter(const opdefs::Conv2DAttrs& a, const T* input,
                                    const T* out_backprop, T* filter_backprop) {
  const int64_t O = a.out_channels, OG = a.group_out_channels();
  const int64_t M = Patches(a).rows(), K = Patches(a).width();
  const int64_t block = std::min(M, Patches(a).block_rows());
  std::vector<T> patches(static_cast<std::size_t>(block * K));
  std::vector<T> group_backprop(static_cast<std::size_t>(block * OG));
  std::vector<T> partial(static_cast<std::size_t>(K * OG));
  std::vector<T> sum(static_cast<std::size_t>(K * OG));
  for (int64_t g = 0; g < a.groups; ++g) {
    const Patches p(a, g);
    std::fill(sum.begin(), sum.end(), T(0));
    for (int64_t m0 = 0; m0 < M; m0 += block) {
      const int64_t m1 = std::min(M, m0 + block);
      p.gather(input, m0, m1, patches.data());
      pack_columns(out_backprop + m0 * O, m1 - m0, O, g * OG, OG, group_backprop.data());
      matmul<T>(patches.data(), Shape{m1 - m0, K}, group_backprop.data(), Shape{m1 - m0, OG}, true,
                false, partial.data(), Shape{K, OG});
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += partial[i];
    }
    unpack_columns(sum.data(), K, OG, filter_backprop, O, g * OG);
  }
}

}  // namespace

template <class T>
void conv2d(const opdefs::Conv2DAttrs& a, const T* input, const T* filter, T* output) {
  const Patches p(a);
  const int64_t M = p.rows(), K = p.width(), O = a.out_channels;
  if (M == 0 || O == 0) return;
  if (a.groups > 1) return grouped_conv2d(a, input, filter, output);
  if (p.identity()) {
    matmul<T>(input, Shape{M, K}, filter, Shape{K, O}, false, false, output, Shape{M, O});
    return;
  }
  const int64_t block = std::min(M, p.block_rows());
  std::unique_ptr<T[]> patches(new T[static_cast<std::size_t>(block * K)]);
  for (int64_t m0 = 0; m0 < M; m0 += block) {
    const int64_t m1 = std::min(M, m0 + block);
    p.gather(input, m0, m1, patches.get());
    matmul<T>(patches.get(), Shape{m1 - m0, K}, filter, Shape{K, O}, false, false, output + m0 * O,
              Shape{m1 - m0, O});
  }
}

template <class T>
void conv2d_backprop_input(const opdefs::Conv2DAttrs& a, const T* filter, const T* out_backprop,
                           T* input_backprop) {
  const Patches p(a);
  const int64_t M = p.rows(), K = p.width(), O = a.out_channels;
  const int64_t input_size = a.batch * a.in_height * a.in_width * a.in_channels;
  if (p.identity() && M > 0 && O > 0) {
    matmul<T>(out_backprop, Shape{M, O}, filter, Shape{K, O}, false, true, input_backprop,
              Shape{M, K});
    return;
  }
  std::fill(input_backprop, input_backprop + input_size, T(0));
  if (M == 0 || O == 0) return;
  if (a.groups > 1) return grouped_conv2d_backprop_input(a, filter, out_backprop, input_backprop);
  const int64_t block = std::min(M, p.block_rows());
  std::unique_ptr<T[]> rows(new T[static_cast<std::size_t>(block * K)]);
  for (int64_t m0 = 0; m0 < M; m0 += block) {
    const int64_t m1 = std::min(M, m0 + block);
    matmul<T>(out_backprop + m0 * O, Shape{m1 - m0, O}, filter, Shape{K, O}, false, true,
              rows.get(), Shape{m1 - m0, K});
    p.scatter_add(rows.get(), m0, m1, input_backprop);
  }
}

template <class T>
void conv2d_backprop_filter(const opdefs::Conv2DAttrs& a, const T* input, const T* out_backprop,
                            T* filter_backprop) {
  const Patches p(a);
  const int64_t M = p.rows(), K = p.width(), O = a.out_channels;
  std::fill(filter_backprop, filter_backprop + K * O, T(0));
  if (M == 0 || O == 0) return;
  if (a.groups > 1) {
    return grouped_conv2d_backprop_filter(a, input, out_backprop, filter_backprop);
  }
  if (p.identity()) {
    matmul<T>(input, Shape{M, K}, out_backprop, Shape{M, O}, true, false, filter_backprop,
              Shape{K, O});
    return;
  }
  const int64_t block = std::min(M, p.block_rows());
  std::unique_ptr<T[]> patches(new T[static_cast<std::size_t>(block * K)]);
  std::unique_ptr<T[]> partial(new T[static_cast<std::size_t>(K * O)]);
  for (int64_t m0 = 0; m0 < M; m0 += block) {
    const int64_t m1 = std::min(M, m0 + block);
    p.gather(input, m0, m1, patches.get());
    matmul<T>(patches.get(), Shape{m1 - m0, K}, out_backprop + m0 * O, Shape{m1 - m0, O}, true,
              false, partial.get(), Shape{K, O});
    for (int64_t i = 0; i < K * O; ++i) filter_backprop[i] += partial[static_cast<std::size_t>(i)];
  }
}

namespace {

// The input rows and columns under one pooling window, clipped to the input (SAME's padding
// holds no elements: max ignores it, average does not count it).
struct PoolWindow {
  int64_t h0, h1, w0, w1;
  int64_t count() const { return (h1 - h0) * (w1 - w0); }
};

PoolWindow pool_window(const opdefs::Pool2DAttrs& a, int64_t oh, int64_t ow) {
  const int64_t hs = oh * a.stride_h - a.pad_top, ws = ow * a.stride_w - a.pad_left;
  return {std::max<int64_t>(hs, 0), std::min(hs + a.window_h, a.in_height),
          std::max<int64_t>(ws, 0), std::min(ws + a.window_w, a.in_width)};
}

// Calls f(n, oh, ow, window, output offset) for every output position of images [n0, n1).
template <class F>
void for_each_window(const opdefs::Pool2DAttrs& a, int64_t n0, int64_t n1, F&& f) {
  for (int64_t n = n0; n < n1; ++n) {
    for (int64_t oh = 0; oh < a.out_height; ++oh) {
      for (int64_t ow = 0; ow < a.out_width; ++ow) {
        f(n, pool_window(a, oh, ow), ((n * a.out_height + oh) * a.out_width + ow) * a.channels);
      }
    }
  }
}

int64_t input_offset(const opdefs::Pool2DAttrs& a, int64_t n, int64_t h, int64_t w) {
  return ((n * a.in_height + h) * a.in_width + w) * a.channels;
}

template <class T>
int64_t image_bytes(const opdefs::Pool2DAttrs& a) {
  return a.in_height * a.in_width * a.channels * static_cast<int64_t>(sizeof(T)) *
         std::max<int64_t>(1, a.window_h * a.window_w / (a.stride_h * a.stride_w));
}

}  // namespace

// Note [MaxPool and NaN]
// ~~~~~~~~~~~~~~~~~~~~~~
// A window holding a NaN pools to NaN on every backend, as eagle's maximum and reduce_max
// propagate NaN (and PyTorch's max_pool2d does): here by the comparison below; on CUDA by cuDNN's
// CUDNN_PROPAGATE_NAN; in the oneDNN provider by eagle's direct kernels, with the same comparison
// (oneDNN's own float32 pooling drops NaN: Note [Direct max pooling]). MaxPoolGrad routes a
// window's gradient to its first NaN. (TensorFlow propagates on the GPU only with
// TF_ENABLE_MAXPOOL_NANPROP, and its CPU result depends on where the NaN lies; a NaN hidden by
// pooling would hide a diverged model.)
template <class T>
bool is_nan(T v) {
  return v != v;  // false for the integer types
}

template <class T>
void max_pool(const opdefs::Pool2DAttrs& a, const T* input, T* output) {
  const int64_t C = a.channels;
  parallel_for(a.batch, image_bytes<T>(a), [&](int64_t n0, int64_t n1) {
    for_each_window(a, n0, n1, [&](int64_t n, const PoolWindow& w, int64_t out) {
      T* o = output + out;
      std::copy(input + input_offset(a, n, w.h0, w.w0), input + input_offset(a, n, w.h0, w.w0) + C,
                o);
      for (int64_t h = w.h0; h < w.h1; ++h) {
        for (int64_t x = w.w0; x < w.w1; ++x) {
          const T* in = input + input_offset(a, n, h, x);
          for (int64_t c = 0; c < C; ++c) o[c] = in[c] > o[c] || is_nan(in[c]) ? in[c] : o[c];
        }
      }
    });
  });
}

template <class T>
void max_pool_grad(const opdefs::Pool2DAttrs& a, const T* input, const T* grad, T* input_grad) {
  const int64_t C = a.channels;
  std::fill(input_grad, input_grad + a.batch * a.in_height * a.in_width * C, T(0));
  parallel_for(a.batch, image_bytes<T>(a), [&](int64_t n0, int64_t n1) {
    std::vector<T> best(static_cast<std::size_t>(C));
    std::vector<int64_t> where(static_cast<std::size_t>(C));
    for_each_window(a, n0, n1, [&](int64_t n, const PoolWindow& w, int64_t out) {
      const int64_t first = input_offset(a, n, w.h0, w.w0);
      for (int64_t c = 0; c < C; ++c) {
        best[c] = input[first + c];
        where[c] = first + c;
      }
      for (int64_t h = w.h0; h < w.h1; ++h) {
        for (int64_t x = w.w0; x < w.w1; ++x) {
          const int64_t at = input_offset(a, n, h, x);
          for (int64_t c = 0; c < C; ++c) {
            // Strictly: a tie keeps the first maximum; the first NaN wins (Note [MaxPool and NaN]).
            if (input[at + c] > best[c] || (is_nan(input[at + c]) && !is_nan(best[c]))) {
              best[c] = input[at + c];
              where[c] = at + c;
            }
          }
        }
      }
      for (int64_t c = 0; c < C; ++c) input_grad[where[c]] += grad[out + c];
    });
  });
}

template <class T>
void avg_pool(const opdefs::Pool2DAttrs& a, const T* input, T* output) {
  const int64_t C = a.channels;
  parallel_for(a.batch, image_bytes<T>(a), [&](int64_t n0, int64_t n1) {
    for_each_window(a, n0, n1, [&](int64_t n, const PoolWindow& w, int64_t out) {
      T* o = output + out;
      std::fill(o, o + C, T(0));
      for (int64_t h = w.h0; h < w.h1; ++h) {
        for (int64_t x = w.w0; x < w.w1; ++x) {
          const T* in = input + input_offset(a, n, h, x);
          for (int64_t c = 0; c < C; ++c) o[c] += in[c];
        }
      }
      const T count = static_cast<T>(w.count());
      for (int64_t c = 0; c < C; ++c) o[c] /= count;
    });
  });
}

template <class T>
void avg_pool_grad(const opdefs::Pool2DAttrs& a, const T* grad, T* input_grad) {
  const int64_t C = a.channels;
  std::fill(input_grad, input_grad + a.batch * a.in_height * a.in_width * C, T(0));
  parallel_for(a.batch, image_bytes<T>(a), [&](int64_t n0, int64_t n1) {
    for_each_window(a, n0, n1, [&](int64_t n, const PoolWindow& w, int64_t out) {
      const T count = static_cast<T>(w.count());
      for (int64_t h = w.h0; h < w.h1; ++h) {
        for (int64_t x = w.w0; x < w.w1; ++x) {
          T* dst = input_grad + input_offset(a, n, h, x);
          for (int64_t c = 0; c < C; ++c) dst[c] += grad[out + c] / count;
        }
      }
    });
  });
}

#define EAGLE_INSTANTIATE(T)                                                                   \
  template void conv2d<T>(const opdefs::Conv2DAttrs&, const T*, const T*, T*);                 \
  template void conv2d_backprop_input<T>(const opdefs::Conv2DAttrs&, const T*, const T*, T*);  \
  template void conv2d_backprop_filter<T>(const opdefs::Conv2DAttrs&, const T*, const T*, T*); \
  template void max_pool<T>(const opdefs::Pool2DAttrs&, const T*, T*);                         \
  template void max_pool_grad<T>(const opdefs::Pool2DAttrs&, const T*, const T*, T*);          \
  template void avg_pool<T>(const opdefs::Pool2DAttrs&, const T*, T*);                         \
  template void avg_pool_grad<T>(const opdefs::Pool2DAttrs&, const T*, T*);
EAGLE_INSTANTIATE(float)
EAGLE_INSTANTIATE(double)
#undef EAGLE_INSTANTIATE
template void max_pool<std::int32_t>(const opdefs::Pool2DAttrs&, const std::int32_t*,
                                     std::int32_t*);
template void max_pool<std::int64_t>(const opdefs::Pool2DAttrs&, const std::int64_t*,
                                     std::int64_t*);

}  // namespace eagle::cpu::reference
