// One element of each optimizer update (TensorFlow's training_ops.cc, Keras 2's formulas), for
// the CPU and the CUDA kernels alike. A functor reads and writes the variable and its slots,
// s[0] = var, s[1..] the slots in the op's input order, in compute precision, given the
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

}  // namespace eagle::kernels

namespace eagle::kernels {

// The ops the functors below serve; each backend registers its kernel for every one.
// clang-format off
#define EAGLE_OPTIMIZER_OPS(X) \
  X(ResourceApplyGradientDescent) X(ResourceApplyKerasMomentum) X(ResourceApplyAdam) \
  X(ResourceApplyAdamWithAmsgrad) X(ResourceApplyRMSProp) X(ResourceApplyCenteredRMSProp) \
  X(ResourceApplyAdagradV2)
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
    default:
      throw InternalError("An optimizer kernel was called for another op");
  }
}

}  // namespace eagle::kernels
