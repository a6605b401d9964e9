#include "eagle/initializers.hpp"

#include <cmath>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace eagle::initializers {
namespace {

struct Fans {
  double in;
  double out;
};

// Keras's _compute_fans.
Fans fans_of(const Shape& shape) {
  if (shape.rank() == 0) return {1, 1};
  if (shape.rank() == 1) return {static_cast<double>(shape[0]), static_cast<double>(shape[0])};
  if (shape.rank() == 2) return {static_cast<double>(shape[0]), static_cast<double>(shape[1])};
  double receptive = 1;
  for (int i = 0; i < shape.rank() - 2; ++i) receptive *= static_cast<double>(shape[i]);
  return {receptive * static_cast<double>(shape[shape.rank() - 2]),
          receptive * static_cast<double>(shape[shape.rank() - 1])};
}

void check_floating(DType dtype, const char* name) {
  if (!is_floating(dtype)) {
    throw InvalidArgumentError(fmt::format(
        "The {} initializer only supports floating point dtypes, got {}", name, dtype_name(dtype)));
  }
}

}  // namespace

Initializer zeros() {
  return [](const Shape& shape, DType dtype) { return eagle::zeros(shape, dtype); };
}
Initializer ones() {
  return [](const Shape& shape, DType dtype) { return eagle::ones(shape, dtype); };
}
Initializer constant(double value) {
  return [value](const Shape& shape, DType dtype) { return fill(shape, value, dtype); };
}
Initializer random_normal(double mean, double stddev, Seed seed) {
  return [=](const Shape& shape, DType dtype) {
    check_floating(dtype, "RandomNormal");
    return eagle::random_normal(shape, mean, stddev, dtype, seed);
  };
}
Initializer random_uniform(double minval, double maxval, Seed seed) {
  return [=](const Shape& shape, DType dtype) {
    return eagle::random_uniform(shape, minval, maxval, dtype, seed);
  };
}
Initializer truncated_normal(double mean, double stddev, Seed seed) {
  return [=](const Shape& shape, DType dtype) {
    check_floating(dtype, "TruncatedNormal");
    return eagle::truncated_normal(shape, mean, stddev, dtype, seed);
  };
}

Initializer variance_scaling(double scale, const std::string& mode, const std::string& distribution,
                             Seed seed) {
  if (scale <= 0) {
    throw InvalidArgumentError(
        fmt::format("`scale` must be positive float. Received: scale={}", scale));
  }
  if (mode != "fan_in" && mode != "fan_out" && mode != "fan_avg") {
    throw InvalidArgumentError(fmt::format(
        "Invalid `mode` argument: expected one of {{\"fan_in\", \"fan_out\", \"fan_avg\"}}. "
        "Received: mode={}",
        mode));
  }
  if (distribution != "truncated_normal" && distribution != "untruncated_normal" &&
      distribution != "uniform" && distribution != "normal") {
    throw InvalidArgumentError(
        fmt::format("Invalid `distribution` argument: expected one of {{\"normal\", \"uniform\", "
                    "\"truncated_normal\", \"untruncated_normal\"}}. Received: distribution={}",
                    distribution));
  }
  return [=](const Shape& shape, DType dtype) {
    check_floating(dtype, "VarianceScaling");
    const Fans fans = fans_of(shape);
    const double n = mode == "fan_in"    ? fans.in
                     : mode == "fan_out" ? fans.out
                                         : (fans.in + fans.out) / 2;
    const double s = scale / std::max(1.0, n);
    if (distribution == "uniform") {
      const double limit = std::sqrt(3.0 * s);
      return eagle::random_uniform(shape, -limit, limit, dtype, seed);
    }
    if (distribution == "untruncated_normal") {
      return eagle::random_normal(shape, 0.0, std::sqrt(s), dtype, seed);
    }
    // The stddev of a unit normal truncated to (-2, 2).
    return eagle::truncated_normal(shape, 0.0, std::sqrt(s) / 0.87962566103423978, dtype, seed);
  };
}

Initializer glorot_uniform(Seed seed) { return variance_scaling(1.0, "fan_avg", "uniform", seed); }
Initializer glorot_normal(Seed seed) {
  return variance_scaling(1.0, "fan_avg", "truncated_normal", seed);
}
Initializer he_normal(Seed seed) {
  return variance_scaling(2.0, "fan_in", "truncated_normal", seed);
}
Initializer he_uniform(Seed seed) { return variance_scaling(2.0, "fan_in", "uniform", seed); }
Initializer lecun_normal(Seed seed) {
  return variance_scaling(1.0, "fan_in", "truncated_normal", seed);
}
Initializer lecun_uniform(Seed seed) { return variance_scaling(1.0, "fan_in", "uniform", seed); }

Initializer get(const std::string& name) {
  if (name == "zeros") return zeros();
  if (name == "ones") return ones();
  if (name == "random_normal") return random_normal();
  if (name == "random_uniform") return random_uniform();
  if (name == "truncated_normal") return truncated_normal();
  if (name == "glorot_uniform") return glorot_uniform();
  if (name == "glorot_normal") return glorot_normal();
  if (name == "he_normal") return he_normal();
  if (name == "he_uniform") return he_uniform();
  if (name == "lecun_normal") return lecun_normal();
  if (name == "lecun_uniform") return lecun_uniform();
  throw InvalidArgumentError(fmt::format("Could not interpret initializer identifier: '{}'", name));
}

}  // namespace eagle::initializers
