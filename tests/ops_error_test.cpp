// The errors that belong to no single op: converting C++ numbers next to tensors, undefined
// handles, reading values, error codes, recovery after an error. Each op's own errors (exact
// class and TensorFlow's text, ending in " [Op:<Name>]") are in its OpInfo entry
// (tests/op_info/, walked by op_info_test.cpp), which also checks that every op refuses an
// undefined tensor in each input position.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "eagle/errors.hpp"
#include "eagle/ops.hpp"
#include "eagle/xtensor.hpp"
#include "op_info/error_texts.hpp"

namespace {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;

using eagle_test::kFloatingTexts;
using eagle_test::not_allowed;

}  // namespace

#define CHECK_ERROR(expr, Type, text) CHECK_THROWS_MATCHES(expr, Type, Catch::Message(text))

// ---- Elementwise ----------------------------------------------------------------------------

TEST_CASE("tensor-scalar operators: a value the tensor's dtype cannot hold", "[ops][errors]") {
  const Tensor i = eagle::constant({1, 2});
  CHECK_ERROR(i + 1.5, eagle::InvalidArgumentError,
              "Cannot convert 1.5 to EagerTensor of dtype int32");
  CHECK_ERROR(0.5 * i, eagle::InvalidArgumentError,
              "Cannot convert 0.5 to EagerTensor of dtype int32");
  CHECK_ERROR(i < std::nan(""), eagle::InvalidArgumentError,
              "Cannot convert nan to EagerTensor of dtype int32");
  CHECK_ERROR(eagle::constant(std::vector<std::int64_t>{1}) - 1e19, eagle::InvalidArgumentError,
              "Cannot convert 1e+19 to EagerTensor of dtype int64");
}

TEST_CASE("an undefined tensor handle refuses every accessor", "[ops][errors]") {
  const Tensor u;
  // Accessors of an undefined handle: the same error type as an op input (docs/guide.md).
  const std::string text = "Use of an undefined eagle::Tensor";
  CHECK_FALSE(u.defined());
  CHECK_ERROR(u.dtype(), eagle::InvalidArgumentError, text);
  CHECK_ERROR(u.shape(), eagle::InvalidArgumentError, text);
  CHECK_ERROR(u.rank(), eagle::InvalidArgumentError, text);
  CHECK_ERROR(u.num_elements(), eagle::InvalidArgumentError, text);
  CHECK_ERROR(u.device(), eagle::InvalidArgumentError, text);
  CHECK_ERROR(u.to_vector<float>(), eagle::InvalidArgumentError, text);
  CHECK_ERROR(u.to_vector<bool>(), eagle::InvalidArgumentError, text);
  CHECK_ERROR(u.item<double>(), eagle::InvalidArgumentError, text);
  CHECK_ERROR(eagle::to_xarray<float>(u), eagle::InvalidArgumentError, text);
}

TEST_CASE("reading values: wrong element type, item() on several elements", "[ops][errors]") {
  const Tensor i = eagle::constant({1, 2});
  CHECK_ERROR(i.to_vector<float>(), eagle::InvalidArgumentError,
              "Cannot read a int32 tensor as float32");
  CHECK_ERROR(i.to_vector<std::int64_t>(), eagle::InvalidArgumentError,
              "Cannot read a int32 tensor as int64");
  CHECK_ERROR(eagle::constant({1.0}).to_vector<double>(), eagle::InvalidArgumentError,
              "Cannot read a float32 tensor as float64");
  CHECK_ERROR(eagle::constant({1.0}).to_vector<bool>(), eagle::InvalidArgumentError,
              "Cannot read a float32 tensor as bool");
  CHECK_ERROR(eagle::zeros({1}, DType::kBFloat16).to_vector<eagle::float16>(),
              eagle::InvalidArgumentError, "Cannot read a bfloat16 tensor as float16");
  CHECK_ERROR(eagle::constant(1.0).item<int>(), eagle::InvalidArgumentError,
              "Cannot read a float32 tensor as int32");
  CHECK_ERROR(eagle::constant(1).item<bool>(), eagle::InvalidArgumentError,
              "Cannot read a int32 tensor as bool");
  CHECK_ERROR(eagle::to_xarray<float>(i), eagle::InvalidArgumentError,
              "Cannot read a int32 tensor as float32");
  // The element type is checked before the element count.
  CHECK_ERROR(i.item<float>(), eagle::InvalidArgumentError,
              "Cannot read a int32 tensor as float32");

  CHECK_ERROR(i.item<int>(), eagle::InvalidArgumentError,
              "item() needs a tensor with exactly one element, got shape [2]");
  CHECK_ERROR(eagle::zeros({0}).item<float>(), eagle::InvalidArgumentError,
              "item() needs a tensor with exactly one element, got shape [0]");
  CHECK_ERROR(eagle::zeros({2, 3}, DType::kBool).item<bool>(), eagle::InvalidArgumentError,
              "item() needs a tensor with exactly one element, got shape [2,3]");
  // One element in any rank is fine.
  CHECK(eagle::constant(7, Shape{1, 1, 1}).item<int>() == 7);
  CHECK(eagle::constant(true, Shape{1}).item<bool>());
}

