// Note [Matmul providers]
// ~~~~~~~~~~~~~~~~~~~~~~~
// float32 products (MatMul, BatchMatMulV2, Einsum and the reference convolutions' GEMMs, and
// float16/bfloat16 through float32) run on OpenBLAS's cblas_sgemm or, when eagle is built with
// oneDNN, on oneDNN's dnnl_sgemm (cpu/onednn/onednn_matmul.*). EAGLE_MATMUL_PROVIDER=openblas |
// onednn | auto chooses once per process, when the kernels are registered; auto (or unset) is
// oneDNN when built. The rule is measured, not guessed (bench/gemm_providers.cpp, docs/
// performance.md "GEMM providers"): on the dev VM (AMD Zen 5, AVX-512) oneDNN's sgemm was faster
// than OpenBLAS 0.3.21, or within a few percent, on every shape: 1.8-2.0x its Haswell kernels
// (the VM sets OPENBLAS_CORETYPE=Haswell), 1.0-1.8x its own AVX-512 choice (Cooperlake) at the
// MLP's batch 32 and 512 and 0.98-1.10x on squares, within about a microsecond at batch 1.
// dnnl_sgemm rather than a cached matmul primitive: within a few percent of it on mid-size
// products, faster on small ones and the largest (4 against 10 us for [1,784]x[784,256], 838
// against 968 ms for 4096^3), and with nothing to cache.
// float64 stays on OpenBLAS (oneDNN has no dgemm); integers use the blocked loops below.
#include "cpu/matmul.hpp"

#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "cpu/layout.hpp"
#include "eagle/errors.hpp"
#include "eagle/half.hpp"
#if defined(EAGLE_WITH_ONEDNN)
#include "cpu/onednn/onednn_matmul.hpp"
#endif

namespace eagle::cpu {
namespace {

using std::int64_t;

std::atomic<bool> float32_on_onednn{false};  // Note [Matmul providers]

template <class T>
struct Unsigned {
  using type = std::make_unsigned_t<T>;
};

// C[m, n] = op(A) op(B); op(A) is [m, k] (A stored [k, m] when ta), op(B) is [k, n] (B stored
// [n, k] when tb). Row-major, leading dimensions are the stored row lengths.
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
          float* c) {
#if defined(EAGLE_WITH_ONEDNN)
  if (float32_on_onednn.load(std::memory_order_relaxed)) {
    onednn::sgemm(ta, tb, m, n, k, a, b, c);
    return;
  }
#endif
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, a,
              static_cast<blasint>(std::max<int64_t>(1, ta ? m : k)), b,
              static_cast<blasint>(std::max<int64_t>(1, tb ? k : n)), 0.0f, c,
              static_cast<blasint>(std::max<int64_t>(1, n)));
}

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, const double* b,
          double* c) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), 1.0, a,
              static_cast<blasint>(std::max<int64_t>(1, ta ? m : k)), b,
              static_cast<blasint>(std::max<int64_t>(1, tb ? k : n)), 0.0, c,
              static_cast<blasint>(std::max<int64_t>(1, n)));
}

