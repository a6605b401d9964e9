// CPU kernels that make tensors: Const, Fill, Range, RandomUniform, RandomStandardNormal, Cast,
// Identity.
#include <cmath>
#include <cstring>
#include <limits>

#include "cpu/intra_op_pool.hpp"
#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "kernels/philox.hpp"
#include "kernels/registration.hpp"
#include "kernels/truncated_normal.hpp"
#include "opdefs/attrs.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

template <class T>
struct ConstKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const auto& attrs = ctx.attrs<opdefs::ConstAttrs>();
    if (out->bytes()) std::memcpy(out->data(), attrs.host_data, out->bytes());
  }
};

template <class T>
struct FillKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const T value = convert<T>(ctx.attrs<opdefs::FillAttrs>().value);
    T* o = out->data<T>();
    const std::int64_t n = ctx.output_shape().num_elements();
    for (std::int64_t i = 0; i < n; ++i) o[i] = value;
  }
};

template <class T>
struct RangeKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const auto& attrs = ctx.attrs<opdefs::RangeAttrs>();
    T* o = out->data<T>();
    const std::int64_t n = ctx.output_shape().num_elements();
    for (std::int64_t i = 0; i < n; ++i) {
      o[i] = convert<T>(attrs.start + static_cast<double>(i) * attrs.delta);
    }
  }
};

// Rounding minval + u * (maxval - minval) to float32 or a 16-bit float can land on maxval (in
// float16, every u >= 1 - 2^-12 rounds to 1.0). The interval is half-open, as in
// tf.random.uniform: such a value steps down to the largest value of T below maxval.
template <class T>
T below_maxval(T v, const opdefs::RandomAttrs& attrs) {
  if (!(attrs.a < attrs.b)) return v;
  while (static_cast<double>(static_cast<float>(v)) >= attrs.b) {
    if constexpr (std::is_same_v<T, float>) {
      v = std::nextafter(v, -std::numeric_limits<float>::infinity());
    } else {  // sign-magnitude bits: toward -inf is one step down in magnitude, or up if < 0
      const bool negative = (v.bits & 0x8000u) != 0;
      const bool zero = (v.bits & 0x7fffu) == 0;
      v = T::from_bits(static_cast<std::uint16_t>(zero       ? 0x8001u
                                                  : negative ? v.bits + 1u
                                                             : v.bits - 1u));
    }
  }
  return v;
}

// Element i of a 32-bit-per-value stream is word i % 4 of block i / 4; 64-bit values use two
// words, so block b holds elements 2b and 2b+1. The same mapping must hold on every backend.
template <class T>
struct RandomUniformKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const auto& attrs = ctx.attrs<opdefs::RandomAttrs>();
    T* o = out->data<T>();
    const std::int64_t n = ctx.output_shape().num_elements();
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::int64_t>) {
      for (std::int64_t b = 0; b * 2 < n; ++b) {
        const random::Block r = random::philox4x32_10(static_cast<std::uint64_t>(b), attrs.seed);
        for (int j = 0; j < 2 && b * 2 + j < n; ++j) {
          if constexpr (std::is_same_v<T, double>) {
            o[b * 2 + j] =
                attrs.a + random::uniform_double(r[2 * j], r[2 * j + 1]) * (attrs.b - attrs.a);
          } else {
            const auto lo = static_cast<std::int64_t>(attrs.a);
            const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(attrs.b)) -
                              static_cast<std::uint64_t>(lo);
            const std::uint64_t bits = (std::uint64_t{r[2 * j]} << 32) | r[2 * j + 1];
            o[b * 2 + j] = static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + bits % span);
          }
        }
      }
    } else {
      for (std::int64_t b = 0; b * 4 < n; ++b) {
        const random::Block r = random::philox4x32_10(static_cast<std::uint64_t>(b), attrs.seed);
        for (int j = 0; j < 4 && b * 4 + j < n; ++j) {
          if constexpr (std::is_same_v<T, std::int32_t>) {
            const auto lo = static_cast<std::int64_t>(attrs.a);
            const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(attrs.b) - lo);
            o[b * 4 + j] = static_cast<std::int32_t>(lo + static_cast<std::int64_t>(r[j] % span));
          } else {
            const float u = random::uniform_float(r[j]);
            o[b * 4 + j] = below_maxval(
                convert<T>(static_cast<float>(attrs.a + u * (attrs.b - attrs.a))), attrs);
          }
        }
      }
    }
  }
};

