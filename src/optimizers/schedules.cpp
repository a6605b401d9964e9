// Keras 3's learning-rate schedules (keras.optimizers.schedules), computed as Keras computes them:
// every operation in float32, the dtype of the initial learning rate, so that a schedule gives
// Keras's learning rate to the last bit (tests/keras3_optimizer_test.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/optimizers.hpp"

namespace eagle::optimizers::schedules {
namespace {

void check_decay_steps(std::int64_t steps, const char* argument) {
  if (steps <= 0) {
    throw InvalidArgumentError(
        fmt::format("Argument `{0}` must be > 0. Received: {0}={1}", argument, steps));
  }
}

// A Python number as Keras's ops take it in a float32 expression (float arithmetic on Python
// numbers, as 1 - alpha, happens in double first).
float f32(double value) { return static_cast<float>(value); }

constexpr double kPi = 3.14159265358979323846;  // Python's math.pi

}  // namespace

std::function<double(std::int64_t)> ExponentialDecay(double initial_learning_rate,
                                                     std::int64_t decay_steps, double decay_rate,
                                                     bool staircase) {
  check_decay_steps(decay_steps, "decay_steps");
  return [=](std::int64_t step) {
    float p = f32(static_cast<double>(step)) / f32(static_cast<double>(decay_steps));
    if (staircase) p = std::floor(p);
    return static_cast<double>(f32(initial_learning_rate) * std::pow(f32(decay_rate), p));
  };
}

std::function<double(std::int64_t)> PiecewiseConstantDecay(std::vector<std::int64_t> boundaries,
                                                           std::vector<double> values) {
  if (values.size() != boundaries.size() + 1) {
    throw InvalidArgumentError(
        fmt::format("The length of boundaries should be 1 less than the length of values "
                    "(boundaries: {}, values: {})",
                    boundaries.size(), values.size()));
  }
  return [boundaries = std::move(boundaries), values = std::move(values)](std::int64_t step) {
    for (std::size_t i = 0; i < boundaries.size(); ++i) {
      if (step <= boundaries[i]) return values[i];
    }
    return values.back();
  };
}

std::function<double(std::int64_t)> InverseTimeDecay(double initial_learning_rate,
                                                     std::int64_t decay_steps, double decay_rate,
                                                     bool staircase) {
  check_decay_steps(decay_steps, "decay_steps");
  return [=](std::int64_t step) {
    float p = f32(static_cast<double>(step)) / f32(static_cast<double>(decay_steps));
    if (staircase) p = std::floor(p);
    const float denominator = 1.0f + f32(decay_rate) * p;
    return static_cast<double>(f32(initial_learning_rate) / denominator);
  };
}

std::function<double(std::int64_t)> PolynomialDecay(double initial_learning_rate,
                                                    std::int64_t decay_steps,
                                                    double end_learning_rate, double power,
                                                    bool cycle) {
  check_decay_steps(decay_steps, "decay_steps");
  return [=](std::int64_t step_count) {
    const float initial = f32(initial_learning_rate);
    const float end = f32(end_learning_rate);
    float step = f32(static_cast<double>(step_count));
    float steps = f32(static_cast<double>(decay_steps));
    if (cycle) {
      // The first multiple of decay_steps above the step (1 at step 0).
      const float multiplier = step == 0.0f ? 1.0f : std::ceil(step / steps);
      steps = steps * multiplier;
    } else {
      step = std::min(step, steps);
    }
    const float p = step / steps;
    return static_cast<double>((initial - end) * std::pow(1.0f - p, f32(power)) + end);
  };
}

std::function<double(std::int64_t)> CosineDecay(double initial_learning_rate,
                                                std::int64_t decay_steps, double alpha,
                                                std::optional<double> warmup_target,
                                                std::int64_t warmup_steps) {
  check_decay_steps(decay_steps, "decay_steps");
  const auto decay = [alpha](float step, float steps, float from) {
    const float completed = step / steps;
    const float cosine = 0.5f * (1.0f + std::cos(f32(kPi) * completed));
    const float decayed = f32(1.0 - alpha) * cosine + f32(alpha);
    return from * decayed;
  };
  return [=](std::int64_t step_count) {
    const float initial = f32(initial_learning_rate);
    const float steps = f32(static_cast<double>(decay_steps));
    float step = f32(static_cast<double>(step_count));
    if (!warmup_target) return static_cast<double>(decay(std::min(step, steps), steps, initial));
    const float target = f32(*warmup_target);
    const float warmup = f32(static_cast<double>(warmup_steps));
    step = std::min(step, steps + warmup);
    if (step < warmup) {
      const float completed = step / warmup;
      return static_cast<double>((target - initial) * completed + initial);
    }
    return static_cast<double>(decay(step - warmup, steps, target));
  };
}

std::function<double(std::int64_t)> CosineDecayRestarts(double initial_learning_rate,
                                                        std::int64_t first_decay_steps,
                                                        double t_mul, double m_mul, double alpha) {
  check_decay_steps(first_decay_steps, "first_decay_steps");
  return [=](std::int64_t step_count) {
    const float initial = f32(initial_learning_rate);
    const float first = f32(static_cast<double>(first_decay_steps));
    const float a = f32(alpha);
    const float t = f32(t_mul);
    const float m = f32(m_mul);
    float completed = f32(static_cast<double>(step_count)) / first;
    float restart;
    if (t == 1.0f) {
      restart = std::floor(completed);
      completed -= restart;
    } else {
      // The periods grow geometrically: the restart is the geometric series' index.
      restart = std::floor(std::log(1.0f - completed * (1.0f - t)) / std::log(t));
      const float sum = (1.0f - std::pow(t, restart)) / (1.0f - t);
      completed = (completed - sum) / std::pow(t, restart);
    }
    const float factor = std::pow(m, restart);
    const float cosine = 0.5f * factor * (1.0f + std::cos(f32(kPi) * completed));
    const float decayed = (1.0f - a) * cosine + a;
    return static_cast<double>(initial * decayed);
  };
}

}  // namespace eagle::optimizers::schedules
