// One element of each optimizer update, for the CPU and the CUDA kernels alike: TensorFlow's
// training_ops.cc (the ResourceApply* ops, which Keras 2 used), then Keras 3's own sequences
// (the _Keras* ops, Note [Keras 3 arithmetic]). A functor reads and writes the variable and its
// slots, s[0] = var, s[1..] the slots in the op's input order, in compute precision, given the
// gradient g. The constructors run on the host and fold the step's hyperparameters.
#pragma once

#include <cmath>

#include "eagle/errors.hpp"
#include "kernels/scalar_math.hpp"
#include "opdefs/attrs.hpp"
#include "opdefs/op_defs.hpp"

namespace eagle::kernels {

// ResourceApplyGradientDescent: var -= lr * g.
template <class C>
struct GradientDescentStep {
  static constexpr int kResources = 1;
  C lr;
  explicit GradientDescentStep(const opdefs::OptimizerAttrs& a) : lr(static_cast<C>(a.lr)) {}
  EAGLE_HOST_DEVICE void operator()(C* s, C g) const { s[0] = s[0] - lr * g; }
};

// ResourceApplyKerasMomentum: accum = accum * momentum - lr * g; var += accum, or with Nesterov
// var += accum * momentum - lr * g.
template <class C>
struct KerasMomentumStep {
  static constexpr int kResources = 2;
  C lr, momentum;
  bool nesterov;
  explicit KerasMomentumStep(const opdefs::OptimizerAttrs& a)
      : lr(static_cast<C>(a.lr)), momentum(static_cast<C>(a.momentum)), nesterov(a.nesterov) {}
  EAGLE_HOST_DEVICE void operator()(C* s, C g) const {
    s[1] = s[1] * momentum - lr * g;
    s[0] = nesterov ? s[0] + (s[1] * momentum - lr * g) : s[0] + s[1];
  }
};

// ResourceApplyAdam (Keras's "epsilon hat"): m += (g - m)(1 - b1); v += (g^2 - v)(1 - b2);
// var -= lr_t m / (eps + sqrt(v)), lr_t = lr sqrt(1 - b2^t) / (1 - b1^t); with AMSGrad the
// running maximum of v (slot 3) takes v's place in the denominator.
template <class C, bool kAmsgrad>
struct AdamStep {
  static constexpr int kResources = kAmsgrad ? 4 : 3;
  C lr_t, one_minus_beta1, one_minus_beta2, epsilon;
  // TensorFlow folds these in T from T-rounded inputs; so does this, to match it bit for bit.
  explicit AdamStep(const opdefs::OptimizerAttrs& a)
      : lr_t(static_cast<C>(a.lr) * std::sqrt(C{1} - static_cast<C>(a.beta2_power)) /
             (C{1} - static_cast<C>(a.beta1_power))),
        one_minus_beta1(C{1} - static_cast<C>(a.beta1)),
        one_minus_beta2(C{1} - static_cast<C>(a.beta2)),
        epsilon(static_cast<C>(a.epsilon)) {}
  EAGLE_HOST_DEVICE void operator()(C* s, C g) const {
    s[1] = s[1] + (g - s[1]) * one_minus_beta1;
    s[2] = s[2] + (g * g - s[2]) * one_minus_beta2;
    C v = s[2];
    if constexpr (kAmsgrad) {
      s[3] = s[3] > s[2] ? s[3] : s[2];
      v = s[3];
    }
    s[0] = s[0] - lr_t * s[1] / (epsilon + math::sqrt(v));
  }
};

// ResourceApplyRMSProp / ResourceApplyCenteredRMSProp, slots: ms, then mg when centered, then
// mom when momentum > 0. With momentum TensorFlow's kernel: mom = mom * momentum +
// lr g / sqrt(denominator + eps); var -= mom. Without, Keras's own formula (eps outside the
// root): var -= lr g / (sqrt(denominator) + eps). The denominator is ms, less mg^2 centered.
template <class C, bool kCentered, bool kMomentum>
struct RmsPropStep {
  static constexpr int kResources = 2 + (kCentered ? 1 : 0) + (kMomentum ? 1 : 0);
  C lr, one_minus_rho, momentum, epsilon;
  explicit RmsPropStep(const opdefs::OptimizerAttrs& a)
      : lr(static_cast<C>(a.lr)),
        one_minus_rho(C{1} - static_cast<C>(a.rho)),
        momentum(static_cast<C>(a.momentum)),
        epsilon(static_cast<C>(a.epsilon)) {}
  EAGLE_HOST_DEVICE void operator()(C* s, C g) const {
    s[1] = s[1] + (g * g - s[1]) * one_minus_rho;
    C denominator = s[1];
    if constexpr (kCentered) {
      s[2] = s[2] + (g - s[2]) * one_minus_rho;
      denominator = denominator - s[2] * s[2];
    }
    if constexpr (kMomentum) {
      constexpr int mom = kCentered ? 3 : 2;
      s[mom] = s[mom] * momentum + lr * g / math::sqrt(denominator + epsilon);
      s[0] = s[0] - s[mom];
    } else {
      s[0] = s[0] - lr * g / (math::sqrt(denominator) + epsilon);
    }
  }
};

// ResourceApplyAdagradV2: accum += g^2; var -= lr g / (sqrt(accum) + eps).
template <class C>
struct AdagradStep {
  static constexpr int kResources = 2;
  C lr, epsilon;
  explicit AdagradStep(const opdefs::OptimizerAttrs& a)
      : lr(static_cast<C>(a.lr)), epsilon(static_cast<C>(a.epsilon)) {}
  EAGLE_HOST_DEVICE void operator()(C* s, C g) const {
    s[1] = s[1] + g * g;
    s[0] = s[0] - lr * g / (math::sqrt(s[1]) + epsilon);
  }
};

// Note [Keras 3 arithmetic]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Keras 3's optimizers (keras/src/optimizers/*.py) compute their update as a sequence of tensor
// ops in the variable's dtype, each rounded, and it is that sequence the _Keras* functors below
// repeat, in its order, so eagle ends bit for bit where Keras 3 does. Where the constants come
// from matters as much as the order:
// - a hyperparameter Keras writes as a Python float (beta_1, epsilon, 1 - rho) is a double
//   rounded once to the variable's dtype when it meets a tensor: `1 - beta_1` is
//   float32(1.0 - 0.9) = 0.1f, where TensorFlow's kernel computes 1 - float32(0.9) = 0.10000002f;
// - the learning rate is a float32 variable;
// - Adam's beta powers are the dtype's own power of the rounded beta, pow(float32(beta_1),
//   float32(step)), and its step size lr * sqrt(1 - beta_2^t) / (1 - beta_1^t) is float32 ops.
// The differences from TensorFlow's kernels (Keras 2) are the epsilon inside the root for
// RMSprop and Adagrad (sqrt(v + eps), not sqrt(v) + eps) and those constants.
// SGD with or without momentum is the same sequence in both, so it keeps TensorFlow's kernels.

// _KerasAdam / _KerasAdamWithAmsgrad (keras/src/optimizers/adam.py): m += (g - m) * (1 - b1);
// v += (g^2 - v) * (1 - b2); with AMSGrad v_hat = max(v_hat, v) takes v's place;
// var -= (m * alpha) / (sqrt(v) + eps), alpha = lr * sqrt(1 - b2^t) / (1 - b1^t).
template <class C, bool kAmsgrad>
struct KerasAdamStep {
  static constexpr int kResources = kAmsgrad ? 4 : 3;
  C alpha, one_minus_beta1, one_minus_beta2, epsilon;
  explicit KerasAdamStep(const opdefs::OptimizerAttrs& a)
      : one_minus_beta1(static_cast<C>(1.0 - a.beta1)),
        one_minus_beta2(static_cast<C>(1.0 - a.beta2)),
        epsilon(static_cast<C>(a.epsilon)) {
    using std::pow;
    using std::sqrt;
    const C step = static_cast<C>(a.step);
    const C beta1_power = pow(static_cast<C>(a.beta1), step);
    const C beta2_power = pow(static_cast<C>(a.beta2), step);
    alpha = static_cast<C>(a.lr) * sqrt(C{1} - beta2_power) / (C{1} - beta1_power);
  }
  EAGLE_HOST_DEVICE void operator()(C* s, C g) const {
    s[1] = s[1] + (g - s[1]) * one_minus_beta1;
    s[2] = s[2] + (g * g - s[2]) * one_minus_beta2;
    C v = s[2];
    if constexpr (kAmsgrad) {
      s[3] = s[3] > s[2] ? s[3] : s[2];
      v = s[3];
    }
    s[0] = s[0] - (s[1] * alpha) / (math::sqrt(v) + epsilon);
  }
};

// _KerasRMSprop / _KerasCenteredRMSprop (keras/src/optimizers/rmsprop.py), slots: velocity,
// then average_gradient when centered, then momentum when momentum > 0:
// v = rho * v + (1 - rho) * g^2; centered: a = rho * a + (1 - rho) * g and the denominator is
// v - a^2 + eps, else v + eps; increment = (lr * g) / sqrt(denominator); with momentum
// mom = momentum * mom + increment and var -= mom, else var -= increment.
template <class C, bool kCentered, bool kMomentum>
struct KerasRmsPropStep {
  static constexpr int kResources = 2 + (kCentered ? 1 : 0) + (kMomentum ? 1 : 0);
  C lr, rho, one_minus_rho, momentum, epsilon;
  explicit KerasRmsPropStep(const opdefs::OptimizerAttrs& a)
      : lr(static_cast<C>(a.lr)),
        rho(static_cast<C>(a.rho)),
        one_minus_rho(static_cast<C>(1.0 - a.rho)),
        momentum(static_cast<C>(a.momentum)),
        epsilon(static_cast<C>(a.epsilon)) {}
  EAGLE_HOST_DEVICE void operator()(C* s, C g) const {
    s[1] = rho * s[1] + one_minus_rho * (g * g);
    C denominator;
    if constexpr (kCentered) {
      s[2] = rho * s[2] + one_minus_rho * g;
      denominator = s[1] - s[2] * s[2] + epsilon;
    } else {
      denominator = s[1] + epsilon;
    }
    const C increment = (lr * g) / math::sqrt(denominator);
    if constexpr (kMomentum) {
      constexpr int mom = kCentered ? 3 : 2;
      s[mom] = momentum * s[mom] + increment;
      s[0] = s[0] - s[mom];
    } else {
      s[0] = s[0] - increment;
    }
  }
};

// _KerasAdagrad (keras/src/optimizers/adagrad.py): accumulator += g^2;
// var -= (lr * g) / sqrt(accumulator + eps).
template <class C>
struct KerasAdagradStep {
  static constexpr int kResources = 2;
  C lr, epsilon;
  explicit KerasAdagradStep(const opdefs::OptimizerAttrs& a)
      : lr(static_cast<C>(a.lr)), epsilon(static_cast<C>(a.epsilon)) {}
  EAGLE_HOST_DEVICE void operator()(C* s, C g) const {
    s[1] = s[1] + g * g;
    s[0] = s[0] - (lr * g) / math::sqrt(s[1] + epsilon);
  }
};

// _KerasAdamax (keras/src/optimizers/adamax.py), slots momentum and norm:
// m += (g - m) * (1 - b1); u = max(b2 * u, |g|); var -= (lr * m) / ((1 - b1^t) * (u + eps)).
template <class C>
struct KerasAdamaxStep {
  static constexpr int kResources = 3;
  C lr, one_minus_beta1, beta2, one_minus_beta1_power, epsilon;
  explicit KerasAdamaxStep(const opdefs::OptimizerAttrs& a)
      : lr(static_cast<C>(a.lr)),
        one_minus_beta1(static_cast<C>(1.0 - a.beta1)),
        beta2(static_cast<C>(a.beta2)),
        epsilon(static_cast<C>(a.epsilon)) {
    using std::pow;
    one_minus_beta1_power = C{1} - pow(static_cast<C>(a.beta1), static_cast<C>(a.step));
  }
  EAGLE_HOST_DEVICE void operator()(C* s, C g) const {
    s[1] = s[1] + (g - s[1]) * one_minus_beta1;
    const C decayed = beta2 * s[2];
    const C magnitude = g < C{0} ? -g : g;
    s[2] = decayed > magnitude ? decayed : magnitude;
    s[0] = s[0] - (lr * s[1]) / (one_minus_beta1_power * (s[2] + epsilon));
  }
};

// _KerasNadam (keras/src/optimizers/nadam.py), slots momentum and velocity. Here beta_1 and
// beta_2 are cast first, so 1 - beta is a subtraction in the dtype (unlike Adam's). With
// u_t = b1 * (1 - 0.5 * 0.96^t) and u_product the optimizer's running product of the u_t (the
// attribute, already including step t):
// m += (g - m) * (1 - b1); v += (g^2 - v) * (1 - b2);
// m_hat = (u_{t+1} * m) / (1 - u_product * u_{t+1}) + ((1 - u_t) * g) / (1 - u_product);
// var -= (m_hat * lr) / (sqrt(v / (1 - b2^t)) + eps).
template <class C>
struct KerasNadamStep {
  static constexpr int kResources = 3;
  C lr, one_minus_beta1, one_minus_beta2, u_next, one_minus_u_product_next, one_minus_u,
      one_minus_u_product, one_minus_beta2_power, epsilon;
  explicit KerasNadamStep(const opdefs::OptimizerAttrs& a)
      : lr(static_cast<C>(a.lr)), epsilon(static_cast<C>(a.epsilon)) {
    using std::pow;
    const C beta1 = static_cast<C>(a.beta1);
    const C beta2 = static_cast<C>(a.beta2);
    const C decay = static_cast<C>(0.96);
    const C step = static_cast<C>(a.step);
    const C next_step = static_cast<C>(a.step + 1);
    const C u = beta1 * (C{1} - C{0.5} * pow(decay, step));
    u_next = beta1 * (C{1} - C{0.5} * pow(decay, next_step));
    const C u_product = static_cast<C>(a.u_product);
    one_minus_beta1 = C{1} - beta1;
    one_minus_beta2 = C{1} - beta2;
    one_minus_u_product_next = C{1} - u_product * u_next;
    one_minus_u = C{1} - u;
    one_minus_u_product = C{1} - u_product;
    one_minus_beta2_power = C{1} - pow(beta2, step);
  }
  EAGLE_HOST_DEVICE void operator()(C* s, C g) const {
    s[1] = s[1] + (g - s[1]) * one_minus_beta1;
    s[2] = s[2] + (g * g - s[2]) * one_minus_beta2;
    const C m_hat =
        (u_next * s[1]) / one_minus_u_product_next + (one_minus_u * g) / one_minus_u_product;
    const C v_hat = s[2] / one_minus_beta2_power;
    s[0] = s[0] - (m_hat * lr) / (math::sqrt(v_hat) + epsilon);
  }
};

// _KerasAdadelta (keras/src/optimizers/adadelta.py), slots accumulated_grad and
// accumulated_delta_var: a = rho * a + (1 - rho) * g^2;
// delta = -((sqrt(d + eps) * g) / sqrt(a + eps)) with d the accumulated delta before this step;
// d = rho * d + (1 - rho) * delta^2; var += lr * delta.
template <class C>
struct KerasAdadeltaStep {
  static constexpr int kResources = 3;
  C lr, rho, one_minus_rho, epsilon;
  explicit KerasAdadeltaStep(const opdefs::OptimizerAttrs& a)
      : lr(static_cast<C>(a.lr)),
        rho(static_cast<C>(a.rho)),
        one_minus_rho(static_cast<C>(1.0 - a.rho)),
        epsilon(static_cast<C>(a.epsilon)) {}
  EAGLE_HOST_DEVICE void operator()(C* s, C g) const {
    s[1] = rho * s[1] + one_minus_rho * (g * g);
    const C delta = -((math::sqrt(s[2] + epsilon) * g) / math::sqrt(s[1] + epsilon));
    s[2] = rho * s[2] + one_minus_rho * (delta * delta);
    s[0] = s[0] + lr * delta;
  }
};

// _KerasLion (keras/src/optimizers/lion.py), slot momentum; beta_1 and beta_2 are cast first:
// var -= lr * sign(m * b1 + g * (1 - b1)); m = m * b2 + g * (1 - b2).
template <class C>
struct KerasLionStep {
  static constexpr int kResources = 2;
  C lr, beta1, one_minus_beta1, beta2, one_minus_beta2;
  explicit KerasLionStep(const opdefs::OptimizerAttrs& a)
      : lr(static_cast<C>(a.lr)),
        beta1(static_cast<C>(a.beta1)),
        one_minus_beta1(C{1} - static_cast<C>(a.beta1)),
        beta2(static_cast<C>(a.beta2)),
        one_minus_beta2(C{1} - static_cast<C>(a.beta2)) {}
  EAGLE_HOST_DEVICE void operator()(C* s, C g) const {
    const C direction = s[1] * beta1 + g * one_minus_beta1;
    // sign: +0 for either zero (TensorFlow's), NaN for NaN.
    const C sign = direction > C{0}         ? C{1}
                   : direction < C{0}       ? C{-1}
                   : direction == direction ? C{0}
                                            : direction;
    s[0] = s[0] - lr * sign;
    s[1] = s[1] * beta2 + g * one_minus_beta2;
  }
};

}  // namespace eagle::kernels