// Integer GEMM, wrapping: operands that arrive transposed are first copied into row-major
// [m, k] / [k, n] scratch, then blocked i-k-j loops with contiguous, vectorizable inner rows.
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c) {
  using U = typename Unsigned<T>::type;
  std::unique_ptr<T[]> a_buf;
  std::unique_ptr<T[]> b_buf;
  if (ta) {
    a_buf.reset(new T[static_cast<std::size_t>(m * k)]);
    transpose(a, Shape{k, m}, {1, 0}, sizeof(T), a_buf.get());
    a = a_buf.get();
  }
  if (tb) {
    b_buf.reset(new T[static_cast<std::size_t>(k * n)]);
    transpose(b, Shape{n, k}, {1, 0}, sizeof(T), b_buf.get());
    b = b_buf.get();
  }
  std::fill(c, c + m * n, T(0));
  // Blocks of B (kKc x kNc) are reused by every row of A while they sit in L2.
  constexpr int64_t kNc = 512;
  constexpr int64_t kKc = 128;
  U acc[kNc];
  for (int64_t j0 = 0; j0 < n; j0 += kNc) {
    const int64_t nc = std::min(kNc, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kKc) {
      const int64_t p1 = std::min(k, p0 + kKc);
      for (int64_t i = 0; i < m; ++i) {
        T* crow = c + i * n + j0;
        for (int64_t j = 0; j < nc; ++j) acc[j] = static_cast<U>(crow[j]);
        const T* arow = a + i * k;
        for (int64_t p = p0; p < p1; ++p) {
          const U av = static_cast<U>(arow[p]);
          const T* brow = b + p * n + j0;
          if (nc == kNc) {  // constant trip count: vectorizes under GCC's cheap cost model too
            for (int64_t j = 0; j < kNc; ++j) acc[j] += av * static_cast<U>(brow[j]);
          } else {
            for (int64_t j = 0; j < nc; ++j) acc[j] += av * static_cast<U>(brow[j]);
          }
        }
        for (int64_t j = 0; j < nc; ++j) crow[j] = static_cast<T>(acc[j]);
      }
    }
  }
}

template <class T>
void matmul_impl(const T* a, const Shape& a_shape, const T* b, const Shape& b_shape, bool ta,
                 bool tb, T* out, const Shape& out_shape) {
  const int ra = a_shape.rank();
  const int rb = b_shape.rank();
  const int ro = out_shape.rank();
  const int64_t m = out_shape[ro - 2];
  const int64_t n = out_shape[ro - 1];
  const int64_t k = ta ? a_shape[ra - 2] : a_shape[ra - 1];
  const int64_t total = out_shape.num_elements();
  if (total == 0) return;
  if (k == 0) {
    std::fill(out, out + total, T(0));
    return;
  }
  const int nb = ro - 2;  // batch rank of the output
  // Per output batch dimension: element strides of a and b (0 where broadcast or absent).
  int64_t a_stride[Shape::kMaxRank] = {};
  int64_t b_stride[Shape::kMaxRank] = {};
  int64_t batch_dims[Shape::kMaxRank] = {};
  {
    int64_t sa = a_shape[ra - 2] * a_shape[ra - 1];
    for (int i = ra - 3; i >= 0; --i) {
      const int o = i + (nb - (ra - 2));
      a_stride[o] = a_shape[i] == 1 ? 0 : sa;
      sa *= a_shape[i];
    }
    int64_t sb = b_shape[rb - 2] * b_shape[rb - 1];
    for (int i = rb - 3; i >= 0; --i) {
      const int o = i + (nb - (rb - 2));
      b_stride[o] = b_shape[i] == 1 ? 0 : sb;
      sb *= b_shape[i];
    }
  }
  int64_t batch = 1;
  int64_t a_batch = 1;
  int64_t b_batch = 1;
  for (int i = 0; i < nb; ++i) {
    batch_dims[i] = out_shape[i];
    batch *= out_shape[i];
  }
  for (int i = 0; i < ra - 2; ++i) a_batch *= a_shape[i];
  for (int i = 0; i < rb - 2; ++i) b_batch *= b_shape[i];
  if constexpr (!std::is_integral_v<T>) {
    constexpr int64_t kMax = std::numeric_limits<blasint>::max();
    if (m > kMax || n > kMax || k > kMax) {
      throw InvalidArgumentError("MatMul dimensions exceed the BLAS integer range");
    }
  }
  // One shared right operand and a full, untransposed left operand: fold the batch into m.
  if (!ta && b_batch == 1 && a_batch == batch &&
      (std::is_integral_v<T> || batch * m <= std::numeric_limits<blasint>::max())) {
    gemm(false, tb, batch * m, n, k, a, b, out);
    return;
  }
  const int64_t mn = m * n;
  int64_t idx[Shape::kMaxRank] = {};
  int64_t a_off = 0;
  int64_t b_off = 0;
  for (int64_t t = 0; t < batch; ++t) {
    gemm(ta, tb, m, n, k, a + a_off, b + b_off, out + t * mn);
    for (int d = nb - 1; d >= 0; --d) {
      if (++idx[d] < batch_dims[d]) {
        a_off += a_stride[d];
        b_off += b_stride[d];
        break;
      }
      idx[d] = 0;
      a_off -= (batch_dims[d] - 1) * a_stride[d];
      b_off -= (batch_dims[d] - 1) * b_stride[d];
    }
  }
}

