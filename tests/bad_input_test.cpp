// The bad-input audit (issue 5, docs/errors.md): the inputs of the public API that the module
// tests (ops_error_test, tensor_test, scope_test, device_name_test, device_config_test) do not
// already reach. Each gives a typed eagle::Error with an exact message, never a crash, undefined
// behaviour or a std:: exception, and what was made before it stays intact.
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <xtensor/xbuilder.hpp>

#include "eagle/eagle.hpp"
#include "eagle/xtensor.hpp"

namespace {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";

std::string host_oom(const std::string& shape, const std::string& type) {
  return "OOM when allocating tensor with shape" + shape + " and type " + type + " on " + kCpu0 +
         " by allocator cpu";
}

}  // namespace

#define CHECK_ERROR(expr, Type, text) CHECK_THROWS_MATCHES(expr, Type, Catch::Message(text))

// ---- eagle/ops.hpp: creation -------------------------------------------------------------------

TEST_CASE("constant: a number outside the integer dtype's range is refused", "[errors]") {
  // Before the check this was a float-to-int conversion out of range: undefined behaviour.
  CHECK_ERROR(eagle::constant(3e9, std::nullopt, DType::kInt32), eagle::InvalidArgumentError,
              "Cannot convert 3000000000 to EagerTensor of dtype int32");
  CHECK_ERROR(eagle::constant({1.0, -2147483649.0}, std::nullopt, DType::kInt32),
              eagle::InvalidArgumentError,
              "Cannot convert -2147483649 to EagerTensor of dtype int32");
  CHECK_ERROR(eagle::constant({2147483648.0}, Shape{1}, DType::kInt32), eagle::InvalidArgumentError,
              "Cannot convert 2147483648 to EagerTensor of dtype int32");
  CHECK_ERROR(eagle::constant({{0.0}, {9223372036854775808.0}}, DType::kInt64),
              eagle::InvalidArgumentError,
              "Cannot convert 9.223372036854776e+18 to EagerTensor of dtype int64");
  // A C++ number next to an int32 tensor becomes an int32 constant first.
  const Tensor i = eagle::constant({1, 2});
  CHECK_ERROR(i + 3e9, eagle::InvalidArgumentError,
              "Cannot convert 3000000000 to EagerTensor of dtype int32");
  CHECK_ERROR(-4294967296.0 * i, eagle::InvalidArgumentError,
              "Cannot convert -4294967296 to EagerTensor of dtype int32");
  // The bounds themselves fit.
  CHECK(eagle::constant({2147483647.0, -2147483648.0}, std::nullopt, DType::kInt32)
            .to_vector<int>() == std::vector<int>{2147483647, -2147483647 - 1});
  CHECK(eagle::constant(-9223372036854775808.0, std::nullopt, DType::kInt64).item<std::int64_t>() ==
        std::numeric_limits<std::int64_t>::min());
  CHECK(i.to_vector<int>() == std::vector<int>{1, 2});
}

TEST_CASE("constant_from_buffer: a null data pointer and a negative count", "[errors]") {
  CHECK_ERROR(eagle::constant_from_buffer(nullptr, 6, DType::kFloat32, Shape{2, 3}),
              eagle::InvalidArgumentError,
              "Eager constant of 6 values has no data (a null pointer)");
  // One value would fill the shape: still no value to fill it with.
  CHECK_ERROR(eagle::constant_from_buffer(nullptr, 1, DType::kInt64, Shape{4}),
              eagle::InvalidArgumentError,
              "Eager constant of 1 values has no data (a null pointer)");
  const float data[2] = {1, 2};
  CHECK_ERROR(eagle::constant_from_buffer(data, -1, DType::kFloat32, Shape{2}),
              eagle::InvalidArgumentError,
              "Eager constant of -1 values does not fit shape [2], which has 2 elements");
  // No values for no elements needs no data.
  CHECK(eagle::constant_from_buffer(nullptr, 0, DType::kFloat32, Shape{0, 3}).shape() ==
        Shape{0, 3});
  CHECK(eagle::constant_from_buffer(data, 2, DType::kFloat32, Shape{2}).to_vector<float>() ==
        std::vector<float>{1, 2});
}