// ---- Error types and recovery -----------------------------------------------------------------

TEST_CASE("errors carry their code and derive from eagle::Error", "[ops][errors]") {
  const auto code_of = [](const std::function<void()>& fn) {
    try {
      fn();
    } catch (const eagle::Error& e) {
      return e.code();
    }
    FAIL("no eagle::Error thrown");
    return eagle::ErrorCode::kInternal;
  };
  CHECK(code_of([] { eagle::add(eagle::zeros({2}), eagle::zeros({3})); }) ==
        eagle::ErrorCode::kInvalidArgument);
  CHECK(code_of([] { eagle::exp(eagle::constant({1})); }) == eagle::ErrorCode::kInvalidArgument);
  CHECK(code_of([] { Tensor().shape(); }) == eagle::ErrorCode::kInvalidArgument);
  // what() is the message alone.
  try {
    eagle::softmax(eagle::constant(1.0));
    FAIL("no error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "logits must have >= 1 dimension, got shape [] [Op:Softmax]");
  }
}

TEST_CASE("after an error the inputs keep their values and the next op works", "[ops][errors]") {
  const Tensor x = eagle::constant({1.0, 2.0, 3.0});
  const Tensor y = eagle::constant({1.0, 2.0});
  const Tensor i = eagle::constant({2, 3});
  const Tensor b = eagle::constant({true, false});

  CHECK_THROWS_AS(eagle::add(x, y), eagle::InvalidArgumentError);
  CHECK_THROWS_AS(eagle::matmul(x, y), eagle::InvalidArgumentError);
  CHECK_THROWS_AS(eagle::reshape(x, {2, 2}), eagle::InvalidArgumentError);
  CHECK_THROWS_AS(eagle::concat({x, i}, 0), eagle::InvalidArgumentError);
  CHECK_THROWS_AS(eagle::exp(i), eagle::InvalidArgumentError);
  CHECK_THROWS_AS(eagle::pow(i, eagle::constant({1, -1})), eagle::InvalidArgumentError);
  CHECK_THROWS_AS(eagle::reduce_sum(b), eagle::InvalidArgumentError);
  CHECK_THROWS_AS(x.to_vector<int>(), eagle::InvalidArgumentError);

  CHECK(x.to_vector<float>() == std::vector<float>{1, 2, 3});
  CHECK(y.to_vector<float>() == std::vector<float>{1, 2});
  CHECK(i.to_vector<int>() == std::vector<int>{2, 3});
  CHECK(b.to_vector<bool>() == std::vector<bool>{true, false});
  CHECK(x.shape() == Shape{3});

  CHECK(eagle::add(x, x).to_vector<float>() == std::vector<float>{2, 4, 6});
  CHECK(eagle::exp(eagle::constant({0.0})).to_vector<float>() == std::vector<float>{1});
  CHECK(eagle::pow(i, eagle::constant({2, 1})).to_vector<int>() == std::vector<int>{4, 3});
  CHECK(eagle::reduce_sum(eagle::cast(b, DType::kInt32)).item<int>() == 1);
  CHECK(eagle::reshape(x, {3, 1}).shape() == Shape{3, 1});

  // The same failing call fails the same way again (no poisoned placement cache), and the
  // working dtype still works in between.
  for (int round = 0; round < 3; ++round) {
    CHECK_ERROR(eagle::exp(i), eagle::InvalidArgumentError,
                not_allowed("Exp", "int32", kFloatingTexts));
    CHECK(eagle::exp(eagle::cast(i, DType::kFloat64)).to_vector<double>() ==
          std::vector<double>{std::exp(2.0), std::exp(3.0)});
  }
}

TEST_CASE("shapes whose element count overflows int64 are refused", "[errors]") {
  const std::int64_t big = std::int64_t{1} << 32;
  CHECK_THROWS_MATCHES(eagle::zeros(eagle::Shape{big, big}), eagle::InvalidArgumentError,
                       Catch::Message("Shape [4294967296] with dimension 4294967296 has more "
                                      "than 2^63-1 elements"));
  // A zero dimension makes any other dimension harmless.
  CHECK(eagle::Shape{0, big, big}.num_elements() == 0);
}

TEST_CASE("integer random bounds within the dtype work", "[errors]") {
  const auto ok = eagle::random_uniform(eagle::Shape{64}, -5, 5, eagle::int32, 1).to_vector<int>();
  for (int v : ok) CHECK((v >= -5 && v < 5));
}

// Found by tests/fuzz/constant_fuzzer (the errors are in RandomUniform's OpInfo entry): the
// bounds closest to the top of int32 still work.
TEST_CASE("integer random bounds at the top of int32", "[errors]") {
  const auto top = eagle::random_uniform(eagle::Shape{64}, 2147483646, 2147483647, eagle::int32, 1)
                       .to_vector<int>();
  for (int v : top) CHECK(v == 2147483646);
}
