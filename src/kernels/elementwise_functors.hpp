// The math of every elementwise op, written once for the CPU and the CUDA kernels (as
// TensorFlow's functor::maximum serves both its CPU and GPU kernels). A functor maps compute
// values (float for the 16-bit floats, Note [Half precision on the CPU]) to a compute value, or
// to bool for a predicate (kPredicate). kCost weighs a libm call against a load and a store for
// the CPU's intra-op split (functor_cost in cpu/broadcast_loop.hpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/scalar_math.hpp"
#include "opdefs/attrs.hpp"

namespace eagle::kernels {

struct AddFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a, C b) const {
    return wrap_add(a, b);
  }
};
struct SubFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a, C b) const {
    return wrap_sub(a, b);
  }
};
struct MulFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a, C b) const {
    return wrap_mul(a, b);
  }
};
struct DivFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a, C b) const {
    return a / b;
  }
};
struct MaxFn {  // Note [Maximum of equal values]
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a, C b) const {
    return nan_max(a, b);
  }
};
struct MinFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a, C b) const {
    return nan_min(a, b);
  }
};
struct PowFn {
  static constexpr std::int64_t kCost = 32;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C base, C exponent) const {
    if constexpr (std::is_floating_point_v<C>) {
      return math::pow(base, exponent);
    } else {  // by squaring, wrapping; negative exponents are refused before the kernel runs
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

// Integer division and remainder: a zero divisor is refused before the kernel runs (Note
// [Integer division by zero]); the lowest value divided by -1 wraps (x86 would trap).
struct FloorDivFn {
  static constexpr bool kIntegerDivision = true;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == -1) return wrap_neg(a);
      const C q = a / b;
      return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
    } else {
      return math::floor(a / b);
    }
  }
};
struct FloorModFn {  // the result takes the divisor's sign, as Python's %
  static constexpr bool kIntegerDivision = true;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == -1) return C{0};
      const C r = a % b;
      return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
    } else {
      const C r = math::fmod(a, b);
      return (r != 0 && ((b < 0) != (r < 0))) ? r + b : r;
    }
  }
};
struct TruncateDivFn {
  static constexpr bool kIntegerDivision = true;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      return b == -1 ? wrap_neg(a) : a / b;
    } else {
      return math::trunc(a / b);
    }
  }
};
struct TruncateModFn {  // the result takes the dividend's sign, as C's %
  static constexpr bool kIntegerDivision = true;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      return b == -1 ? C{0} : a % b;
    } else {
      return math::fmod(a, b);
    }
  }
};
struct SquaredDifferenceFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a, C b) const {
    const C d = wrap_sub(a, b);
    return wrap_mul(d, d);
  }
};

// The fused gradients of TensorFlow's activations (tf/core/kernels/cwise_ops.h): one pass over
// the upstream gradient instead of the three or four ops their formulas would take. The operand
// order is TensorFlow's: ReluGrad(gradients, features), the others (y, dy) with y the forward
// op's output.
struct ReluGradFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C gradient, C feature) const {
    return feature > C{0} ? gradient : C{0};
  }
};
struct SigmoidGradFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C y, C dy) const {
    return dy * y * (C{1} - y);
  }
};
struct TanhGradFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C y, C dy) const {
    // (1 - y)(1 + y), not 1 - y * y: exact for y near ±1, where 1 - y * y cancels, and with no
    // product-plus-sum for nvcc to fuse into an FMA, so the CPU and CUDA kernels round alike.
    return dy * ((C{1} - y) * (C{1} + y));
  }
};
struct SqrtGradFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C y, C dy) const {
    return C{0.5f} * dy / y;
  }
};
struct RsqrtGradFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C y, C dy) const {
    return C{-0.5f} * (dy * y) * (y * y);
  }
};
struct ReciprocalGradFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C y, C dy) const {
    return -dy * y * y;
  }
};

// Note [NN activation gradients]: the NN activations' fused gradients, with TensorFlow's operand
// order (tf/core/kernels/relu_op_functor.h, softsign_op.h): Relu6Grad, LeakyReluGrad and
// SoftsignGrad take (gradients, features), EluGrad and SeluGrad (gradients, outputs).
struct Relu6GradFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C gradient, C feature) const {
    return feature > C{0} && feature < C{6} ? gradient : C{0};
  }
};
// A functor with attributes names them (Attrs) and takes them in configure(); the kernels build
// it with make_functor. alpha is TensorFlow's float attribute, converted to the compute type.
struct LeakyReluGradFn {
  using Attrs = opdefs::LeakyReluAttrs;
  float alpha = 0.2f;
  void configure(const Attrs& attrs) { alpha = static_cast<float>(attrs.alpha); }
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C gradient, C feature) const {
    return feature > C{0} ? gradient : gradient * C(alpha);
  }
};
struct EluGradFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C gradient, C output) const {
    return output < C{0} ? gradient * (output + C{1}) : gradient;
  }
};
// SELU's constants (Klambauer et al.), as TensorFlow writes them.
inline constexpr double kSeluScale = 1.0507009873554804934193349852946;
inline constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;
struct SeluGradFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C gradient, C output) const {
    return output < C{0} ? gradient * (output + C(kSeluScaleAlpha)) : gradient * C(kSeluScale);
  }
};
struct SoftsignGradFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C gradient, C feature) const {
    const C d = C{1} + math::fabs(feature);
    return gradient / (d * d);
  }
};

