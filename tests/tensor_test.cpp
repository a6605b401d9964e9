// Tensor handles, constants, dtypes, printing and xtensor interop.
#include <catch2/catch.hpp>

#include <xtensor/xarray.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>

#include "eagle/eagle.hpp"
#include "eagle/xtensor.hpp"

using eagle::DType;
using eagle::Shape;

namespace {
const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
}

TEST_CASE("constants infer TensorFlow's default dtypes") {
  CHECK(eagle::constant({1.0, 2.0}).dtype() == DType::kFloat32);  // C++ double literals
  CHECK(eagle::constant({1, 2}).dtype() == DType::kInt32);
  CHECK(eagle::constant({true, false}).dtype() == DType::kBool);
  CHECK(eagle::constant(2.5).dtype() == DType::kFloat32);
  CHECK(eagle::constant(7).dtype() == DType::kInt32);
  CHECK(eagle::constant(std::int64_t{7}).dtype() == DType::kInt64);
  // Typed containers keep their element type.
  CHECK(eagle::constant(std::vector<double>{1, 2}).dtype() == DType::kFloat64);
  CHECK(eagle::constant(std::vector<std::int64_t>{1, 2}).dtype() == DType::kInt64);
  CHECK(eagle::constant(std::vector<float>{1, 2}).dtype() == DType::kFloat32);
  CHECK(eagle::constant({1.0, 2.0}, {}, DType::kFloat64).dtype() == DType::kFloat64);
  CHECK(eagle::constant({1.0, 2.0}, {}, DType::kFloat16).to_vector<eagle::float16>()[1] ==
        eagle::float16(2.0f));
}

TEST_CASE("constants take a shape, a single value fills it, and a wrong count names both") {
  const auto t = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, Shape{2, 3});
  CHECK(t.shape() == Shape{2, 3});
  CHECK(t.rank() == 2);
  CHECK(t.num_elements() == 6);
  CHECK(t.device() == kCpu0);
  CHECK(eagle::constant(0.5, Shape{2, 2}).to_vector<float>() == std::vector<float>(4, 0.5f));
  CHECK(eagle::constant({{1.0, 2.0}, {3.0, 4.0}}).shape() == Shape{2, 2});
  CHECK_THROWS_MATCHES(eagle::constant({1.0, 2.0, 3.0}, Shape{2, 2}), eagle::InvalidArgumentError,
                       Catch::Message("Eager constant of 3 values does not fit shape [2,2], which "
                                      "has 4 elements"));
  CHECK_THROWS_MATCHES(eagle::constant({{1.0, 2.0}, {3.0}}), eagle::InvalidArgumentError,
                       Catch::Message("Can't convert non-rectangular Python sequence to Tensor. In "
                                      "a list, item 1 has shape (1,) but item 0 has shape (2,)."));
  CHECK_THROWS_AS(eagle::constant({1.5}, {}, DType::kInt32), eagle::InvalidArgumentError);
  CHECK(eagle::constant(std::vector<float>{}, Shape{0, 3}).shape() == Shape{0, 3});
}

TEST_CASE("rank-0 tensors and item()") {
  const auto s = eagle::constant(3.5);
  CHECK(s.rank() == 0);
  CHECK(s.num_elements() == 1);
  CHECK(s.item<float>() == 3.5f);
  CHECK(eagle::constant(true).item<bool>());
  CHECK_THROWS_MATCHES(eagle::constant({1.0, 2.0}).item<float>(), eagle::InvalidArgumentError,
                       Catch::Message("item() needs a tensor with exactly one element, got shape "
                                      "[2]"));
  CHECK_THROWS_MATCHES(s.item<double>(), eagle::InvalidArgumentError,
                       Catch::Message("Cannot read a float32 tensor as float64"));
}

TEST_CASE("handles are cheap copies of immutable storage") {
  const auto a = eagle::constant({1.0, 2.0});
  const eagle::Tensor b = a;  // NOLINT: the copy is the point
  CHECK(a.id() == b.id());
  const auto r = eagle::reshape(a, {2, 1});  // shares bytes, new shape
  CHECK(r.to_vector<float>() == a.to_vector<float>());
  CHECK(a.shape() == Shape{2});
}

TEST_CASE("an undefined tensor is an error, not a crash") {
  const eagle::Tensor t;
  CHECK_FALSE(t.defined());
  CHECK_THROWS_MATCHES(t.dtype(), eagle::InvalidArgumentError,
                       Catch::Message("Use of an undefined eagle::Tensor"));
  CHECK_THROWS_AS(t.to_vector<float>(), eagle::InvalidArgumentError);
  CHECK(fmt::format("{}", t) == "eagle.Tensor(<undefined>)");
}