// Box-Muller on pairs of uniforms: block b yields elements 4b..4b+3 (float types) or 2b, 2b+1
// (float64).
template <class T>
struct RandomNormalKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const auto& attrs = ctx.attrs<opdefs::RandomAttrs>();
    T* o = out->data<T>();
    const std::int64_t n = ctx.output_shape().num_elements();
    constexpr double kTwoPi = 6.283185307179586;
    const auto pair = [&](double u1, double u2, std::int64_t at) {
      const double r = std::sqrt(-2.0 * std::log(1.0 - u1));  // 1 - u1 is in (0, 1]
      if (at < n) o[at] = convert<T>(attrs.a + attrs.b * r * std::cos(kTwoPi * u2));
      if (at + 1 < n) o[at + 1] = convert<T>(attrs.a + attrs.b * r * std::sin(kTwoPi * u2));
    };
    if constexpr (std::is_same_v<T, double>) {
      for (std::int64_t b = 0; b * 2 < n; ++b) {
        const random::Block r = random::philox4x32_10(static_cast<std::uint64_t>(b), attrs.seed);
        pair(random::uniform_double(r[0], r[1]), random::uniform_double(r[2], r[3]), b * 2);
      }
    } else {
      for (std::int64_t b = 0; b * 4 < n; ++b) {
        const random::Block r = random::philox4x32_10(static_cast<std::uint64_t>(b), attrs.seed);
        pair(random::uniform_float(r[0]), random::uniform_float(r[1]), b * 4);
        pair(random::uniform_float(r[2]), random::uniform_float(r[3]), b * 4 + 2);
      }
    }
  }
};

// TruncatedNormal: element i from its own Philox counters (kernels/truncated_normal.hpp).
template <class T>
struct TruncatedNormalKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const auto& attrs = ctx.attrs<opdefs::RandomAttrs>();
    T* o = out->data<T>();
    parallel_for(ctx.output_shape().num_elements(), 64, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) {
        const double z =
            kernels::truncated_standard_normal(attrs.seed, static_cast<std::uint64_t>(i));
        o[i] = convert<T>(attrs.a + attrs.b * z);
      }
    });
  }
};

template <class From>
struct CastKernel {
  static void run(KernelContext& ctx) {
    auto out = ctx.allocate_output();
    const From* in = ctx.input(0).data<const From>();
    const std::int64_t n = ctx.output_shape().num_elements();
    visit_dtype(ctx.output_dtype(), [&](auto tag) {
      using To = decltype(tag);
      To* o = out->data<To>();
      for (std::int64_t i = 0; i < n; ++i) o[i] = convert<To>(in[i]);
      return 0;
    });
  }
};

}  // namespace

void register_creation_kernels(runtime::KernelTable& table) {
  kernels::register_op<opdefs::OpId::kConst, DeviceType::kCPU, ConstKernel>(table);
  kernels::register_op<opdefs::OpId::kFill, DeviceType::kCPU, FillKernel>(table);
  kernels::register_op<opdefs::OpId::kRange, DeviceType::kCPU, RangeKernel>(table);
  kernels::register_op<opdefs::OpId::kRandomUniform, DeviceType::kCPU, RandomUniformKernel>(table);
  kernels::register_op<opdefs::OpId::kRandomStandardNormal, DeviceType::kCPU, RandomNormalKernel>(
      table);
  kernels::register_op<opdefs::OpId::kTruncatedNormal, DeviceType::kCPU, TruncatedNormalKernel>(
      table);
  kernels::register_op<opdefs::OpId::kCast, DeviceType::kCPU, CastKernel>(table);
}

}  // namespace eagle::cpu