#define EAGLE_PREDICATE(Name, expr)                     \
  struct Name {                                         \
    static constexpr bool kPredicate = true;            \
    template <class C>                                  \
    EAGLE_HOST_DEVICE bool operator()(C a, C b) const { \
      return expr;                                      \
    }                                                   \
  };
EAGLE_PREDICATE(EqualFn, a == b)
EAGLE_PREDICATE(NotEqualFn, a != b)
EAGLE_PREDICATE(LessFn, a < b)
EAGLE_PREDICATE(LessEqualFn, a <= b)
EAGLE_PREDICATE(GreaterFn, a > b)
EAGLE_PREDICATE(GreaterEqualFn, a >= b)
EAGLE_PREDICATE(LogicalAndFn, a&& b)
EAGLE_PREDICATE(LogicalOrFn, a || b)
#undef EAGLE_PREDICATE

struct NegFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return wrap_neg(a);
  }
};
struct AbsFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    if constexpr (std::is_floating_point_v<C>) {
      return math::fabs(a);
    } else {
      return a < 0 ? wrap_neg(a) : a;
    }
  }
};
struct ExpFn {
  static constexpr std::int64_t kCost = 32;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return math::exp(a);
  }
};
struct LogFn {
  static constexpr std::int64_t kCost = 32;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return math::log(a);
  }
};
struct SqrtFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return math::sqrt(a);
  }
};
struct SquareFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return wrap_mul(a, a);
  }
};
// max(x, 0) as TensorFlow computes it: -0.0 gives +0.0 (the second operand on a tie), NaN
// stays NaN.
struct ReluFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return a > C{0} || is_nan(a) ? a : C{0};
  }
};
struct SigmoidFn {
  static constexpr std::int64_t kCost = 32;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return C{1} / (C{1} + math::exp(-a));
  }
};
struct TanhFn {
  static constexpr std::int64_t kCost = 32;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return math::tanh(a);
  }
};
struct FloorFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return math::floor(a);
  }
};
struct CeilFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return math::ceil(a);
  }
};
// Half to even (banker's rounding), as tf.round; integers are already whole.
struct RoundFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    if constexpr (std::is_integral_v<C>) {
      return a;
    } else {
      return math::rint(a);
    }
  }
};
// -1, 0 or 1 (0 for both zeros); NaN stays NaN.
struct SignFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    if (is_nan(a)) return a;
    return static_cast<C>((C{0} < a) - (a < C{0}));
  }
};
struct RsqrtFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return C{1} / math::sqrt(a);
  }
};
struct ReciprocalFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return C{1} / a;
  }
};
struct Log1pFn {
  static constexpr std::int64_t kCost = 32;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return math::log1p(a);
  }
};
struct ErfFn {
  static constexpr std::int64_t kCost = 32;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return math::erf(a);
  }
};
struct SinFn {
  static constexpr std::int64_t kCost = 32;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return math::sin(a);
  }
};
struct CosFn {
  static constexpr std::int64_t kCost = 32;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return math::cos(a);
  }
};
// min(max(x, 0), 6); NaN stays NaN.
struct Relu6Fn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    if (is_nan(a)) return a;
    return a > C{0} ? (a < C{6} ? a : C{6}) : C{0};
  }
};
struct LeakyReluFn {
  using Attrs = opdefs::LeakyReluAttrs;
  float alpha = 0.2f;
  void configure(const Attrs& attrs) { alpha = static_cast<float>(attrs.alpha); }
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return a > C{0} ? a : a * C(alpha);
  }
};
struct EluFn {
  static constexpr std::int64_t kCost = 32;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return a < C{0} ? math::expm1(a) : a;
  }
};
struct SeluFn {
  static constexpr std::int64_t kCost = 32;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return a < C{0} ? C(kSeluScaleAlpha) * math::expm1(a) : C(kSeluScale) * a;
  }
};
// TensorFlow's softplus (tf/core/kernels/softplus_op.h): x where exp(x) would not change
// log1p's result (x > -threshold), exp(x) where log1p(exp(x)) rounds to it (x < threshold),
// threshold = log(epsilon) + 2 of the compute type.
struct SoftplusFn {
  static constexpr std::int64_t kCost = 64;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    const C threshold =
        sizeof(C) == sizeof(double) ? C(-34.043653389117154) : C(-13.942385152878742);
    if (a > -threshold) return a;
    const C e = math::exp(a);
    return a < threshold ? e : math::log1p(e);
  }
};
struct SoftsignFn {
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return a / (C{1} + math::fabs(a));
  }
};
struct ErfcFn {
  static constexpr std::int64_t kCost = 32;
  template <class C>
  EAGLE_HOST_DEVICE C operator()(C a) const {
    return math::erfc(a);
  }
};
struct IsNanFn {
  template <class C>
  EAGLE_HOST_DEVICE bool operator()(C a) const {
    return is_nan(a);
  }
};
struct IsInfFn {
  template <class C>
  EAGLE_HOST_DEVICE bool operator()(C a) const {
    return math::isinf(a);
  }
};
struct IsFiniteFn {
  template <class C>
  EAGLE_HOST_DEVICE bool operator()(C a) const {
    return !is_nan(a) && !math::isinf(a);
  }
};
struct LogicalNotFn {
  template <class C>
  EAGLE_HOST_DEVICE bool operator()(C a) const {
    return !a;
  }
};

