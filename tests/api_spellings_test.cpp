// Every spelling a TensorFlow or libtorch user would type, in one translation unit: that this
// file compiles is half the test (also with clang++ and -Wconversion); each case then checks
// the dtype, shape and values it gives.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "eagle/eagle.hpp"

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;

#define CHECK_ERROR(expr, Type, text) CHECK_THROWS_MATCHES(expr, Type, Catch::Message(text))

namespace {

template <class T>
void check(const Tensor& t, DType dtype, const Shape& shape, const std::vector<T>& values) {
  REQUIRE(t.dtype() == dtype);
  REQUIRE(t.shape() == shape);
  CHECK(t.to_vector<T>() == values);
}

template <class T>
std::string streamed(const T& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

}  // namespace

TEST_CASE("the README example", "[api]") {
  auto a = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  auto b = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {3, 2});
  auto c = eagle::matmul(a, b);
  check<float>(c, eagle::kFloat32, {2, 2}, {22, 28, 49, 64});
  CHECK(fmt::format("{}", c) ==
        "eagle.Tensor(\n[[22. 28.]\n [49. 64.]], shape=(2, 2), dtype=float32, "
        "device=/job:localhost/replica:0/task:0/device:CPU:0)");
}

TEST_CASE("braced shapes wherever a shape is taken", "[api]") {
  check<float>(eagle::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3}), eagle::kFloat32, {2, 3},
               {1, 2, 3, 4, 5, 6});
  check<float>(eagle::constant(2.0, {2, 3}), eagle::kFloat32, {2, 3}, {2, 2, 2, 2, 2, 2});
  check<float>(eagle::constant(std::vector<float>{1, 2, 3, 4}, {2, 2}), eagle::kFloat32, {2, 2},
               {1, 2, 3, 4});
  check<double>(eagle::constant(std::vector<double>{1, 2}, {2, 1}), eagle::kFloat64, {2, 1},
                {1, 2});
  // Every other way to say "a shape" or "no shape".
  check<int>(eagle::constant({1, 2, 3, 4}, Shape{2, 2}), eagle::kInt32, {2, 2}, {1, 2, 3, 4});
  check<int>(eagle::constant({1, 2, 3, 4}, {{4, 1}}), eagle::kInt32, {4, 1}, {1, 2, 3, 4});
  check<int>(eagle::constant({1, 2}, {}), eagle::kInt32, {2}, {1, 2});
  check<int>(eagle::constant({1, 2}, std::nullopt), eagle::kInt32, {2}, {1, 2});
  check<int>(eagle::constant({1, 2}, std::optional<Shape>(Shape{1, 2})), eagle::kInt32, {1, 2},
             {1, 2});
  check<double>(eagle::constant({1, 2}, {}, eagle::kFloat64), eagle::kFloat64, {2}, {1, 2});
  check<double>(eagle::constant({1, 2}, {2, 1}, eagle::kFloat64), eagle::kFloat64, {2, 1}, {1, 2});
  check<float>(eagle::constant(7, {}, eagle::kFloat32), eagle::kFloat32, {}, {7});
  // Dimensions of any integral type, with no narrowing error or warning.
  const std::vector<int> v{1, 2};
  const std::size_t rows = v.size();
  const long cols = 3;
  check<float>(eagle::zeros({v.size(), 3}), eagle::kFloat32, {2, 3}, {0, 0, 0, 0, 0, 0});
  check<float>(eagle::ones({rows, cols}), eagle::kFloat32, {2, 3}, {1, 1, 1, 1, 1, 1});
  check<float>(eagle::fill({rows}, 5), eagle::kFloat32, {2}, {5, 5});
  check<int>(eagle::constant(1, {v.size()}), eagle::kInt32, {2}, {1, 1});
  CHECK(Shape{rows, 3u, std::int64_t{4}} == Shape{2, 3, 4});
  CHECK(eagle::random_uniform({rows, 2}).shape() == Shape{2, 2});
}

