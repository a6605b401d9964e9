// CPU kernels of the elementwise binary and unary ops.
#include <algorithm>
#include <cmath>

#include "cpu/broadcast_loop.hpp"
#include "cpu/numeric.hpp"
#include "cpu/register_kernels.hpp"
#include "cpu/type_lists.hpp"
#include "eagle/errors.hpp"
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
Tensor binary_kernel(const KernelContext& ctx) {
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
                          out->data<Out>(), ctx.output_shape, Fn{});
  return Tensor(std::move(out));
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
Tensor unary_kernel(const KernelContext& ctx) {
  using C = compute_t<T>;
  const runtime::TensorImpl& x = ctx.input(0);
  auto out = ctx.allocate_output();
  const T* __restrict in = x.data<const T>();
  T* __restrict o = out->data<T>();
  const std::int64_t n = ctx.output_shape.num_elements();
  const Fn f{};
  parallel_for(
      n, 2 * sizeof(T) * functor_cost<Fn>::value,
      [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) o[i] = convert<T>(f(C(in[i])));
      },
      64);
  return Tensor(std::move(out));
}

// ---- Registration
// ---------------------------------------------------------------------------------
using Numeric = NumericTypes;
using Floating = FloatingTypes;
using All = AllTypes;

template <class Fn, class... Ts>
void add_binary(KernelTable& table, OpId op, TypeList<Ts...>) {
  (table.add(op, DeviceType::kCPU, dtype_of_v<Ts>, &binary_kernel<Ts, Fn>), ...);
}
template <class Fn, class... Ts>
void add_unary(KernelTable& table, OpId op, TypeList<Ts...>) {
  (table.add(op, DeviceType::kCPU, dtype_of_v<Ts>, &unary_kernel<Ts, Fn>), ...);
}

}  // namespace

void register_elementwise_kernels(KernelTable& table) {
  add_binary<AddFn>(table, OpId::kAddV2, Numeric{});
  add_binary<SubFn>(table, OpId::kSub, Numeric{});
  add_binary<MulFn>(table, OpId::kMul, Numeric{});
  add_binary<DivFn>(table, OpId::kRealDiv, Floating{});
  add_binary<MaxFn>(table, OpId::kMaximum, Numeric{});
  add_binary<MinFn>(table, OpId::kMinimum, Numeric{});
  add_binary<PowFn>(table, OpId::kPow, Numeric{});
  add_binary<EqualFn>(table, OpId::kEqual, All{});
  add_binary<NotEqualFn>(table, OpId::kNotEqual, All{});
  add_binary<LessFn>(table, OpId::kLess, Numeric{});
  add_binary<LessEqualFn>(table, OpId::kLessEqual, Numeric{});
  add_binary<GreaterFn>(table, OpId::kGreater, Numeric{});
  add_binary<GreaterEqualFn>(table, OpId::kGreaterEqual, Numeric{});

  add_unary<NegFn>(table, OpId::kNeg, Numeric{});
  add_unary<AbsFn>(table, OpId::kAbs, Numeric{});
  add_unary<ExpFn>(table, OpId::kExp, Floating{});
  add_unary<LogFn>(table, OpId::kLog, Floating{});
  add_unary<SqrtFn>(table, OpId::kSqrt, Floating{});
  add_unary<SquareFn>(table, OpId::kSquare, Numeric{});
  add_unary<ReluFn>(table, OpId::kRelu, Numeric{});
  add_unary<SigmoidFn>(table, OpId::kSigmoid, Floating{});
  add_unary<TanhFn>(table, OpId::kTanh, Floating{});
}

}  // namespace eagle::cpu