// Whether a binary functor yields bool (a comparison) rather than its operands' type.
template <class F, class = void>
struct is_predicate : std::false_type {};
template <class F>
struct is_predicate<F, std::void_t<decltype(F::kPredicate)>> : std::bool_constant<F::kPredicate> {};
template <class F>
inline constexpr bool is_predicate_v = is_predicate<F>::value;

// The functor a kernel runs: configured from the op's attributes when it has some (LeakyRelu's
// alpha), default-constructed otherwise. Ctx is runtime::KernelContext.
template <class F, class = void>
struct has_attrs : std::false_type {};
template <class F>
struct has_attrs<F, std::void_t<typename F::Attrs>> : std::true_type {};
template <class F, class Ctx>
F make_functor(const Ctx& ctx) {
  F f{};
  if constexpr (has_attrs<F>::value) f.configure(ctx.template attrs<typename F::Attrs>());
  return f;
}

// Note [Integer division by zero]: an integer FloorDiv, FloorMod, TruncateDiv or TruncateMod
// with a zero divisor is TensorFlow's InvalidArgumentError "Integer division by zero"; kernels
// check the divisor before computing (float division by zero is IEEE: inf or NaN).
template <class F, class = void>
struct is_integer_division : std::false_type {};
template <class F>
struct is_integer_division<F, std::void_t<decltype(F::kIntegerDivision)>> : std::true_type {};
template <class F>
inline constexpr bool is_integer_division_v = is_integer_division<F>::value;

// Note [Elementwise op list]: the (op, functor) pairs every backend registers, so the list is
// written once. X(op, functor) for binary ops, U(op, functor) for unary ones.
// clang-format off
#define EAGLE_ELEMENTWISE_OPS(X, U) \
  X(AddV2, AddFn) X(Sub, SubFn) X(Mul, MulFn) X(RealDiv, DivFn) X(Maximum, MaxFn) \
  X(Minimum, MinFn) X(Pow, PowFn) X(Equal, EqualFn) X(NotEqual, NotEqualFn) X(Less, LessFn) \
  X(LessEqual, LessEqualFn) X(Greater, GreaterFn) X(GreaterEqual, GreaterEqualFn) \
  X(FloorDiv, FloorDivFn) X(FloorMod, FloorModFn) X(TruncateDiv, TruncateDivFn) \
  X(TruncateMod, TruncateModFn) X(SquaredDifference, SquaredDifferenceFn) \
  X(LogicalAnd, LogicalAndFn) X(LogicalOr, LogicalOrFn) X(ReluGrad, ReluGradFn) \
  X(SigmoidGrad, SigmoidGradFn) X(TanhGrad, TanhGradFn) X(SqrtGrad, SqrtGradFn) \
  X(RsqrtGrad, RsqrtGradFn) X(ReciprocalGrad, ReciprocalGradFn) \
  U(Neg, NegFn) U(Abs, AbsFn) U(Exp, ExpFn) U(Log, LogFn) U(Sqrt, SqrtFn) U(Square, SquareFn) \
  U(Relu, ReluFn) U(Sigmoid, SigmoidFn) U(Tanh, TanhFn) U(Floor, FloorFn) U(Ceil, CeilFn) \
  U(Round, RoundFn) U(Sign, SignFn) U(Rsqrt, RsqrtFn) U(Reciprocal, ReciprocalFn) \
  U(Log1p, Log1pFn) U(Erf, ErfFn) U(Sin, SinFn) U(Cos, CosFn) U(IsNan, IsNanFn) \
  U(IsInf, IsInfFn) U(IsFinite, IsFiniteFn) U(LogicalNot, LogicalNotFn) \
  EAGLE_NN_ELEMENTWISE_OPS(X, U)
#define EAGLE_NN_ELEMENTWISE_OPS(X, U) \
  X(Relu6Grad, Relu6GradFn) X(LeakyReluGrad, LeakyReluGradFn) X(EluGrad, EluGradFn) \
  X(SeluGrad, SeluGradFn) X(SoftsignGrad, SoftsignGradFn) \
  U(Relu6, Relu6Fn) U(LeakyRelu, LeakyReluFn) U(Elu, EluFn) U(Selu, SeluFn) \
  U(Softplus, SoftplusFn) U(Softsign, SoftsignFn) U(Erfc, ErfcFn)
// clang-format on

}  // namespace eagle::kernels
