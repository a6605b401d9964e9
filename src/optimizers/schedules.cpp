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
#include "eagle/io/json.hpp"
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

// A schedule these functions made, with what keras.optimizers.schedules.serialize writes for it,
// so that an optimizer's config (a .keras file's compile_config) can name it.
struct KerasSchedule {
  io::Json serialized;
  std::function<double(std::int64_t)> compute;
  double operator()(std::int64_t step) const { return compute(step); }
};

std::function<double(std::int64_t)> keras_schedule(const char* class_name, io::Json config,
                                                   std::function<double(std::int64_t)> compute) {
  return KerasSchedule{io::Json::object()
                           .set("module", "keras.optimizers.schedules")
                           .set("class_name", class_name)
                           .set("config", std::move(config))
                           .set("registered_name", nullptr),
                       std::move(compute)};
}

io::Json optional_number(const std::optional<double>& value) {
  return value ? io::Json(*value) : io::Json();
}

}  // namespace

std::function<double(std::int64_t)> ExponentialDecay(double initial_learning_rate,
                                                     std::int64_t decay_steps, double decay_rate,
                                                     bool staircase) {
  check_decay_steps(decay_steps, "decay_steps");
  return keras_schedule(
      "ExponentialDecay",
      io::Json::object()
          .set("initial_learning_rate", initial_learning_rate)
          .set("decay_steps", decay_steps)
          .set("decay_rate", decay_rate)
          .set("staircase", staircase)
          .set("name", "ExponentialDecay"),
      [=](std::int64_t step) {
        float p = f32(static_cast<double>(step)) / f32(static_cast<double>(decay_steps));
        if (staircase) p = std::floor(p);
        return static_cast<double>(f32(initial_learning_rate) * std::pow(f32(decay_rate), p));
      });
}

std::function<double(std::int64_t)> PiecewiseConstantDecay(std::vector<std::int64_t> boundaries,
                                                           std::vector<double> values) {
  if (values.size() != boundaries.size() + 1) {
    throw InvalidArgumentError(
        fmt::format("The length of boundaries should be 1 less than the length of values "
                    "(boundaries: {}, values: {})",
                    boundaries.size(), values.size()));
  }
  io::Json boundary_list = io::Json::array();
  for (std::int64_t b : boundaries) boundary_list.push_back(b);
  io::Json value_list = io::Json::array();
  for (double v : values) value_list.push_back(v);
  return keras_schedule(
      "PiecewiseConstantDecay",
      io::Json::object()
          .set("boundaries", std::move(boundary_list))
          .set("values", std::move(value_list))
          .set("name", "PiecewiseConstant"),
      [boundaries = std::move(boundaries), values = std::move(values)](std::int64_t step) {
        for (std::size_t i = 0; i < boundaries.size(); ++i) {
          if (step <= boundaries[i]) return values[i];
        }
        return values.back();
      });
}

std::function<double(std::int64_t)> InverseTimeDecay(double initial_learning_rate,
                                                     std::int64_t decay_steps, double decay_rate,
                                                     bool staircase) {
  check_decay_steps(decay_steps, "decay_steps");
  return keras_schedule("InverseTimeDecay",
                        io::Json::object()
                            .set("initial_learning_rate", initial_learning_rate)
                            .set("decay_steps", decay_steps)
                            .set("decay_rate", decay_rate)
                            .set("staircase", staircase)
                            .set("name", "InverseTimeDecay"),
                        [=](std::int64_t step) {
                          float p = f32(static_cast<double>(step)) /
                                    f32(static_cast<double>(decay_steps));
                          if (staircase) p = std::floor(p);
                          const float denominator = 1.0f + f32(decay_rate) * p;
                          return static_cast<double>(f32(initial_learning_rate) / denominator);
                        });
}

std::function<double(std::int64_t)> PolynomialDecay(double initial_learning_rate,
                                                    std::int64_t decay_steps,
                                                    double end_learning_rate, double power,
                                                    bool cycle) {
  check_decay_steps(decay_steps, "decay_steps");
  const io::Json config = io::Json::object()
                              .set("initial_learning_rate", initial_learning_rate)
                              .set("decay_steps", decay_steps)
                              .set("end_learning_rate", end_learning_rate)
                              .set("power", power)
                              .set("cycle", cycle)
                              .set("name", "PolynomialDecay");
  return keras_schedule("PolynomialDecay", config, [=](std::int64_t step_count) {
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
  });
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
  const io::Json config = io::Json::object()
                              .set("initial_learning_rate", initial_learning_rate)
                              .set("decay_steps", decay_steps)
                              .set("alpha", alpha)
                              .set("name", "CosineDecay")
                              .set("warmup_target", optional_number(warmup_target))
                              .set("warmup_steps", warmup_steps);
  return keras_schedule("CosineDecay", config, [=](std::int64_t step_count) {
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
  });
}

