// Keras's initializers: fans, bounds, moments, seeds (the same values on every device).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "eagle/eagle.hpp"

namespace {

using eagle::Shape;
namespace init = eagle::initializers;

struct Moments {
  double mean, stddev, max_abs;
};

Moments moments(const eagle::Tensor& t) {
  const std::vector<float> v = t.to_vector<float>();
  double sum = 0, sq = 0, max_abs = 0;
  for (float x : v) {
    sum += x;
    max_abs = std::max(max_abs, std::fabs(static_cast<double>(x)));
  }
  const double mean = sum / static_cast<double>(v.size());
  for (float x : v) sq += (x - mean) * (x - mean);
  return {mean, std::sqrt(sq / static_cast<double>(v.size())), max_abs};
}

}  // namespace

TEST_CASE("truncated_normal: within two standard deviations, the truncated moments") {
  const auto t = eagle::truncated_normal({200000}, 1.0, 0.5, eagle::kFloat32, 3);
  const Moments m = moments(t);
  CHECK(m.mean == Approx(1.0).margin(0.005));
  CHECK(m.stddev == Approx(0.5 * 0.87962566103423978).epsilon(0.01));
  const auto v = t.to_vector<float>();
  for (float x : v) REQUIRE(std::fabs(x - 1.0f) < 1.0f + 1e-6f);
}

TEST_CASE("seeded values are the same on every device and at every call") {
  const auto he = init::he_normal(42);
  const auto cpu = eagle::with_device("/CPU:0", [&] { return he({3, 3, 8, 16}, eagle::kFloat32); });
  const auto gpu = eagle::with_device("/GPU:1", [&] { return he({3, 3, 8, 16}, eagle::kFloat32); });
  CHECK(gpu.device() == "/job:localhost/replica:0/task:0/device:GPU:1");
  CHECK(cpu.to_vector<float>() == gpu.to_vector<float>());
  CHECK(he({3, 3, 8, 16}, eagle::kFloat32).to_vector<float>() == cpu.to_vector<float>());
  const auto fresh = init::he_normal();
  CHECK(fresh({64}, eagle::kFloat32).to_vector<float>() !=
        fresh({64}, eagle::kFloat32).to_vector<float>());
}

TEST_CASE("Keras's fans and scales") {
  // Dense kernel [784, 256]: glorot_uniform within sqrt(6 / (784 + 256)).
  const double limit = std::sqrt(6.0 / (784 + 256));
  const Moments g = moments(init::glorot_uniform(1)({784, 256}, eagle::kFloat32));
  CHECK(g.max_abs <= limit);
  CHECK(g.max_abs > 0.99 * limit);
  CHECK(g.stddev == Approx(limit / std::sqrt(3.0)).epsilon(0.01));
  // Conv kernel [3, 3, 32, 64]: fan_in 288, he_normal stddev sqrt(2 / 288).
  const Moments h = moments(init::he_normal(2)({3, 3, 32, 64}, eagle::kFloat32));
  CHECK(h.stddev == Approx(std::sqrt(2.0 / 288)).epsilon(0.02));
  CHECK(h.max_abs < 2 * std::sqrt(2.0 / 288) / 0.87962566103423978);
  const Moments l = moments(init::lecun_normal(3)({400, 300}, eagle::kFloat32));
  CHECK(l.stddev == Approx(std::sqrt(1.0 / 400)).epsilon(0.02));
  const Moments hu = moments(init::he_uniform(4)({500, 10}, eagle::kFloat32));
  CHECK(hu.max_abs <= std::sqrt(6.0 / 500));
  const Moments gn = moments(init::glorot_normal(5)({300, 500}, eagle::kFloat32));
  CHECK(gn.stddev == Approx(std::sqrt(2.0 / 800)).epsilon(0.02));
  // Keras's defaults of the plain ones.
  const Moments rn = moments(init::random_normal()({100000}, eagle::kFloat32));
  CHECK(rn.stddev == Approx(0.05).epsilon(0.02));
  const Moments ru = moments(init::random_uniform()({100000}, eagle::kFloat32));
  CHECK(ru.max_abs <= 0.05);
  CHECK(init::constant(2.5)({2}, eagle::kFloat32).to_vector<float>() ==
        std::vector<float>{2.5f, 2.5f});
  CHECK(init::zeros()({2}, eagle::kInt32).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{0, 0});
  CHECK(init::get("ones")({1}, eagle::kFloat64).item<double>() == 1.0);
}

TEST_CASE("bad initializer arguments: Keras's texts") {
  CHECK_THROWS_MATCHES(init::get("glorot"), eagle::InvalidArgumentError,
                       Catch::Message("Could not interpret initializer identifier: 'glorot'"));
  CHECK_THROWS_AS(init::variance_scaling(-1.0), eagle::InvalidArgumentError);
  CHECK_THROWS_AS(init::variance_scaling(1.0, "fan_sideways"), eagle::InvalidArgumentError);
  CHECK_THROWS_AS(init::variance_scaling(1.0, "fan_in", "cauchy"), eagle::InvalidArgumentError);
  CHECK_THROWS_MATCHES(init::he_normal()({2}, eagle::kInt32), eagle::InvalidArgumentError,
                       Catch::Message("The VarianceScaling initializer only supports floating "
                                      "point dtypes, got int32"));
}