TEST_CASE("dtype inference follows tf.constant", "[api]") {
  // Floats -> float32, whatever mixes with them; integers -> int32; bool -> bool.
  check<float>(eagle::constant({0.5, 1}), eagle::kFloat32, {2}, {0.5, 1});
  check<float>(eagle::constant({1, 2.5f, 3.0}), eagle::kFloat32, {3}, {1, 2.5, 3});
  check<float>(eagle::constant(1.5), eagle::kFloat32, {}, {1.5});
  check<float>(eagle::constant(1.5f), eagle::kFloat32, {}, {1.5});
  check<int>(eagle::constant(3), eagle::kInt32, {}, {3});
  check<int>(eagle::constant({1, 2}), eagle::kInt32, {2}, {1, 2});
  check<bool>(eagle::constant({true, false}), eagle::kBool, {2}, {true, false});
  check<bool>(eagle::constant(true), eagle::kBool, {}, {true});
  // 64-bit and unsigned C++ types -> int64.
  check<std::int64_t>(eagle::constant(3LL), eagle::kInt64, {}, {3});
  check<std::int64_t>(eagle::constant(3L), eagle::kInt64, {}, {3});
  check<std::int64_t>(eagle::constant(3u), eagle::kInt64, {}, {3});
  const std::vector<float> v(5);
  check<std::int64_t>(eagle::constant(v.size()), eagle::kInt64, {}, {5});
  check<std::int64_t>(eagle::constant({1, 3000000000LL}), eagle::kInt64, {2}, {1, 3000000000});
  check<std::int64_t>(eagle::constant({1LL, 2u}), eagle::kInt64, {2}, {1, 2});
  check<std::int64_t>(eagle::constant(std::numeric_limits<std::uint64_t>::max() >> 1),
                      eagle::kInt64, {}, {std::numeric_limits<std::int64_t>::max()});
  // Half types keep their dtype when every value is one.
  check<eagle::float16>(eagle::constant(eagle::float16(2.f)), eagle::kFloat16, {},
                        {eagle::float16(2.f)});
  CHECK(eagle::constant({eagle::bfloat16(1.f), eagle::bfloat16(2.f)}).dtype() == eagle::kBFloat16);
  CHECK(eagle::constant({eagle::float16(1.f), 2.0}).dtype() == eagle::kFloat32);
  // Nesting gives the shape.
  check<int>(eagle::constant({{1, 2}, {3, 4}}), eagle::kInt32, {2, 2}, {1, 2, 3, 4});
  check<float>(eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}), eagle::kFloat32, {2, 3},
               {1, 2, 3, 4, 5, 6});
  check<int>(eagle::constant({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}), eagle::kInt32, {2, 2, 2},
             {1, 2, 3, 4, 5, 6, 7, 8});
  check<float>(eagle::constant({{0.5, 1}, {2, 3}}), eagle::kFloat32, {2, 2}, {0.5, 1, 2, 3});
  check<int>(eagle::constant({1}), eagle::kInt32, {1}, {1});
  check<int>(eagle::constant({{1}}), eagle::kInt32, {1, 1}, {1});
  check<float>(eagle::constant({}), eagle::kFloat32, {0}, {});
  // An explicit dtype wins; as a second argument or after the shape.
  check<double>(eagle::constant({{1, 2}}, eagle::kFloat64), eagle::kFloat64, {1, 2}, {1, 2});
  check<std::int64_t>(eagle::constant({1.0, 2.0}, {}, eagle::kInt64), eagle::kInt64, {2}, {1, 2});
  check<bool>(eagle::constant({0, 2}, std::nullopt, eagle::kBool), eagle::kBool, {2},
              {false, true});
  check<float>(eagle::constant({true, false}, {}, eagle::kFloat32), eagle::kFloat32, {2}, {1, 0});
  // Typed containers keep their type.
  check<std::int64_t>(eagle::constant(std::vector<long>{1, 2}), eagle::kInt64, {2}, {1, 2});
  check<bool>(eagle::constant(std::vector<bool>{true}), eagle::kBool, {1}, {true});
}

