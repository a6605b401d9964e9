// The math of every elementwise op, written once for the CPU and the CUDA kernels (as
// TensorFlow's functor::maximum serves both its CPU and GPU kernels). A functor maps compute
// values (float for the 16-bit floats, Note [Half precision on the CPU]) to a compute value, or
// to bool for a predicate (kPredicate). kCost weighs a libm call against a load and a store for
// the CPU's intra-op split (functor_cost in cpu/broadcast_loop.hpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/scalar_math.hpp"

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
    return dy * (C{1} - y * y);
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
  U(IsInf, IsInfFn) U(IsFinite, IsFiniteFn) U(LogicalNot, LogicalNotFn)
// clang-format on

}  // namespace eagle::kernels