template <class H>
std::unique_ptr<float[]> to_float(const H* x, int64_t n) {
  std::unique_ptr<float[]> f(new float[static_cast<std::size_t>(std::max<int64_t>(n, 1))]);
  for (int64_t i = 0; i < n; ++i) f[i] = static_cast<float>(x[i]);
  return f;
}

}  // namespace

std::vector<std::string> built_matmul_providers() {
#if defined(EAGLE_WITH_ONEDNN)
  return {"openblas", "onednn"};
#else
  return {"openblas"};
#endif
}

std::string choose_matmul_provider() {
  const std::vector<std::string> built = built_matmul_providers();
  const char* env = std::getenv("EAGLE_MATMUL_PROVIDER");
  if (env == nullptr || *env == '\0' || std::string(env) == "auto") return built.back();
  const std::string want = env;
  if (std::find(built.begin(), built.end(), want) == built.end()) {
    throw InvalidArgumentError(
        fmt::format("EAGLE_MATMUL_PROVIDER={}: this build of eagle has the matmul providers {} "
                    "(or auto)",
                    want, fmt::join(built, ", ")));
  }
  return want;
}

void set_matmul_provider(const std::string& provider) {
  const std::vector<std::string> built = built_matmul_providers();
  if (std::find(built.begin(), built.end(), provider) == built.end()) {
    throw InvalidArgumentError(fmt::format("no matmul provider {} in this build", provider));
  }
  float32_on_onednn.store(provider == "onednn", std::memory_order_relaxed);
}

std::string active_matmul_provider() {
  return float32_on_onednn.load(std::memory_order_relaxed) ? "onednn" : "openblas";
}

template <class T>
void matmul(const T* a, const Shape& a_shape, const T* b, const Shape& b_shape, bool transpose_a,
            bool transpose_b, T* out, const Shape& out_shape) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    const int64_t total = out_shape.num_elements();
    if (total == 0) return;
    const auto af = to_float(a, a_shape.num_elements());
    const auto bf = to_float(b, b_shape.num_elements());
    std::unique_ptr<float[]> of(new float[static_cast<std::size_t>(total)]);
    matmul_impl(af.get(), a_shape, bf.get(), b_shape, transpose_a, transpose_b, of.get(),
                out_shape);
    for (int64_t i = 0; i < total; ++i) out[i] = T(of[i]);
  } else {
    matmul_impl(a, a_shape, b, b_shape, transpose_a, transpose_b, out, out_shape);
  }
}

template void matmul<float>(const float*, const Shape&, const float*, const Shape&, bool, bool,
                            float*, const Shape&);
template void matmul<double>(const double*, const Shape&, const double*, const Shape&, bool, bool,
                             double*, const Shape&);
template void matmul<std::int32_t>(const std::int32_t*, const Shape&, const std::int32_t*,
                                   const Shape&, bool, bool, std::int32_t*, const Shape&);
template void matmul<std::int64_t>(const std::int64_t*, const Shape&, const std::int64_t*,
                                   const Shape&, bool, bool, std::int64_t*, const Shape&);
template void matmul<float16>(const float16*, const Shape&, const float16*, const Shape&, bool,
                              bool, float16*, const Shape&);
template void matmul<bfloat16>(const bfloat16*, const Shape&, const bfloat16*, const Shape&, bool,
                               bool, bfloat16*, const Shape&);

}  // namespace eagle::cpu
