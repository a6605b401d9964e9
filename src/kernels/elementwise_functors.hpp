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

// Whether a binary functor yields bool (a comparison) rather than its operands' type.
template <class F, class = void>
struct is_predicate : std::false_type {};
template <class F>
struct is_predicate<F, std::void_t<decltype(F::kPredicate)>> : std::bool_constant<F::kPredicate> {};
template <class F>
inline constexpr bool is_predicate_v = is_predicate<F>::value;

// Note [Elementwise op list]: the (op, functor) pairs every backend registers, so the list is
// written once. X(op, functor) for binary ops, U(op, functor) for unary ones.
// clang-format off
#define EAGLE_ELEMENTWISE_OPS(X, U) \
  X(AddV2, AddFn) X(Sub, SubFn) X(Mul, MulFn) X(RealDiv, DivFn) X(Maximum, MaxFn) \
  X(Minimum, MinFn) X(Pow, PowFn) X(Equal, EqualFn) X(NotEqual, NotEqualFn) X(Less, LessFn) \
  X(LessEqual, LessEqualFn) X(Greater, GreaterFn) X(GreaterEqual, GreaterEqualFn) \
  U(Neg, NegFn) U(Abs, AbsFn) U(Exp, ExpFn) U(Log, LogFn) U(Sqrt, SqrtFn) U(Square, SquareFn) \
  U(Relu, ReluFn) U(Sigmoid, SigmoidFn) U(Tanh, TanhFn)
// clang-format on

}  // namespace eagle::kernels
