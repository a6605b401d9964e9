// Keras's initializers (names, defaults, formulas): a function of the shape and dtype that
// makes a variable's first value. A seeded initializer gives the same values at every call and
// on every device; an unseeded one new values at each call.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"

namespace eagle::initializers {

using Initializer = std::function<Tensor(const Shape& shape, DType dtype)>;
using Seed = std::optional<std::uint64_t>;

Initializer zeros();
Initializer ones();
Initializer constant(double value);
Initializer random_normal(double mean = 0.0, double stddev = 0.05, Seed seed = {});
Initializer random_uniform(double minval = -0.05, double maxval = 0.05, Seed seed = {});
Initializer truncated_normal(double mean = 0.0, double stddev = 0.05, Seed seed = {});
// Keras's VarianceScaling: n = fan_in, fan_out or their mean ("fan_in", "fan_out", "fan_avg");
// "truncated_normal" with stddev sqrt(scale / n) / 0.87962566103423978, "untruncated_normal"
// with sqrt(scale / n), "uniform" within +-sqrt(3 scale / n). Fans as Keras computes them: a
// [kh, kw, in, out] kernel has fan_in = kh kw in and fan_out = kh kw out.
Initializer variance_scaling(double scale = 1.0, const std::string& mode = "fan_in",
                             const std::string& distribution = "truncated_normal", Seed seed = {});
Initializer glorot_uniform(Seed seed = {});  // Dense's and Conv2D's default kernel initializer
Initializer glorot_normal(Seed seed = {});
Initializer he_normal(Seed seed = {});
Initializer he_uniform(Seed seed = {});
Initializer lecun_normal(Seed seed = {});
Initializer lecun_uniform(Seed seed = {});
// By Keras's name: "zeros", "ones", "glorot_uniform", "he_normal", ... (InvalidArgumentError
// for another).
Initializer get(const std::string& name);

}  // namespace eagle::initializers