namespace eagle::kernels {

// The ops the functors below serve; each backend registers its kernel for every one.
// clang-format off
#define EAGLE_OPTIMIZER_OPS(X) \
  X(ResourceApplyGradientDescent) X(ResourceApplyKerasMomentum) X(ResourceApplyAdam) \
  X(ResourceApplyAdamWithAmsgrad) X(ResourceApplyRMSProp) X(ResourceApplyCenteredRMSProp) \
  X(ResourceApplyAdagradV2) X(_KerasAdam) X(_KerasAdamWithAmsgrad) X(_KerasRMSprop) \
  X(_KerasCenteredRMSprop) X(_KerasAdagrad) X(_KerasAdamax) X(_KerasNadam) X(_KerasAdadelta) \
  X(_KerasLion)
// clang-format on

// The (op, attributes) -> functor choice both backends make: `run.template operator()<Step>()`
// is called with the functor type for T's compute type C.
template <class C, class Run>
void with_optimizer_step(opdefs::OpId op, const opdefs::OptimizerAttrs& a, Run&& run) {
  const bool momentum = a.momentum > 0;
  switch (op) {
    case opdefs::OpId::kResourceApplyGradientDescent:
      return run(GradientDescentStep<C>(a));
    case opdefs::OpId::kResourceApplyKerasMomentum:
      return run(KerasMomentumStep<C>(a));
    case opdefs::OpId::kResourceApplyAdam:
      return run(AdamStep<C, false>(a));
    case opdefs::OpId::kResourceApplyAdamWithAmsgrad:
      return run(AdamStep<C, true>(a));
    case opdefs::OpId::kResourceApplyRMSProp:
      return momentum ? run(RmsPropStep<C, false, true>(a)) : run(RmsPropStep<C, false, false>(a));
    case opdefs::OpId::kResourceApplyCenteredRMSProp:
      return momentum ? run(RmsPropStep<C, true, true>(a)) : run(RmsPropStep<C, true, false>(a));
    case opdefs::OpId::kResourceApplyAdagradV2:
      return run(AdagradStep<C>(a));
    case opdefs::OpId::k_KerasAdam:
      return run(KerasAdamStep<C, false>(a));
    case opdefs::OpId::k_KerasAdamWithAmsgrad:
      return run(KerasAdamStep<C, true>(a));
    case opdefs::OpId::k_KerasRMSprop:
      return momentum ? run(KerasRmsPropStep<C, false, true>(a))
                      : run(KerasRmsPropStep<C, false, false>(a));
    case opdefs::OpId::k_KerasCenteredRMSprop:
      return momentum ? run(KerasRmsPropStep<C, true, true>(a))
                      : run(KerasRmsPropStep<C, true, false>(a));
    case opdefs::OpId::k_KerasAdagrad:
      return run(KerasAdagradStep<C>(a));
    case opdefs::OpId::k_KerasAdamax:
      return run(KerasAdamaxStep<C>(a));
    case opdefs::OpId::k_KerasNadam:
      return run(KerasNadamStep<C>(a));
    case opdefs::OpId::k_KerasAdadelta:
      return run(KerasAdadeltaStep<C>(a));
    case opdefs::OpId::k_KerasLion:
      return run(KerasLionStep<C>(a));
    default:
      throw InternalError("An optimizer kernel was called for another op");
  }
}

}  // namespace eagle::kernels
