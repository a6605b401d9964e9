#include "cpu/softmax.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "cpu/intra_op_pool.hpp"
#include "cpu/register_kernels.hpp"
#include "eagle/half.hpp"
#include "kernels/registration.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
EAGLE_CPU_ISA_BEGIN
namespace {

using std::int64_t;

// Loops over blocks of kBlock elements have constant trip counts and write only locals, so GCC
// vectorizes them even under -O2's cheap cost model and without alias checks (in == out is
// allowed).
constexpr int64_t kBlock = 16;

// exp(x) for x <= 0 (or NaN) in float32, branch-free so that it vectorizes: Cephes' expf
// polynomial on x - n ln2, scaled by 2^n built from exponent bits. Relative error ~1 ulp.
// Results below -87 (true value < 2^-125) are forced to +0 with a bit mask: there the
// intermediates are meaningless, but only float and unsigned arithmetic touch them (no float to
// integer conversion; n is read from the bits of a float rounded with a magic constant). A
// select or a clamp instead of the mask would stop GCC from vectorizing (may-trap arithmetic
// on one arm). NaN propagates.
inline float exp_nonpositive(float x) {
  const float magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float t = x * 1.44269504088896341f + magic;
  const float n = t - magic;
  std::uint32_t tb;
  std::memcpy(&tb, &t, sizeof tb);
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n for n in [-126, 0]: n is tb minus the bits of magic, modulo 2^32.
  const std::uint32_t sb = (tb - 0x4b400000u + 127u) << 23;
  float scale;
  std::memcpy(&scale, &sb, sizeof scale);
  const float e = p * scale;
  std::uint32_t eb;
  std::memcpy(&eb, &e, sizeof eb);
  eb &= 0u - static_cast<std::uint32_t>(!(x < -87.0f));
  float result;
  std::memcpy(&result, &eb, sizeof result);
  return result;
}

inline float exp_of(float x) { return exp_nonpositive(x); }
inline double exp_of(double x) { return std::exp(x); }

// One row, in place or out of place (x may equal y). C: float or double.
template <class C>
void softmax_row(const C* x, int64_t n, C* y) {
  // Max, ignoring NaN (a NaN makes its exp NaN and hence the whole row NaN, as in TensorFlow).
  C lanes[kBlock];
  for (int64_t j = 0; j < kBlock; ++j) lanes[j] = -std::numeric_limits<C>::infinity();
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (int64_t j = 0; j < kBlock; ++j) lanes[j] = x[i + j] > lanes[j] ? x[i + j] : lanes[j];
  }
  C mx = -std::numeric_limits<C>::infinity();
  for (; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  for (int64_t j = 0; j < kBlock; ++j) mx = lanes[j] > mx ? lanes[j] : mx;

  C sums[kBlock] = {};
  C t[kBlock];
  i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (int64_t j = 0; j < kBlock; ++j) t[j] = exp_of(x[i + j] - mx);
    for (int64_t j = 0; j < kBlock; ++j) sums[j] += t[j];
    for (int64_t j = 0; j < kBlock; ++j) y[i + j] = t[j];
  }
  C sum = 0;
  for (; i < n; ++i) {
    const C e = exp_of(x[i] - mx);
    y[i] = e;
    sum += e;
  }
  for (int64_t j = 0; j < kBlock; ++j) sum += sums[j];
  const C inv = C(1) / sum;
  i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (int64_t j = 0; j < kBlock; ++j) t[j] = y[i + j] * inv;
    for (int64_t j = 0; j < kBlock; ++j) y[i + j] = t[j];
  }
  for (; i < n; ++i) y[i] *= inv;
}

}  // namespace

template <class T>
void softmax(const T* in, const Shape& shape, T* out) {
  const int64_t total = shape.num_elements();
  const int64_t n = shape.rank() == 0 ? 1 : shape[shape.rank() - 1];
  if (total == 0 || n == 0) return;
  const int64_t rows = total / n;
  // Whole rows per thread (Note [Intra-op parallelism]); a row reads and writes n elements and
  // passes over them three times, with an exp each: weight 4.
  parallel_for(rows, 4 * 2 * n * static_cast<int64_t>(sizeof(T)), [&](int64_t r0, int64_t r1) {
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
      std::unique_ptr<float[]> buf(new float[static_cast<std::size_t>(n)]);
      for (int64_t r = r0; r < r1; ++r) {
        const T* x = in + r * n;
        T* y = out + r * n;
        for (int64_t j = 0; j < n; ++j) buf[j] = static_cast<float>(x[j]);
        softmax_row(buf.get(), n, buf.get());
        for (int64_t j = 0; j < n; ++j) y[j] = T(buf[j]);
      }
    } else {
      for (int64_t r = r0; r < r1; ++r) softmax_row(in + r * n, n, out + r * n);
    }
  });
}

template void softmax<float>(const float*, const Shape&, float*);
template void softmax<double>(const double*, const Shape&, double*);
template void softmax<float16>(const float16*, const Shape&, float16*);
template void softmax<bfloat16>(const bfloat16*, const Shape&, bfloat16*);

namespace {
template <class T>
struct SoftmaxKernel {
  static void run(runtime::KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const runtime::TensorImpl& x = ctx.input(0);
    softmax<T>(x.data<const T>(), x.shape(), out->data<T>());
  }
};
}  // namespace

void register_softmax_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kSoftmax, runtime::DeviceType::kCPU, SoftmaxKernel>(table);
}

EAGLE_CPU_ISA_END
}  // namespace eagle::cpu