std::function<double(std::int64_t)> CosineDecayRestarts(double initial_learning_rate,
                                                        std::int64_t first_decay_steps,
                                                        double t_mul, double m_mul, double alpha) {
  check_decay_steps(first_decay_steps, "first_decay_steps");
  const io::Json config = io::Json::object()
                              .set("initial_learning_rate", initial_learning_rate)
                              .set("first_decay_steps", first_decay_steps)
                              .set("t_mul", t_mul)
                              .set("m_mul", m_mul)
                              .set("alpha", alpha)
                              .set("name", "SGDRDecay");
  return keras_schedule("CosineDecayRestarts", config, [=](std::int64_t step_count) {
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
  });
}

std::optional<io::Json> serialize(const std::function<double(std::int64_t)>& schedule) {
  const KerasSchedule* made = schedule.target<KerasSchedule>();
  if (made == nullptr) return std::nullopt;
  return made->serialized;
}

std::function<double(std::int64_t)> deserialize(const io::Json& serialized) {
  const io::Json* class_name = serialized.find("class_name");
  const io::Json* config = serialized.find("config");
  if (class_name == nullptr || !class_name->is_string() || config == nullptr ||
      !config->is_object()) {
    throw InvalidArgumentError(
        "A learning-rate schedule's configuration needs \"class_name\" and \"config\"");
  }
  const std::string& cls = class_name->as_string();
  const auto field = [&](const char* key) -> const io::Json& {
    const io::Json* value = config->find(key);
    if (value == nullptr) {
      throw InvalidArgumentError(fmt::format("{}'s configuration has no '{}'", cls, key));
    }
    return *value;
  };
  const auto number = [&](const char* key, std::optional<double> fallback = std::nullopt) {
    if (fallback && config->find(key) == nullptr) return *fallback;
    const io::Json& value = field(key);
    if (!value.is_number()) {
      throw InvalidArgumentError(
          fmt::format("{}'s '{}' must be a number, not {}", cls, key, value.type_name()));
    }
    return value.as_number();
  };
  const auto integer = [&](const char* key, std::optional<std::int64_t> fallback = std::nullopt) {
    if (fallback && config->find(key) == nullptr) return *fallback;
    const io::Json& value = field(key);
    if (!value.is_integer()) {
      throw InvalidArgumentError(
          fmt::format("{}'s '{}' must be an integer, not {}", cls, key, value.type_name()));
    }
    return value.as_integer();
  };
  const auto flag = [&](const char* key) {
    const io::Json* value = config->find(key);
    if (value == nullptr) return false;
    if (!value->is_bool()) {
      throw InvalidArgumentError(
          fmt::format("{}'s '{}' must be true or false, not {}", cls, key, value->type_name()));
    }
    return value->as_bool();
  };
  if (cls == "ExponentialDecay") {
    return ExponentialDecay(number("initial_learning_rate"), integer("decay_steps"),
                            number("decay_rate"), flag("staircase"));
  }
  if (cls == "InverseTimeDecay") {
    return InverseTimeDecay(number("initial_learning_rate"), integer("decay_steps"),
                            number("decay_rate"), flag("staircase"));
  }
  if (cls == "PolynomialDecay") {
    return PolynomialDecay(number("initial_learning_rate"), integer("decay_steps"),
                           number("end_learning_rate", 0.0001), number("power", 1.0),
                           flag("cycle"));
  }
  if (cls == "CosineDecay") {
    const io::Json* target = config->find("warmup_target");
    return CosineDecay(
        number("initial_learning_rate"), integer("decay_steps"), number("alpha", 0.0),
        target == nullptr || target->is_null() ? std::nullopt
                                               : std::optional<double>(number("warmup_target")),
        integer("warmup_steps", 0));
  }
  if (cls == "CosineDecayRestarts") {
    return CosineDecayRestarts(number("initial_learning_rate"), integer("first_decay_steps"),
                               number("t_mul", 2.0), number("m_mul", 1.0), number("alpha", 0.0));
  }
  if (cls == "PiecewiseConstantDecay") {
    const io::Json& boundaries = field("boundaries");
    const io::Json& values = field("values");
    if (!boundaries.is_array() || !values.is_array()) {
      throw InvalidArgumentError(
          "PiecewiseConstantDecay's 'boundaries' and 'values' must be lists");
    }
    std::vector<std::int64_t> b;
    for (const io::Json& v : boundaries.as_array()) {
      if (!v.is_integer()) {
        throw InvalidArgumentError("PiecewiseConstantDecay's boundaries must be integers");
      }
      b.push_back(v.as_integer());
    }
    std::vector<double> x;
    for (const io::Json& v : values.as_array()) {
      if (!v.is_number())
        throw InvalidArgumentError("PiecewiseConstantDecay's values must be numbers");
      x.push_back(v.as_number());
    }
    return PiecewiseConstantDecay(std::move(b), std::move(x));
  }
  // Keras's text (serialization_lib._retrieve_class_or_fn) for a class it cannot find.
  throw UnimplementedError(
      fmt::format("Could not locate class '{}'. eagle's schedules are ExponentialDecay, "
                  "PiecewiseConstantDecay, InverseTimeDecay, PolynomialDecay, CosineDecay and "
                  "CosineDecayRestarts",
                  cls));
}

}  // namespace eagle::optimizers::schedules
