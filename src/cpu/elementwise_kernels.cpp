// CPU kernels of the elementwise binary and unary ops.
#include <algorithm>
#include <cmath>

#include "cpu/broadcast_loop.hpp"
#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "eagle/errors.hpp"
#include "kernels/registration.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;
using runtime::KernelTable;
using runtime::OpId;

// ---- Functors: operate on compute_t<T>; `Out` is the stored result type. -----------------------
struct AddFn {
  template <class C>
  C operator()(C a, C b) const {
    return wrap_add(a, b);
  }
};
struct SubFn {
  template <class C>
  C operator()(C a, C b) const {
    return wrap_sub(a, b);
  }
};
struct MulFn {
  template <class C>
  C operator()(C a, C b) const {
    return wrap_mul(a, b);
  }
};
struct DivFn {
  template <class C>
  C operator()(C a, C b) const {
    return a / b;
  }
};
struct MaxFn {  // NaN propagates, as np.maximum and tf.maximum
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? b : a;
  }
};
struct MinFn {
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return b < a ? b : a;
  }
};
struct PowFn {
  static constexpr std::int64_t kCost = 32;  // libm call per element
  template <class C>
  C operator()(C base, C exponent) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::pow(base, exponent);
    } else {  // exponentiation by squaring, wrapping; negative exponents are rejected earlier
      C result = 1;
      while (exponent > 0) {
        if (exponent & 1) result = wrap_mul(result, base);
        base = wrap_mul(base, base);
        exponent >>= 1;
      }
      return result;
    }
  }
};
struct EqualFn {
  template <class C>
  bool operator()(C a, C b) const {
    return a == b;
  }
};
struct NotEqualFn {
  template <class C>
  bool operator()(C a, C b) const {
    return a != b;
  }
};
struct LessFn {
  template <class C>
  bool operator()(C a, C b) const {
    return a < b;
  }
};
struct LessEqualFn {
  template <class C>
  bool operator()(C a, C b) const {
    return a <= b;
  }
};
struct GreaterFn {
  template <class C>
  bool operator()(C a, C b) const {
    return a > b;
  }
};
struct GreaterEqualFn {
  template <class C>
  bool operator()(C a, C b) const {
    return a >= b;
  }
};

template <class T, class Fn>
void binary_kernel(KernelContext& ctx) {
  using C = compute_t<T>;
  using R = decltype(Fn{}(C{}, C{}));
  using Out = std::conditional_t<std::is_same_v<R, bool>, bool, T>;
  const runtime::TensorImpl& x = ctx.input(0);
  const runtime::TensorImpl& y = ctx.input(1);
  if constexpr (std::is_same_v<Fn, PowFn> && std::is_integral_v<T>) {
    const T* e = y.data<const T>();
    if (std::any_of(e, e + y.shape().num_elements(), [](T v) { return v < 0; })) {
      throw InvalidArgumentError("Integers to negative integer powers are not allowed [Op:Pow]");
    }
  }
  auto out = ctx.allocate_output();
  broadcast_apply<T, Out>(x.data<const T>(), x.shape(), y.data<const T>(), y.shape(),
                          out->data<Out>(), ctx.output_shape(), Fn{});
}

// ---- Unary
// ---------------------------------------------------------------------------------------
struct NegFn {
  template <class C>
  C operator()(C a) const {
    return wrap_neg(a);
  }
};
struct AbsFn {
  template <class C>
  C operator()(C a) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::fabs(a);
    } else {
      return a < 0 ? wrap_neg(a) : a;
    }
  }
};
struct ExpFn {
  static constexpr std::int64_t kCost = 32;  // libm call per element
  template <class C>
  C operator()(C a) const {
    return std::exp(a);
  }
};
struct LogFn {
  static constexpr std::int64_t kCost = 32;  // libm call per element
  template <class C>
  C operator()(C a) const {
    return std::log(a);
  }
};
struct SqrtFn {
  template <class C>
  C operator()(C a) const {
    return std::sqrt(a);
  }
};
struct SquareFn {
  template <class C>
  C operator()(C a) const {
    return wrap_mul(a, a);
  }
};
struct ReluFn {  // NaN stays NaN
  template <class C>
  C operator()(C a) const {
    return a < C{0} ? C{0} : a;
  }
};
struct SigmoidFn {
  static constexpr std::int64_t kCost = 32;  // libm call per element
  template <class C>
  C operator()(C a) const {
    return C{1} / (C{1} + std::exp(-a));
  }
};
struct TanhFn {
  static constexpr std::int64_t kCost = 32;  // libm call per element
  template <class C>
  C operator()(C a) const {
    return std::tanh(a);
  }
};

template <class T, class Fn>
void unary_kernel(KernelContext& ctx) {
  using C = compute_t<T>;
  const runtime::TensorImpl& x = ctx.input(0);
  // A donated input's bytes become the output's (Note [Kernel contract]): `in` and `o` may be
  // the same array, read and written at the same index, so neither is __restrict.
  auto out = ctx.forward_input_or_allocate_output(0);
  const T* in = x.data<const T>();
  T* o = out->data<T>();
  const std::int64_t n = ctx.output_shape().num_elements();
  const Fn f{};
  parallel_for(
      n, 2 * sizeof(T) * functor_cost<Fn>::value,
      [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) o[i] = convert<T>(f(C(in[i])));
      },
      64);
}

// ---- Registration
// ---------------------------------------------------------------------------------
template <OpId kOp, class Fn>
void add_binary(KernelTable& table) {
  kernels::register_op<kOp, DeviceType::kCPU>(
      table, [](auto tag) -> runtime::KernelFn { return &binary_kernel<decltype(tag), Fn>; });
}
template <OpId kOp, class Fn>
void add_unary(KernelTable& table) {
  kernels::register_op<kOp, DeviceType::kCPU>(
      table, [](auto tag) -> runtime::KernelFn { return &unary_kernel<decltype(tag), Fn>; });
}

}  // namespace

void register_elementwise_kernels(KernelTable& table) {
  add_binary<OpId::kAddV2, AddFn>(table);
  add_binary<OpId::kSub, SubFn>(table);
  add_binary<OpId::kMul, MulFn>(table);
  add_binary<OpId::kRealDiv, DivFn>(table);
  add_binary<OpId::kMaximum, MaxFn>(table);
  add_binary<OpId::kMinimum, MinFn>(table);
  add_binary<OpId::kPow, PowFn>(table);
  add_binary<OpId::kEqual, EqualFn>(table);
  add_binary<OpId::kNotEqual, NotEqualFn>(table);
  add_binary<OpId::kLess, LessFn>(table);
  add_binary<OpId::kLessEqual, LessEqualFn>(table);
  add_binary<OpId::kGreater, GreaterFn>(table);
  add_binary<OpId::kGreaterEqual, GreaterEqualFn>(table);

  add_unary<OpId::kNeg, NegFn>(table);
  add_unary<OpId::kAbs, AbsFn>(table);
  add_unary<OpId::kExp, ExpFn>(table);
  add_unary<OpId::kLog, LogFn>(table);
  add_unary<OpId::kSqrt, SqrtFn>(table);
  add_unary<OpId::kSquare, SquareFn>(table);
  add_unary<OpId::kRelu, ReluFn>(table);
  add_unary<OpId::kSigmoid, SigmoidFn>(table);
  add_unary<OpId::kTanh, TanhFn>(table);
}

}  // namespace eagle::cpu