TEST_CASE("printing follows TensorFlow's layout with the device") {
  const auto a = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, Shape{2, 3});
  const auto b = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, Shape{3, 2});
  CHECK(fmt::format("{}", eagle::matmul(a, b)) ==
        "eagle.Tensor(\n[[22. 28.]\n [49. 64.]], shape=(2, 2), dtype=float32, device=" + kCpu0 +
            ")");
  CHECK(fmt::format("{}", eagle::constant({2.0, 4.0, 6.0})) ==
        "eagle.Tensor([2. 4. 6.], shape=(3,), dtype=float32, device=" + kCpu0 + ")");
  CHECK(fmt::format("{}", eagle::constant({1, 2, 3})) ==
        "eagle.Tensor([1 2 3], shape=(3,), dtype=int32, device=" + kCpu0 + ")");
  CHECK(fmt::format("{}", eagle::constant({true, false})) ==
        "eagle.Tensor([ True False], shape=(2,), dtype=bool, device=" + kCpu0 + ")");
  CHECK(fmt::format("{}", eagle::constant(3.5)) ==
        "eagle.Tensor(3.5, shape=(), dtype=float32, device=" + kCpu0 + ")");
  const std::string long_tensor = fmt::format("{}", eagle::range(2000));
  CHECK(long_tensor ==
        "eagle.Tensor([   0    1    2 ... 1997 1998 1999], shape=(2000,), dtype=int32, device=" +
            kCpu0 + ")");
  std::ostringstream os;
  os << eagle::constant({1, 2});
  CHECK(os.str() == "eagle.Tensor([1 2], shape=(2,), dtype=int32, device=" + kCpu0 + ")");
}

TEST_CASE("float16 and bfloat16 are stored, cast and printed") {
  const auto h = eagle::cast(eagle::constant({1.0, 0.1, 65504.0}), DType::kFloat16);
  CHECK(h.dtype() == DType::kFloat16);
  CHECK(eagle::cast(h, DType::kFloat32).to_vector<float>() ==
        std::vector<float>{1.0f, 0.0999755859375f, 65504.0f});
  const auto b = eagle::cast(eagle::constant({1.0, 3.0}), DType::kBFloat16);
  CHECK(b.dtype() == DType::kBFloat16);
  CHECK(fmt::format("{}", b + b).find("dtype=bfloat16") != std::string::npos);
  CHECK(eagle::cast(b + b, DType::kFloat32).to_vector<float>() == std::vector<float>{2, 6});
}

TEST_CASE("xtensor interop in both directions") {
  const xt::xarray<double> x = {{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}};
  const auto t = eagle::from_xexpression(x * 2.0);
  CHECK(t.dtype() == DType::kFloat64);
  CHECK(t.shape() == Shape{2, 3});
  const auto back = eagle::to_xarray<double>(eagle::reduce_sum(t, 0));
  CHECK(back == xt::xarray<double>{10.0, 14.0, 18.0});
  const auto ints = eagle::to_xarray<std::int32_t>(eagle::range(6));
  CHECK(ints == xt::arange<std::int32_t>(6));
}

TEST_CASE("random numbers depend only on the seed and the element index") {
  const auto a = eagle::random_uniform(Shape{1000}, 0, 1, DType::kFloat32, 42).to_vector<float>();
  const auto b = eagle::random_uniform(Shape{10, 100}, 0, 1, DType::kFloat32, 42);
  CHECK(a == b.to_vector<float>());
  const auto prefix = eagle::random_uniform(Shape{7}, 0, 1, DType::kFloat32, 42).to_vector<float>();
  CHECK(std::equal(prefix.begin(), prefix.end(), a.begin()));
  const auto other_seed =
      eagle::random_uniform(Shape{4}, 0, 1, DType::kFloat32, 43).to_vector<float>();
  CHECK_FALSE(std::equal(other_seed.begin(), other_seed.end(), a.begin()));
  // Unseeded calls draw fresh seeds.
  CHECK(eagle::random_normal(Shape{8}).to_vector<float>() !=
        eagle::random_normal(Shape{8}).to_vector<float>());
}

TEST_CASE("host out of memory is a catchable error and everything else survives") {
  const auto kept = eagle::constant({1.0, 2.0, 3.0});
  // 2^42 float32 elements = 16 TiB: no machine this runs on can back it.
  const std::int64_t huge = std::int64_t{1} << 42;
  CHECK_THROWS_MATCHES(eagle::zeros(Shape{huge}), eagle::ResourceExhaustedError,
                       Catch::Message("OOM when allocating tensor with shape[4398046511104] and "
                                      "type float on " +
                                      kCpu0 + " by allocator cpu"));
  CHECK(kept.to_vector<float>() == std::vector<float>{1, 2, 3});
  CHECK((kept + kept).to_vector<float>() == std::vector<float>{2, 4, 6});
}