TEST_CASE("dtype inference refuses mixed, ragged and out-of-range lists", "[api][errors]") {
  CHECK_ERROR(eagle::constant({true, 1}), eagle::InvalidArgumentError,
              "Can't convert Python sequence with mixed types to Tensor. A list mixes bool with "
              "numbers.");
  CHECK_ERROR(eagle::constant({{true}, {0.5}}), eagle::InvalidArgumentError,
              "Can't convert Python sequence with mixed types to Tensor. A list mixes bool with "
              "numbers.");
  CHECK_ERROR(eagle::constant({{1, 2}, {3}}), eagle::InvalidArgumentError,
              "Can't convert non-rectangular Python sequence to Tensor. In a list, item 1 has "
              "shape (1,) but item 0 has shape (2,).");
  CHECK_ERROR(eagle::constant({{1, 2}, 3}), eagle::InvalidArgumentError,
              "Can't convert non-rectangular Python sequence to Tensor. In a list, item 1 has "
              "shape () but item 0 has shape (2,).");
  CHECK_ERROR(eagle::constant({{{1}, {2}}, {{3}, {4, 5}}}), eagle::InvalidArgumentError,
              "Can't convert non-rectangular Python sequence to Tensor. In a list, item 1 has "
              "shape (2,) but item 0 has shape (1,).");
  CHECK_ERROR(eagle::constant(std::numeric_limits<std::uint64_t>::max()),
              eagle::InvalidArgumentError,
              "Can't convert Python sequence with out-of-range integer to Tensor. "
              "18446744073709551615 does not fit int64.");
  CHECK_ERROR(eagle::constant({1.5}, {}, eagle::kInt32), eagle::InvalidArgumentError,
              "Cannot convert 1.5 to EagerTensor of dtype int32");
  CHECK_ERROR(eagle::constant(3000000000LL, {}, eagle::kInt32), eagle::InvalidArgumentError,
              "Cannot convert 3000000000 to EagerTensor of dtype int32");
  CHECK_ERROR(eagle::constant({1, 2, 3}, {2, 2}), eagle::InvalidArgumentError,
              "Eager constant of 3 values does not fit shape [2,2], which has 4 elements");
}