TEST_CASE("tensors too large for memory are ResourceExhaustedError, whatever their byte count",
          "[errors]") {
  const Tensor kept = eagle::constant({1.0, 2.0, 3.0});
  // 2^62 float32 elements are 2^64 bytes: the byte count used to wrap around to 0, and the
  // kernel then wrote 2^62 values into nothing.
  const std::int64_t e62 = std::int64_t{1} << 62;
  CHECK_ERROR(eagle::zeros(Shape{e62}), eagle::ResourceExhaustedError,
              host_oom("[4611686018427387904]", "float"));
  CHECK_ERROR(eagle::ones(Shape{2, std::int64_t{1} << 60}, DType::kFloat64),
              eagle::ResourceExhaustedError, host_oom("[2,1152921504606846976]", "double"));
  CHECK_ERROR(eagle::fill(Shape{e62 / 2, 2}, 1.0, DType::kInt64), eagle::ResourceExhaustedError,
              host_oom("[2305843009213693952,2]", "int64"));
  CHECK_ERROR(eagle::random_uniform(Shape{e62}, 0, 1, DType::kFloat32, 1),
              eagle::ResourceExhaustedError, host_oom("[4611686018427387904]", "float"));
  CHECK_ERROR(eagle::zeros(Shape{std::numeric_limits<std::int64_t>::max()}, DType::kBool),
              eagle::ResourceExhaustedError, host_oom("[9223372036854775807]", "bool"));
  // One value filling a huge shape: the host buffer for it (2^42 float32 elements = 16 TiB, or
  // 2^64 bytes) cannot be had either. This threw std::bad_alloc or wrote past a wrapped buffer.
  const std::int64_t e42 = std::int64_t{1} << 42;
  CHECK_ERROR(eagle::constant(1.0f, Shape{e42}), eagle::ResourceExhaustedError,
              host_oom("[4398046511104]", "float"));
  CHECK_ERROR(eagle::constant(2, Shape{e62}), eagle::ResourceExhaustedError,
              host_oom("[4611686018427387904]", "int32"));
  CHECK_ERROR(eagle::constant({7.0}, Shape{2, e62 / 2}, DType::kFloat64),
              eagle::ResourceExhaustedError, host_oom("[2,2305843009213693952]", "double"));
  // An op whose output would be that large fails the same way.
  CHECK_ERROR(eagle::matmul(eagle::zeros({std::int64_t{1} << 31, 0}),
                            eagle::zeros({0, std::int64_t{1} << 31})),
              eagle::ResourceExhaustedError, host_oom("[2147483648,2147483648]", "float"));

  CHECK(kept.to_vector<float>() == std::vector<float>{1, 2, 3});
  CHECK((kept + kept).to_vector<float>() == std::vector<float>{2, 4, 6});
  CHECK(eagle::constant(5, Shape{3}).to_vector<int>() == std::vector<int>{5, 5, 5});
}

TEST_CASE("a DType value outside the enumerators is refused, not used as a table index",
          "[errors]") {
  const auto bad = static_cast<DType>(9);
  CHECK_ERROR(eagle::zeros({2}, bad), eagle::InvalidArgumentError,
              "DType value 9 is not a valid eagle::DType [Op:Fill]");
  CHECK_ERROR(eagle::range(0.0, 3.0, 1.0, bad), eagle::InvalidArgumentError,
              "DType value 9 is not a valid eagle::DType [Op:Range]");
  CHECK_ERROR(eagle::random_normal({2}, 0, 1, static_cast<DType>(200), 1),
              eagle::InvalidArgumentError,
              "DType value 200 is not a valid eagle::DType [Op:RandomStandardNormal]");
  CHECK_ERROR(eagle::constant({1.0}, std::nullopt, static_cast<DType>(8)),
              eagle::InvalidArgumentError, "DType value 8 is not a valid eagle::DType [Op:Const]");
  const Tensor x = eagle::constant({1.0, 2.0});
  CHECK_ERROR(eagle::cast(x, bad), eagle::InvalidArgumentError,
              "DType value 9 is not a valid eagle::DType [Op:Cast]");
  CHECK(eagle::cast(x, DType::kInt32).to_vector<int>() == std::vector<int>{1, 2});
}

// ---- eagle/shape.hpp --------------------------------------------------------------------------