TEST_CASE("shapes, dtypes and device names print as TensorFlow prints them", "[api]") {
  const Tensor x = eagle::zeros({2, 3});
  CHECK(streamed(x.shape()) == "(2, 3)");
  CHECK(streamed(Shape{4}) == "(4,)");
  CHECK(streamed(Shape{}) == "()");
  CHECK(fmt::format("{}", x.shape()) == "(2, 3)");
  CHECK(fmt::format("{:>8}", Shape{1}) == "    (1,)");
  CHECK(streamed(x.dtype()) == "float32");
  CHECK(streamed(eagle::kBFloat16) == "bfloat16");
  CHECK(fmt::format("{}", eagle::kInt64) == "int64");
  const auto gpu = eagle::DeviceName::parse("/gpu:1");
  CHECK(streamed(gpu) == "/device:GPU:1");
  CHECK(fmt::format("{}", eagle::DeviceName::local("CPU", 0)) ==
        "/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST_CASE("compound assignment rebinds the handle", "[api]") {
  Tensor a = eagle::constant({1.0, 2.0});
  const Tensor before = a;
  a += eagle::constant({10.0, 20.0});
  check<float>(a, eagle::kFloat32, {2}, {11, 22});
  a -= 1;
  check<float>(a, eagle::kFloat32, {2}, {10, 21});
  a *= 2.0;
  check<float>(a, eagle::kFloat32, {2}, {20, 42});
  a /= eagle::constant(4.f);
  check<float>(a, eagle::kFloat32, {2}, {5, 10.5});
  // Tensors are immutable: the other handle still sees the old value.
  check<float>(before, eagle::kFloat32, {2}, {1, 2});
  Tensor i = eagle::constant({1, 2});
  i += 1u;
  check<int>(i, eagle::kInt32, {2}, {2, 3});
  // A loss accumulated in a loop.
  Tensor total = eagle::constant(0.f);
  for (int step = 1; step <= 3; ++step) total += eagle::constant(static_cast<float>(step));
  CHECK(total.item<float>() == 6);
}

TEST_CASE("scalar operators take float16 and bfloat16 values", "[api]") {
  const Tensor x = eagle::constant({1.0, 2.0});
  check<float>(x * eagle::float16(2.f), eagle::kFloat32, {2}, {2, 4});
  check<float>(eagle::bfloat16(1.f) + x, eagle::kFloat32, {2}, {2, 3});
  const Tensor h = eagle::constant({eagle::float16(1.f), eagle::float16(3.f)});
  check<eagle::float16>(h / eagle::float16(2.f), eagle::kFloat16, {2},
                        {eagle::float16(0.5f), eagle::float16(1.5f)});
  check<bool>(h > eagle::float16(2.f), eagle::kBool, {2}, {false, true});
  check<float>(x - 1, eagle::kFloat32, {2}, {0, 1});
  check<float>(2.0 * x, eagle::kFloat32, {2}, {2, 4});
}

TEST_CASE("indexing: t[i] drops axis 0, t[Slice{a, b}] keeps it", "[api]") {
  const Tensor m = eagle::constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
  check<int>(m[0], eagle::kInt32, {3}, {1, 2, 3});
  check<int>(m[2], eagle::kInt32, {3}, {7, 8, 9});
  check<int>(m[-1], eagle::kInt32, {3}, {7, 8, 9});
  check<int>(m[-3], eagle::kInt32, {3}, {1, 2, 3});
  check<int>(m[1][2], eagle::kInt32, {}, {6});
  CHECK(m[1][-1].item<int>() == 6);
  const std::size_t row = 1;
  check<int>(m[row], eagle::kInt32, {3}, {4, 5, 6});
  // Ranges with Python's rules.
  check<int>(m[eagle::Slice{0, 2}], eagle::kInt32, {2, 3}, {1, 2, 3, 4, 5, 6});
  check<int>(m[eagle::Slice{1}], eagle::kInt32, {2, 3}, {4, 5, 6, 7, 8, 9});
  check<int>(m[eagle::Slice{-1}], eagle::kInt32, {1, 3}, {7, 8, 9});
  check<int>(m[eagle::Slice{std::nullopt, -2}], eagle::kInt32, {1, 3}, {1, 2, 3});
  check<int>(m[eagle::Slice{-10, 10}], eagle::kInt32, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  check<int>(m[eagle::Slice{2, 1}], eagle::kInt32, {0, 3}, {});
  check<int>(m[eagle::Slice{5, 9}], eagle::kInt32, {0, 3}, {});
  check<int>(m[eagle::Slice{}], eagle::kInt32, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  check<int>(m[{1, 3}][0], eagle::kInt32, {3}, {4, 5, 6});
  check<int>(m[{std::nullopt, 1}], eagle::kInt32, {1, 3}, {1, 2, 3});
  // A vector indexes to scalars.
  const Tensor v = eagle::range(5);
  check<int>(v[4], eagle::kInt32, {}, {4});
  check<int>(v[eagle::Slice{1, 3}], eagle::kInt32, {2}, {1, 2});
}

TEST_CASE("indexing: steps, and several axes at once in torch::indexing's spelling", "[api]") {
  const Tensor m = eagle::constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
  // Python's m[::2], m[::-1], m[2:0:-1], m[-1::-2]
  check<int>(m[eagle::Slice(std::nullopt, std::nullopt, 2)], eagle::kInt32, {2, 3},
             {1, 2, 3, 7, 8, 9});
  check<int>(m[eagle::Slice(std::nullopt, std::nullopt, -1)], eagle::kInt32, {3, 3},
             {7, 8, 9, 4, 5, 6, 1, 2, 3});
  check<int>(m[eagle::Slice(2, 0, -1)], eagle::kInt32, {2, 3}, {7, 8, 9, 4, 5, 6});
  check<int>(m[eagle::Slice(-1, std::nullopt, -2)], eagle::kInt32, {2, 3}, {7, 8, 9, 1, 2, 3});
  // m[1, :], m[:, 1], m[..., ::-1], m[None, 0], m[0, ..., None]
  check<int>(m.index({1, eagle::Slice()}), eagle::kInt32, {3}, {4, 5, 6});
  check<int>(m.index({eagle::Slice(), 1}), eagle::kInt32, {3}, {2, 5, 8});
  check<int>(m.index({eagle::Ellipsis, eagle::Slice(std::nullopt, std::nullopt, -1)}),
             eagle::kInt32, {3, 3}, {3, 2, 1, 6, 5, 4, 9, 8, 7});
  check<int>(m.index({eagle::NewAxis, 0}), eagle::kInt32, {1, 3}, {1, 2, 3});
  check<int>(m.index({0, eagle::Ellipsis, eagle::NewAxis}), eagle::kInt32, {3, 1}, {1, 2, 3});
  const std::int64_t i = 2;
  check<int>(m.index({i, -1}), eagle::kInt32, {}, {9});
  {
    using namespace eagle::indexing;  // as `using namespace torch::indexing;`
    check<int>(m.index({Slice(1, None), Ellipsis}), eagle::kInt32, {2, 3}, {4, 5, 6, 7, 8, 9});
    check<int>(m.index({Slice(), NewAxis, Slice(None, 2)}), eagle::kInt32, {3, 1, 2},
               {1, 2, 4, 5, 7, 8});
  }
}

TEST_CASE("indexing errors are TensorFlow's", "[api][errors]") {
  const Tensor m = eagle::zeros({5, 2});
  CHECK_ERROR(m[5], eagle::InvalidArgumentError,
              "slice index 5 of dimension 0 out of bounds. [Op:StridedSlice]");
  // TensorFlow 2.21 reports a negative index after adding the dimension (-6 + 5).
  CHECK_ERROR(m[-6], eagle::InvalidArgumentError,
              "slice index -1 of dimension 0 out of bounds. [Op:StridedSlice]");
  CHECK_ERROR(eagle::constant(1.0)[0], eagle::InvalidArgumentError,
              "Attempting to slice scalar input. [Op:StridedSlice]");
  CHECK_ERROR((eagle::constant(1.0)[eagle::Slice{0, 1}]), eagle::InvalidArgumentError,
              "Attempting to slice scalar input. [Op:StridedSlice]");
  CHECK_ERROR(m[eagle::Slice(std::nullopt, std::nullopt, 0)], eagle::InvalidArgumentError,
              "strides[0] must be non-zero [Op:StridedSlice]");
  CHECK_ERROR(Tensor()[0], eagle::InvalidArgumentError, "Use of an undefined eagle::Tensor");
}

TEST_CASE("dtype constants in libtorch's and TensorFlow's spellings", "[api]") {
  STATIC_REQUIRE(eagle::kFloat32 == DType::kFloat32);
  STATIC_REQUIRE(eagle::kFloat64 == DType::kFloat64);
  STATIC_REQUIRE(eagle::kInt32 == DType::kInt32);
  STATIC_REQUIRE(eagle::kInt64 == DType::kInt64);
  STATIC_REQUIRE(eagle::kBool == DType::kBool);
  STATIC_REQUIRE(eagle::kFloat16 == DType::kFloat16);
  STATIC_REQUIRE(eagle::kBFloat16 == DType::kBFloat16);
  STATIC_REQUIRE(eagle::float32 == DType::kFloat32);
  STATIC_REQUIRE(eagle::int64 == DType::kInt64);
  check<float>(eagle::zeros({2}, eagle::float32), eagle::kFloat32, {2}, {0, 0});
  check<eagle::float16>(eagle::ones({1}, eagle::kFloat16), eagle::kFloat16, {1},
                        {eagle::float16(1.f)});
}

TEST_CASE("gradient options in the contract's spelling", "[api]") {
  const eagle::Tensor x = eagle::constant({1.0f, 2.0f});
  const eagle::Tensor unused = eagle::constant({5.0f, 6.0f, 7.0f});
  eagle::GradientTape tape({true});
  tape.watch(x);
  tape.watch(unused);
  const eagle::Tensor y = eagle::reduce_sum(x * x);
  tape.stop();
  const auto zero = tape.gradient(y, {x, unused}, {{}, eagle::Unconnected::kZero});
  CHECK(zero[0]->to_vector<float>() == std::vector<float>{2, 4});
  CHECK(zero[1]->to_vector<float>() == std::vector<float>{0, 0, 0});
  const auto none = tape.gradient(y, {unused}, {.unconnected = eagle::UnconnectedGradients::kNone});
  CHECK_FALSE(none[0].has_value());
}

TEST_CASE("reductions: {} is every axis, std::vector<int>{} none", "[api]") {
  const Tensor x = eagle::constant({{1, 2}, {3, 4}});
  check<int>(eagle::reduce_sum(x), eagle::kInt32, {}, {10});
  check<int>(eagle::reduce_sum(x, {}), eagle::kInt32, {}, {10});
  check<int>(eagle::reduce_sum(x, eagle::Axes::all()), eagle::kInt32, {}, {10});
  check<int>(eagle::reduce_sum(x, std::vector<int>{}), eagle::kInt32, {2, 2}, {1, 2, 3, 4});
  check<int>(eagle::reduce_sum(x, eagle::Axes::none()), eagle::kInt32, {2, 2}, {1, 2, 3, 4});
  check<int>(eagle::reduce_sum(x, 0), eagle::kInt32, {2}, {4, 6});
  check<int>(eagle::reduce_sum(x, {-1}, true), eagle::kInt32, {2, 1}, {3, 7});
  CHECK(eagle::Axes::all().reduces_all());
  CHECK_FALSE(eagle::Axes::none().reduces_all());
}

TEST_CASE("every TensorFlow error class, with TensorFlow's codes and names", "[api][errors]") {
  const auto check_error = [](const eagle::Error& e, eagle::ErrorCode code, int number,
                              const char* name) {
    CHECK(e.code() == code);
    CHECK(static_cast<int>(e.code()) == number);
    CHECK(eagle::error_code_name(e.code()) == name);
    CHECK(std::string(e.what()) == "text");
  };
  using eagle::ErrorCode;
  check_error(eagle::CancelledError("text"), ErrorCode::kCancelled, 1, "CANCELLED");
  check_error(eagle::UnknownError("text"), ErrorCode::kUnknown, 2, "UNKNOWN");
  check_error(eagle::InvalidArgumentError("text"), ErrorCode::kInvalidArgument, 3,
              "INVALID_ARGUMENT");
  check_error(eagle::DeadlineExceededError("text"), ErrorCode::kDeadlineExceeded, 4,
              "DEADLINE_EXCEEDED");
  check_error(eagle::NotFoundError("text"), ErrorCode::kNotFound, 5, "NOT_FOUND");
  check_error(eagle::AlreadyExistsError("text"), ErrorCode::kAlreadyExists, 6, "ALREADY_EXISTS");
  check_error(eagle::PermissionDeniedError("text"), ErrorCode::kPermissionDenied, 7,
              "PERMISSION_DENIED");
  check_error(eagle::ResourceExhaustedError("text"), ErrorCode::kResourceExhausted, 8,
              "RESOURCE_EXHAUSTED");
  check_error(eagle::FailedPreconditionError("text"), ErrorCode::kFailedPrecondition, 9,
              "FAILED_PRECONDITION");
  check_error(eagle::AbortedError("text"), ErrorCode::kAborted, 10, "ABORTED");
  check_error(eagle::OutOfRangeError("text"), ErrorCode::kOutOfRange, 11, "OUT_OF_RANGE");
  check_error(eagle::UnimplementedError("text"), ErrorCode::kUnimplemented, 12, "UNIMPLEMENTED");
  check_error(eagle::InternalError("text"), ErrorCode::kInternal, 13, "INTERNAL");
  check_error(eagle::UnavailableError("text"), ErrorCode::kUnavailable, 14, "UNAVAILABLE");
  check_error(eagle::DataLossError("text"), ErrorCode::kDataLoss, 15, "DATA_LOSS");
  CHECK(eagle::error_code_name(static_cast<ErrorCode>(99)) == "UNKNOWN");
  // Each is caught as itself, as eagle::Error and as std::runtime_error.
  CHECK_THROWS_AS(throw eagle::OutOfRangeError("end"), eagle::OutOfRangeError);
  CHECK_THROWS_AS(throw eagle::DataLossError("bad file"), eagle::Error);
  CHECK_THROWS_AS(throw eagle::AbortedError("retry"), std::runtime_error);
}

TEST_CASE("throw_error raises the class of a code, throw_like and throw_like_nested keep it",
          "[api][errors]") {
  using eagle::ErrorCode;
  // Every code to its own class, with the message.
  for (int number = 1; number <= 15; ++number) {
    const auto code = static_cast<ErrorCode>(number);
    try {
      eagle::throw_error(code, "text");
    } catch (const eagle::Error& e) {
      CHECK(e.code() == code);
      CHECK(std::string(e.what()) == "text");
    }
  }
  CHECK_THROWS_AS(eagle::throw_error(ErrorCode::kNotFound, "gone"), eagle::NotFoundError);
  CHECK_THROWS_AS(eagle::throw_error(static_cast<ErrorCode>(99), "?"), eagle::UnknownError);
  // RuntimeError shares FAILED_PRECONDITION's code but stays a RuntimeError.
  CHECK_THROWS_MATCHES(eagle::throw_like(eagle::RuntimeError("again"), "prefix: again"),
                       eagle::RuntimeError, Catch::Message("prefix: again"));
  CHECK_THROWS_AS(eagle::throw_like(eagle::ResourceExhaustedError("oom"), "in replica 1: oom"),
                  eagle::ResourceExhaustedError);
  // Nested: the original is still there for std::rethrow_if_nested.
  std::string inner;
  try {
    try {
      throw eagle::DataLossError("bad bytes");
    } catch (const eagle::Error& e) {
      eagle::throw_like_nested(e, std::string("worker 2: ") + e.what());
    }
  } catch (const eagle::DataLossError& e) {
    CHECK(std::string(e.what()) == "worker 2: bad bytes");
    try {
      std::rethrow_if_nested(e);
    } catch (const eagle::DataLossError& original) {
      inner = original.what();
    }
  }
  CHECK(inner == "bad bytes");
}

TEST_CASE("an undefined tensor is InvalidArgumentError in accessors and ops alike",
          "[api][errors]") {
  const Tensor u;
  CHECK_ERROR(u.shape(), eagle::InvalidArgumentError, "Use of an undefined eagle::Tensor");
  CHECK_ERROR(u.to_vector<float>(), eagle::InvalidArgumentError,
              "Use of an undefined eagle::Tensor");
  CHECK_ERROR(eagle::exp(u), eagle::InvalidArgumentError,
              "input #0 is an undefined tensor [Op:Exp]");
  Tensor a;
  CHECK_THROWS_AS(a += eagle::constant(1.f), eagle::InvalidArgumentError);
}