TEST_CASE("Shape: every constructor and push_back check rank and dimensions", "[errors]") {
  CHECK_ERROR(Shape(std::vector<std::int64_t>(9, 1)), eagle::InvalidArgumentError,
              "Shape rank exceeds the maximum of 8 supported by eagle");
  CHECK_ERROR(Shape(std::vector<std::int64_t>{3, -2}), eagle::InvalidArgumentError,
              "Dimension 1 must be >= 0, got -2");
  CHECK_ERROR((Shape{-1}), eagle::InvalidArgumentError, "Dimension 0 must be >= 0, got -1");
  Shape s{1, 2, 3, 4, 5, 6, 7, 8};
  CHECK_ERROR(s.push_back(1), eagle::InvalidArgumentError,
              "Shape rank exceeds the maximum of 8 supported by eagle");
  Shape t{2};
  CHECK_ERROR(t.push_back(-7), eagle::InvalidArgumentError, "Dimension 1 must be >= 0, got -7");
  CHECK_ERROR(t.push_back(std::numeric_limits<std::int64_t>::max()), eagle::InvalidArgumentError,
              "Shape [2] with dimension 9223372036854775807 has more than 2^63-1 elements");
  // The failed calls left both shapes as they were.
  CHECK(s.rank() == 8);
  CHECK(s.num_elements() == 40320);
  CHECK(t == Shape{2});
}

// ---- eagle/format.hpp -------------------------------------------------------------------------

TEST_CASE("printing an undefined tensor: a placeholder, its values an error", "[errors]") {
  const Tensor u;
  // Printing describes the handle, as a debugger would; asking for values is an error.
  CHECK(eagle::to_string(u) == "eagle.Tensor(<undefined>)");
  std::ostringstream os;
  os << u;
  CHECK(os.str() == "eagle.Tensor(<undefined>)");
  CHECK(fmt::format("{}", u) == "eagle.Tensor(<undefined>)");
  CHECK_ERROR(eagle::format_values(u), eagle::InvalidArgumentError,
              "Use of an undefined eagle::Tensor");
}

// ---- eagle/xtensor.hpp ------------------------------------------------------------------------

TEST_CASE("from_xexpression: an expression of rank 9", "[errors]") {
  CHECK_ERROR(eagle::from_xexpression(xt::ones<float>({1, 1, 1, 1, 1, 1, 1, 1, 1})),
              eagle::InvalidArgumentError,
              "Shape rank exceeds the maximum of 8 supported by eagle");
  CHECK(eagle::from_xexpression(xt::ones<float>({1, 1, 1, 1, 1, 1, 1, 2})).num_elements() == 2);
}

// ---- eagle/scope.hpp --------------------------------------------------------------------------

TEST_CASE("with_device: a malformed spec throws before the function runs", "[errors]") {
  bool ran = false;
  CHECK_ERROR(eagle::with_device("/gpu:x",
                                 [&] {
                                   ran = true;
                                   return 0;
                                 }),
              eagle::InvalidArgumentError, "Malformed device specification '/gpu:x'");
  CHECK_FALSE(ran);
  CHECK(eagle::current_device_spec().empty());
  // An error inside the function leaves through the scope: the stack is as before.
  {
    auto outer = eagle::device("/CPU:0");
    CHECK_ERROR(
        eagle::with_device("/device:CPU:0", [] { return eagle::zeros({2}) + eagle::zeros({3}); }),
        eagle::InvalidArgumentError, "Incompatible shapes: [2] vs. [3] [Op:AddV2]");
    CHECK(eagle::current_device_spec() == kCpu0);
  }
  CHECK(eagle::current_device_spec().empty());
}

// ---- eagle/ops.hpp: shape ops ------------------------------------------------------------------

TEST_CASE("concat: dimensions of empty inputs whose sum passes int64", "[errors]") {
  // Without elements a tensor may have any dimension; the concatenated one used to overflow.
  const Tensor z = eagle::zeros({0, std::int64_t{1} << 62});
  CHECK_ERROR(eagle::concat({z, z}, 1), eagle::InvalidArgumentError,
              "ConcatOp : Dimension 1 of the output overflows int64: shape[0] = "
              "[0,4611686018427387904] vs. shape[1] = [0,4611686018427387904] [Op:ConcatV2]");
  CHECK(eagle::concat({z, eagle::zeros({0, 1})}, -1).shape() ==
        Shape{0, (std::int64_t{1} << 62) + 1});
}
