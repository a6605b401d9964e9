// Every error the ops of eagle/ops.hpp raise: the exact exception type and the full message text
// (TensorFlow's, ending in " [Op:<Name>]" where an op raises it), and that nothing is broken
// afterwards: the inputs keep their values and the next op works.
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

namespace {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// TensorFlow's InvalidArgumentError for a dtype the op's definition does not allow (`dtype` in
// TensorFlow's runtime spelling: float, double, half, int32, bool).
std::string not_allowed(const std::string& op, const std::string& dtype,
                        const std::string& allowed) {
  return "Value for attr 'T' of " + dtype + " is not in the list of allowed values: " + allowed +
         " [Op:" + op + "]";
}
const std::string kFloating = "bfloat16, half, float, double";
const std::string kNumeric = "bfloat16, half, float, double, int32, int64";
// TensorFlow's `numbertypes` order (reductions, Relu, AddN) and Softmax's own.
const std::string kNumberTypes = "float, double, int32, int64, bfloat16, half";
const std::string kSoftmaxTypes = "half, bfloat16, float, double";

std::string undefined_input(int index, const std::string& op) {
  return "input #" + std::to_string(index) + " is an undefined tensor [Op:" + op + "]";
}

using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;
using Unary = std::function<Tensor(const Tensor&)>;

// Every elementwise binary op with its TensorFlow name.
const std::vector<std::tuple<std::string, Binary>>& binary_ops() {
  static const std::vector<std::tuple<std::string, Binary>> ops{
      {"AddV2", [](const Tensor& x, const Tensor& y) { return eagle::add(x, y); }},
      {"Sub", [](const Tensor& x, const Tensor& y) { return eagle::subtract(x, y); }},
      {"Mul", [](const Tensor& x, const Tensor& y) { return eagle::multiply(x, y); }},
      {"RealDiv", [](const Tensor& x, const Tensor& y) { return eagle::divide(x, y); }},
      {"Maximum", [](const Tensor& x, const Tensor& y) { return eagle::maximum(x, y); }},
      {"Minimum", [](const Tensor& x, const Tensor& y) { return eagle::minimum(x, y); }},
      {"Pow", [](const Tensor& x, const Tensor& y) { return eagle::pow(x, y); }},
      {"Equal", [](const Tensor& x, const Tensor& y) { return eagle::equal(x, y); }},
      {"NotEqual", [](const Tensor& x, const Tensor& y) { return eagle::not_equal(x, y); }},
      {"Less", [](const Tensor& x, const Tensor& y) { return eagle::less(x, y); }},
      {"LessEqual", [](const Tensor& x, const Tensor& y) { return eagle::less_equal(x, y); }},
      {"Greater", [](const Tensor& x, const Tensor& y) { return eagle::greater(x, y); }},
      {"GreaterEqual", [](const Tensor& x, const Tensor& y) { return eagle::greater_equal(x, y); }},
  };
  return ops;
}

}  // namespace

#define CHECK_ERROR(expr, Type, text) CHECK_THROWS_MATCHES(expr, Type, Catch::Message(text))

// ---- Elementwise ----------------------------------------------------------------------------

TEST_CASE("binary ops: incompatible shapes", "[ops][errors]") {
  for (const auto& [name, op] : binary_ops()) {
    INFO(name);
    const std::string suffix = " [Op:" + name + "]";
    CHECK_ERROR(op(eagle::zeros({2, 3}), eagle::zeros({4})), eagle::InvalidArgumentError,
                "Incompatible shapes: [2,3] vs. [4]" + suffix);
    CHECK_ERROR(op(eagle::zeros({3, 2}), eagle::zeros({2, 3})), eagle::InvalidArgumentError,
                "Incompatible shapes: [3,2] vs. [2,3]" + suffix);
    CHECK_ERROR(op(eagle::zeros({0}), eagle::zeros({2})), eagle::InvalidArgumentError,
                "Incompatible shapes: [0] vs. [2]" + suffix);
    CHECK_ERROR(op(eagle::zeros({2, 1, 3}), eagle::zeros({4, 2})), eagle::InvalidArgumentError,
                "Incompatible shapes: [2,1,3] vs. [4,2]" + suffix);
  }
  // Integer division casts first; the shapes are still checked under RealDiv's name.
  CHECK_ERROR(eagle::divide(eagle::constant({1, 2}), eagle::constant({1, 2, 3})),
              eagle::InvalidArgumentError, "Incompatible shapes: [2] vs. [3] [Op:RealDiv]");
  // Operators, tensor-scalar forms included.
  CHECK_ERROR(eagle::zeros({2}) + eagle::zeros({3}), eagle::InvalidArgumentError,
              "Incompatible shapes: [2] vs. [3] [Op:AddV2]");
  CHECK_ERROR(eagle::zeros({2}) < eagle::zeros({3}), eagle::InvalidArgumentError,
              "Incompatible shapes: [2] vs. [3] [Op:Less]");
  CHECK_ERROR(-eagle::zeros({2}) * eagle::zeros({3, 1, 5}), eagle::InvalidArgumentError,
              "Incompatible shapes: [2] vs. [3,1,5] [Op:Mul]");
}

TEST_CASE("binary ops: mismatched dtypes", "[ops][errors]") {
  for (const auto& [name, op] : binary_ops()) {
    INFO(name);
    const std::string head =
        "cannot compute " + name + " as input #1(zero-based) was expected to be a ";
    const std::string suffix = " [Op:" + name + "]";
    CHECK_ERROR(op(eagle::zeros({2}), eagle::zeros({2}, DType::kInt32)),
                eagle::InvalidArgumentError, head + "float tensor but is a int32 tensor" + suffix);
    CHECK_ERROR(op(eagle::zeros({2}, DType::kFloat64), eagle::zeros({2}, DType::kFloat16)),
                eagle::InvalidArgumentError, head + "double tensor but is a half tensor" + suffix);
    CHECK_ERROR(op(eagle::zeros({2}, DType::kInt64), eagle::zeros({2}, DType::kBFloat16)),
                eagle::InvalidArgumentError,
                head + "int64 tensor but is a bfloat16 tensor" + suffix);
    CHECK_ERROR(op(eagle::zeros({2}, DType::kBool), eagle::zeros({2}, DType::kInt32)),
                eagle::InvalidArgumentError, head + "bool tensor but is a int32 tensor" + suffix);
    // The dtype check comes before the shape check.
    CHECK_ERROR(op(eagle::zeros({2, 3}), eagle::zeros({4}, DType::kFloat64)),
                eagle::InvalidArgumentError, head + "float tensor but is a double tensor" + suffix);
  }
}

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
  // A number next to a bool tensor becomes a bool, and bool has no arithmetic.
  CHECK_ERROR(eagle::constant({true}) + 1, eagle::InvalidArgumentError,
              not_allowed("AddV2", "bool", kNumeric));
}

TEST_CASE("ops whose definition does not allow the dtype: InvalidArgumentError", "[ops][errors]") {
  const Tensor i32 = eagle::constant({1, 2});
  const Tensor i64 = eagle::constant(std::vector<std::int64_t>{1, 2});
  const Tensor b = eagle::constant({true, false});
  const Tensor b2 = eagle::constant({true, false, true, false}, Shape{2, 2});

  // Floating-only unary ops.
  CHECK_ERROR(eagle::exp(i32), eagle::InvalidArgumentError, not_allowed("Exp", "int32", kFloating));
  CHECK_ERROR(eagle::exp(b), eagle::InvalidArgumentError, not_allowed("Exp", "bool", kFloating));
  CHECK_ERROR(eagle::log(i64), eagle::InvalidArgumentError, not_allowed("Log", "int64", kFloating));
  CHECK_ERROR(eagle::sqrt(b), eagle::InvalidArgumentError, not_allowed("Sqrt", "bool", kFloating));
  CHECK_ERROR(eagle::sqrt(i32), eagle::InvalidArgumentError,
              not_allowed("Sqrt", "int32", kFloating));
  CHECK_ERROR(eagle::sigmoid(i32), eagle::InvalidArgumentError,
              not_allowed("Sigmoid", "int32", kFloating));
  CHECK_ERROR(eagle::tanh(i64), eagle::InvalidArgumentError,
              not_allowed("Tanh", "int64", kFloating));
  CHECK_ERROR(eagle::softmax(i32), eagle::InvalidArgumentError,
              not_allowed("Softmax", "int32", kSoftmaxTypes));
  // bool has no arithmetic.
  CHECK_ERROR(eagle::negative(b), eagle::InvalidArgumentError,
              not_allowed("Neg", "bool", kNumeric));
  CHECK_ERROR(-b, eagle::InvalidArgumentError, not_allowed("Neg", "bool", kNumeric));
  CHECK_ERROR(eagle::abs(b), eagle::InvalidArgumentError, not_allowed("Abs", "bool", kNumeric));
  CHECK_ERROR(eagle::square(b), eagle::InvalidArgumentError,
              not_allowed("Square", "bool", kNumeric));
  CHECK_ERROR(eagle::relu(b), eagle::InvalidArgumentError,
              not_allowed("Relu", "bool", kNumberTypes));
  CHECK_ERROR(eagle::add(b, b), eagle::InvalidArgumentError,
              not_allowed("AddV2", "bool", kNumeric));
  CHECK_ERROR(eagle::subtract(b, b), eagle::InvalidArgumentError,
              not_allowed("Sub", "bool", kNumeric));
  CHECK_ERROR(b * b, eagle::InvalidArgumentError, not_allowed("Mul", "bool", kNumeric));
  CHECK_ERROR(eagle::divide(b, b), eagle::InvalidArgumentError,
              not_allowed("RealDiv", "bool", kFloating));
  CHECK_ERROR(eagle::maximum(b, b), eagle::InvalidArgumentError,
              not_allowed("Maximum", "bool", kNumeric));
  CHECK_ERROR(eagle::minimum(b, b), eagle::InvalidArgumentError,
              not_allowed("Minimum", "bool", kNumeric));
  CHECK_ERROR(eagle::pow(b, b), eagle::InvalidArgumentError, not_allowed("Pow", "bool", kNumeric));
  CHECK_ERROR(b < b, eagle::InvalidArgumentError, not_allowed("Less", "bool", kNumeric));
  CHECK_ERROR(b <= b, eagle::InvalidArgumentError, not_allowed("LessEqual", "bool", kNumeric));
  CHECK_ERROR(b > b, eagle::InvalidArgumentError, not_allowed("Greater", "bool", kNumeric));
  CHECK_ERROR(b >= b, eagle::InvalidArgumentError, not_allowed("GreaterEqual", "bool", kNumeric));
  CHECK_ERROR(eagle::reduce_sum(b), eagle::InvalidArgumentError,
              not_allowed("Sum", "bool", kNumberTypes));
  CHECK_ERROR(eagle::reduce_mean(b), eagle::InvalidArgumentError,
              not_allowed("Mean", "bool", kNumberTypes));
  CHECK_ERROR(eagle::reduce_max(b, 0), eagle::InvalidArgumentError,
              not_allowed("Max", "bool", kNumberTypes));
  CHECK_ERROR(eagle::reduce_min(b), eagle::InvalidArgumentError,
              not_allowed("Min", "bool", kNumberTypes));
  CHECK_ERROR(eagle::matmul(b2, b2), eagle::InvalidArgumentError,
              not_allowed("MatMul", "bool", kNumeric));
  CHECK_ERROR(eagle::matmul(eagle::reshape(b2, {1, 2, 2}), b2), eagle::InvalidArgumentError,
              not_allowed("BatchMatMulV2", "bool", kNumeric));
  CHECK_ERROR(eagle::add_n({b, b}), eagle::InvalidArgumentError,
              not_allowed("AddN", "bool", kNumberTypes));
  // Creation ops.
  CHECK_ERROR(eagle::range(0.0, 3.0, 1.0, DType::kBool), eagle::InvalidArgumentError,
              not_allowed("Range", "bool", kNumeric));
  CHECK_ERROR(eagle::random_uniform({2}, 0, 1, DType::kBool, 1), eagle::InvalidArgumentError,
              not_allowed("RandomUniform", "bool", kNumeric));
  CHECK_ERROR(eagle::random_normal({2}, 0, 1, DType::kInt32, 1), eagle::InvalidArgumentError,
              not_allowed("RandomStandardNormal", "int32", kFloating));
  CHECK_ERROR(eagle::random_normal({2}, 0, 1, DType::kBool), eagle::InvalidArgumentError,
              not_allowed("RandomStandardNormal", "bool", kFloating));
}

TEST_CASE("integer pow with a negative exponent", "[ops][errors]") {
  const std::string text = "Integers to negative integer powers are not allowed [Op:Pow]";
  CHECK_ERROR(eagle::pow(eagle::constant({2, 3}), eagle::constant({1, -1})),
              eagle::InvalidArgumentError, text);
  CHECK_ERROR(eagle::pow(eagle::constant({1, 1}), eagle::constant(-2)), eagle::InvalidArgumentError,
              text);
  CHECK_ERROR(eagle::pow(eagle::constant(std::vector<std::int64_t>{4}),
                         eagle::constant(std::vector<std::int64_t>{-3})),
              eagle::InvalidArgumentError, text);
  // Floating pow accepts negative exponents.
  CHECK(eagle::pow(eagle::constant(2.0), eagle::constant(-1.0)).item<float>() == 0.5f);
}

// ---- Reductions -----------------------------------------------------------------------------

TEST_CASE("reductions: bad and duplicate axes", "[ops][errors]") {
  const Tensor x = eagle::zeros({2, 3});
  CHECK_ERROR(eagle::reduce_sum(x, 2), eagle::InvalidArgumentError,
              "Invalid reduction dimension (2 for input with 2 dimension(s) [Op:Sum]");
  CHECK_ERROR(eagle::reduce_mean(x, -3), eagle::InvalidArgumentError,
              "Invalid reduction dimension (-3 for input with 2 dimension(s) [Op:Mean]");
  CHECK_ERROR(eagle::reduce_max(x, {0, 5}), eagle::InvalidArgumentError,
              "Invalid reduction dimension (5 for input with 2 dimension(s) [Op:Max]");
  CHECK_ERROR(eagle::reduce_min(eagle::constant(1.0), 0), eagle::InvalidArgumentError,
              "Invalid reduction dimension (0 for input with 0 dimension(s) [Op:Min]");
  CHECK_ERROR(eagle::reduce_sum(x, {0, 0}), eagle::InvalidArgumentError,
              "Invalid reduction arguments: Axes contains duplicate dimension: 0 [Op:Sum]");
  CHECK_ERROR(eagle::reduce_sum(x, {1, -1}, true), eagle::InvalidArgumentError,
              "Invalid reduction arguments: Axes contains duplicate dimension: 1 [Op:Sum]");
  CHECK_ERROR(eagle::reduce_mean(x, {-2, 1, 0}), eagle::InvalidArgumentError,
              "Invalid reduction arguments: Axes contains duplicate dimension: 0 [Op:Mean]");
  CHECK_ERROR(eagle::reduce_max(x, std::vector<int>{1, 1}), eagle::InvalidArgumentError,
              "Invalid reduction arguments: Axes contains duplicate dimension: 1 [Op:Max]");
}

TEST_CASE("argmax: bad axis and empty axis", "[ops][errors]") {
  const Tensor x = eagle::zeros({2, 3});
  CHECK_ERROR(eagle::argmax(x, 2), eagle::InvalidArgumentError,
              "Expected dimension in the range [-2, 2), but got 2 [Op:ArgMax]");
  CHECK_ERROR(eagle::argmax(x, -3), eagle::InvalidArgumentError,
              "Expected dimension in the range [-2, 2), but got -3 [Op:ArgMax]");
  CHECK_ERROR(eagle::argmax(eagle::constant(1.0)), eagle::InvalidArgumentError,
              "Expected dimension in the range [0, 0), but got 0 [Op:ArgMax]");
  CHECK_ERROR(eagle::argmax(eagle::zeros({2, 0}), 1), eagle::InvalidArgumentError,
              "Reduction axis 1 is empty in shape [2,0] [Op:ArgMax]");
  CHECK_ERROR(eagle::argmax(eagle::zeros({0}), -1), eagle::InvalidArgumentError,
              "Reduction axis 0 is empty in shape [0] [Op:ArgMax]");
}

// ---- Shape ops ------------------------------------------------------------------------------

TEST_CASE("reshape errors", "[ops][errors]") {
  const Tensor x = eagle::zeros({2, 3});
  CHECK_ERROR(eagle::reshape(x, {-1, -1}), eagle::InvalidArgumentError,
              "Only one input size may be -1, not both 0 and 1 [Op:Reshape]");
  CHECK_ERROR(eagle::reshape(x, {2, -2}), eagle::InvalidArgumentError,
              "Size 1 must be non-negative, not -2 [Op:Reshape]");
  CHECK_ERROR(eagle::reshape(x, {4}), eagle::InvalidArgumentError,
              "Input to reshape is a tensor with 6 values, but the requested shape has 4 "
              "[Op:Reshape]");
  CHECK_ERROR(eagle::reshape(x, {}), eagle::InvalidArgumentError,
              "Input to reshape is a tensor with 6 values, but the requested shape has 1 "
              "[Op:Reshape]");
  CHECK_ERROR(eagle::reshape(eagle::zeros({0, 3}), {1}), eagle::InvalidArgumentError,
              "Input to reshape is a tensor with 0 values, but the requested shape has 1 "
              "[Op:Reshape]");
  CHECK_ERROR(eagle::reshape(x, {4, -1}), eagle::InvalidArgumentError,
              "Input to reshape is a tensor with 6 values, but the requested shape requires a "
              "multiple of 4 [Op:Reshape]");
  // TensorFlow infers -1 from the nonzero sizes when the shapes hold zeros.
  CHECK(eagle::reshape(eagle::zeros({0, 3}), {0, -1}).shape() == Shape{0, 3});
  CHECK(eagle::reshape(eagle::zeros({0, 3}), {-1, 0}).shape() == Shape{3, 0});
  CHECK(eagle::reshape(eagle::zeros({2, 0}), {-1}).shape() == Shape{0});
  CHECK(eagle::reshape(eagle::zeros({0}), {-1, 5}).shape() == Shape{0, 5});
  CHECK_ERROR(eagle::reshape(eagle::ones({1}), {1, 1, 1, 1, 1, 1, 1, 1, 1}),
              eagle::InvalidArgumentError, "Shape rank exceeds the maximum of 8 [Op:Reshape]");
  // A requested shape whose element count overflows int64 (here it would wrap around to 6).
  CHECK_ERROR(eagle::reshape(x, {6, 4294967297, 4294967295, 4294967297, 4294967295}),
              eagle::InvalidArgumentError,
              "Encountered overflow when multiplying 25769803782 with 4294967295, result: -1 "
              "[Op:Reshape]");
  CHECK_ERROR(eagle::reshape(x, {-1, std::int64_t{1} << 62, 4}), eagle::InvalidArgumentError,
              "Encountered overflow when multiplying 4611686018427387904 with 4, result: -1 "
              "[Op:Reshape]");
}

TEST_CASE("transpose: not a permutation", "[ops][errors]") {
  const Tensor x = eagle::zeros({2, 3});
  CHECK_ERROR(eagle::transpose(x, {0, 0}), eagle::InvalidArgumentError,
              "1 is missing from {0,0}. [Op:Transpose]");
  CHECK_ERROR(eagle::transpose(x, {0}), eagle::InvalidArgumentError,
              "transpose expects a vector of size 2. But input(1) is a vector of size 1 "
              "[Op:Transpose]");
  CHECK_ERROR(eagle::transpose(x, {0, 2}), eagle::InvalidArgumentError,
              "2 is out of range [0 .. 2) [Op:Transpose]");
  CHECK_ERROR(eagle::transpose(x, {-3, 0}), eagle::InvalidArgumentError,
              "-1 is out of range [0 .. 2) [Op:Transpose]");
  CHECK_ERROR(eagle::transpose(x, {1, 0, 2}), eagle::InvalidArgumentError,
              "transpose expects a vector of size 2. But input(1) is a vector of size 3 "
              "[Op:Transpose]");
  CHECK_ERROR(eagle::transpose(eagle::constant(1.0), {0}), eagle::InvalidArgumentError,
              "transpose expects a vector of size 0. But input(1) is a vector of size 1 "
              "[Op:Transpose]");
  // Negative entries count from the end, as in TensorFlow.
  CHECK(eagle::transpose(x, {-1, 0}).shape() == Shape{3, 2});
  CHECK(eagle::transpose(x, {-1, -2}).to_vector<float>() == std::vector<float>(6, 0.f));
}

TEST_CASE("expand_dims and squeeze errors", "[ops][errors]") {
  const Tensor x = eagle::zeros({2, 3});
  CHECK_ERROR(eagle::expand_dims(x, 3), eagle::InvalidArgumentError,
              "Tried to expand dim index 3 for tensor with 2 dimensions. [Op:ExpandDims]");
  CHECK_ERROR(eagle::expand_dims(x, -4), eagle::InvalidArgumentError,
              "Tried to expand dim index -4 for tensor with 2 dimensions. [Op:ExpandDims]");
  CHECK_ERROR(eagle::expand_dims(eagle::constant(1.0), 1), eagle::InvalidArgumentError,
              "Tried to expand dim index 1 for tensor with 0 dimensions. [Op:ExpandDims]");
  CHECK_ERROR(eagle::expand_dims(eagle::zeros({1, 1, 1, 1, 1, 1, 1, 1}), 0),
              eagle::InvalidArgumentError, "Shape rank exceeds the maximum of 8 [Op:ExpandDims]");

  const Tensor y = eagle::zeros({2, 1, 3});
  CHECK_ERROR(eagle::squeeze(y, {0}), eagle::InvalidArgumentError,
              "Can not squeeze dim[0], expected a dimension of 1, got 2 [Op:Squeeze]");
  CHECK_ERROR(eagle::squeeze(y, {1, -1}), eagle::InvalidArgumentError,
              "Can not squeeze dim[2], expected a dimension of 1, got 3 [Op:Squeeze]");
  CHECK_ERROR(eagle::squeeze(eagle::zeros({0, 1}), {0}), eagle::InvalidArgumentError,
              "Can not squeeze dim[0], expected a dimension of 1, got 0 [Op:Squeeze]");
  CHECK_ERROR(eagle::squeeze(y, {3}), eagle::InvalidArgumentError,
              "Tried to squeeze dim index 3 for tensor with 3 dimensions. [Op:Squeeze]");
  CHECK_ERROR(eagle::squeeze(y, {-4}), eagle::InvalidArgumentError,
              "Tried to squeeze dim index -4 for tensor with 3 dimensions. [Op:Squeeze]");
  CHECK_ERROR(eagle::squeeze(eagle::constant(1.0), {0}), eagle::InvalidArgumentError,
              "Tried to squeeze dim index 0 for tensor with 0 dimensions. [Op:Squeeze]");
}

TEST_CASE("concat errors", "[ops][errors]") {
  const Tensor a = eagle::zeros({2, 3});
  CHECK_ERROR(eagle::concat({}, 0), eagle::InvalidArgumentError,
              "ConcatOp needs at least one input tensor [Op:ConcatV2]");
  CHECK_ERROR(
      eagle::concat({a, eagle::zeros({3})}, 0), eagle::InvalidArgumentError,
      "ConcatOp : Ranks of all input tensors should match: shape[0] = [2,3] vs. shape[1] = [3] "
      "[Op:ConcatV2]");
  CHECK_ERROR(eagle::concat({a, eagle::zeros({2, 4})}, 0), eagle::InvalidArgumentError,
              "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,3] vs. "
              "shape[1] = [2,4] [Op:ConcatV2]");
  CHECK_ERROR(eagle::concat({a, a, eagle::zeros({3, 3})}, 1), eagle::InvalidArgumentError,
              "ConcatOp : Dimension 0 in both shapes must be equal: shape[0] = [2,3] vs. "
              "shape[2] = [3,3] [Op:ConcatV2]");
  CHECK_ERROR(eagle::concat({a, a}, 2), eagle::InvalidArgumentError,
              "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2 "
              "[Op:ConcatV2]");
  CHECK_ERROR(eagle::concat({a, a}, -3), eagle::InvalidArgumentError,
              "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got -3 "
              "[Op:ConcatV2]");
  CHECK_ERROR(eagle::concat({eagle::constant(1.0), eagle::constant(2.0)}, 0),
              eagle::InvalidArgumentError,
              "Can't concatenate scalars (use eagle::expand_dims first) [Op:ConcatV2]");
  CHECK_ERROR(eagle::concat({a, eagle::zeros({2, 3}, DType::kInt32)}, 0),
              eagle::InvalidArgumentError,
              "cannot compute ConcatV2 as input #1(zero-based) was expected to be a float tensor "
              "but is a int32 tensor [Op:ConcatV2]");
}

// Found by tests/fuzz/shape_ops_fuzzer: inputs without elements may have huge dimensions after
// their zero, which neither the kernel nor the output shape may multiply out unchecked.
TEST_CASE("concat of zero-element inputs with huge dimensions", "[ops][errors]") {
  const std::int64_t big = std::int64_t{1} << 62;
  const Tensor wide =
      eagle::zeros({0, (std::int64_t{1} << 57) - 1, 1, std::int64_t{1} << 40}, DType::kInt64);
  const Tensor joined = eagle::concat({wide}, -4);
  CHECK(joined.shape() == wide.shape());
  CHECK(joined.num_elements() == 0);
  const Tensor tall = eagle::zeros({1, big, 0});
  CHECK(eagle::concat({tall}, 0).shape() == tall.shape());
  CHECK_ERROR(eagle::concat({tall, tall}, 0), eagle::InvalidArgumentError,
              "Shape [2] with dimension 4611686018427387904 has more than 2^63-1 elements "
              "[Op:ConcatV2]");
}

TEST_CASE("slice errors", "[ops][errors]") {
  const Tensor x = eagle::zeros({2, 3});
  CHECK_ERROR(eagle::slice(x, {0}, {1, 1}), eagle::InvalidArgumentError,
              "Expected begin and size arguments to be 1-D tensors of size 2, but got shapes [1] "
              "and [2] instead. [Op:Slice]");
  CHECK_ERROR(eagle::slice(x, {0, 0}, {1}), eagle::InvalidArgumentError,
              "Expected begin and size arguments to be 1-D tensors of size 2, but got shapes [2] "
              "and [1] instead. [Op:Slice]");
  CHECK_ERROR(eagle::slice(x, {0, 4}, {1, -1}), eagle::InvalidArgumentError,
              "Expected begin[1] in [0, 3], but got 4 [Op:Slice]");
  CHECK_ERROR(eagle::slice(x, {-1, 0}, {1, 1}), eagle::InvalidArgumentError,
              "Expected begin[0] in [0, 2], but got -1 [Op:Slice]");
  CHECK_ERROR(eagle::slice(x, {1, 0}, {2, 1}), eagle::InvalidArgumentError,
              "Expected size[0] in [0, 1], but got 2 [Op:Slice]");
  CHECK_ERROR(eagle::slice(x, {0, 1}, {1, 3}), eagle::InvalidArgumentError,
              "Expected size[1] in [0, 2], but got 3 [Op:Slice]");
  CHECK_ERROR(eagle::slice(x, {0, 1}, {1, -2}), eagle::InvalidArgumentError,
              "Expected size[1] in [0, 2], but got -2 [Op:Slice]");
  CHECK_ERROR(eagle::slice(eagle::constant(1.0), {0}, {1}), eagle::InvalidArgumentError,
              "Expected begin and size arguments to be 1-D tensors of size 0, but got shapes [1] "
              "and [1] instead. [Op:Slice]");
}

// ---- Linear algebra -------------------------------------------------------------------------

TEST_CASE("matmul: rank, size, batch and dtype errors", "[ops][errors]") {
  const Tensor m23 = eagle::zeros({2, 3});
  const Tensor m32 = eagle::zeros({3, 2});
  CHECK_ERROR(eagle::matmul(eagle::zeros({3}), m32), eagle::InvalidArgumentError,
              "In[0] ndims must be >= 2 [Op:MatMul]");
  CHECK_ERROR(eagle::matmul(m23, eagle::zeros({3})), eagle::InvalidArgumentError,
              "In[1] ndims must be >= 2 [Op:MatMul]");
  CHECK_ERROR(eagle::matmul(eagle::constant(1.0), eagle::constant(1.0)),
              eagle::InvalidArgumentError, "In[0] ndims must be >= 2 [Op:MatMul]");
  CHECK_ERROR(eagle::matmul(eagle::zeros({3}), eagle::zeros({2, 3, 4})),
              eagle::InvalidArgumentError, "In[0] ndims must be >= 2 [Op:BatchMatMulV2]");
  CHECK_ERROR(eagle::matmul(m23, m23), eagle::InvalidArgumentError,
              "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3] [Op:MatMul]");
  CHECK_ERROR(eagle::matmul(m23, m32, true, false), eagle::InvalidArgumentError,
              "Matrix size-incompatible: In[0]: [2,3], In[1]: [3,2] [Op:MatMul]");
  CHECK_ERROR(eagle::matmul(m23, m32, false, true), eagle::InvalidArgumentError,
              "Matrix size-incompatible: In[0]: [2,3], In[1]: [3,2] [Op:MatMul]");
  CHECK_ERROR(eagle::matmul(eagle::zeros({2, 2, 3}), eagle::zeros({2, 4, 3})),
              eagle::InvalidArgumentError,
              "Matrix size-incompatible: In[0]: [2,2,3], In[1]: [2,4,3] [Op:BatchMatMulV2]");
  CHECK_ERROR(eagle::matmul(eagle::zeros({2, 2, 3}), eagle::zeros({3, 3, 4})),
              eagle::InvalidArgumentError,
              "In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,3,4] "
              "[Op:BatchMatMulV2]");
  CHECK_ERROR(eagle::matmul(eagle::zeros({4, 2, 2, 3}), eagle::zeros({3, 3, 4})),
              eagle::InvalidArgumentError,
              "In[0] and In[1] must have compatible batch dimensions: [4,2,2,3] vs. [3,3,4] "
              "[Op:BatchMatMulV2]");
  CHECK_ERROR(eagle::matmul(m23, eagle::zeros({3, 2}, DType::kFloat64)),
              eagle::InvalidArgumentError,
              "cannot compute MatMul as input #1(zero-based) was expected to be a float tensor "
              "but is a double tensor [Op:MatMul]");
  CHECK_ERROR(eagle::matmul(eagle::zeros({1, 2, 3}, DType::kInt32), m32),
              eagle::InvalidArgumentError,
              "cannot compute BatchMatMulV2 as input #1(zero-based) was expected to be a int32 "
              "tensor but is a float tensor [Op:BatchMatMulV2]");
}

TEST_CASE("add_n errors", "[ops][errors]") {
  const Tensor a = eagle::zeros({2});
  CHECK_ERROR(eagle::add_n({}), eagle::InvalidArgumentError,
              "List argument 'inputs' to 'AddN' Op with length 0 shorter than minimum length 1 "
              "[Op:AddN]");
  CHECK_ERROR(eagle::add_n({a, eagle::zeros({3})}), eagle::InvalidArgumentError,
              "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3] "
              "[Op:AddN]");
  // No broadcasting in add_n.
  CHECK_ERROR(eagle::add_n({a, a, eagle::zeros({1})}), eagle::InvalidArgumentError,
              "Shapes of all inputs must match: values[0].shape = [2] != values[2].shape = [1] "
              "[Op:AddN]");
  CHECK_ERROR(eagle::add_n({a, a, eagle::zeros({2}, DType::kInt32)}), eagle::InvalidArgumentError,
              "cannot compute AddN as input #2(zero-based) was expected to be a float tensor but "
              "is a int32 tensor [Op:AddN]");
}

TEST_CASE("softmax on a scalar", "[ops][errors]") {
  CHECK_ERROR(eagle::softmax(eagle::constant(1.0)), eagle::InvalidArgumentError,
              "logits must have >= 1 dimension, got shape [] [Op:Softmax]");
}

// ---- Creation -------------------------------------------------------------------------------

TEST_CASE("range errors", "[ops][errors]") {
  CHECK_ERROR(eagle::range(0, 5, 0), eagle::InvalidArgumentError,
              "Requires delta != 0: 0 [Op:Range]");
  CHECK_ERROR(eagle::range(0.0, 1.0, 0.0), eagle::InvalidArgumentError,
              "Requires delta != 0: 0 [Op:Range]");
  CHECK_ERROR(eagle::range(5, 1), eagle::InvalidArgumentError,
              "Requires start <= limit when delta > 0: 5/1 [Op:Range]");
  CHECK_ERROR(eagle::range(-3), eagle::InvalidArgumentError,
              "Requires start <= limit when delta > 0: 0/-3 [Op:Range]");
  CHECK_ERROR(eagle::range(1, 5, -1), eagle::InvalidArgumentError,
              "Requires start >= limit when delta < 0: 1/5 [Op:Range]");
  CHECK_ERROR(eagle::range(0.5, 0.25, 0.1), eagle::InvalidArgumentError,
              "Requires start <= limit when delta > 0: 0.5/0.25 [Op:Range]");
  CHECK_ERROR(eagle::range(0.0, 1e300, 1e-300), eagle::InvalidArgumentError,
              "Range of inf elements is too large [Op:Range]");
  CHECK_ERROR(eagle::range(0.0, 1e17, 1.0), eagle::InvalidArgumentError,
              "Range of 1e+17 elements is too large [Op:Range]");
  CHECK_ERROR(eagle::range(0.0, kNaN, 1.0), eagle::InvalidArgumentError,
              "Range of nan elements is too large [Op:Range]");
}

TEST_CASE("random_uniform: integer range must be non-empty", "[ops][errors]") {
  CHECK_ERROR(eagle::random_uniform({3}, 5, 5, DType::kInt32), eagle::InvalidArgumentError,
              "Need minval < maxval: 5 >= 5 [Op:RandomUniform]");
  CHECK_ERROR(eagle::random_uniform({3}, 2, 1, DType::kInt64, 7), eagle::InvalidArgumentError,
              "Need minval < maxval: 2 >= 1 [Op:RandomUniform]");
}

TEST_CASE("constant: values that do not fit the shape or the dtype", "[ops][errors]") {
  CHECK_ERROR(eagle::constant({1, 2, 3}, Shape{2, 2}), eagle::InvalidArgumentError,
              "Eager constant of 3 values does not fit shape [2,2], which has 4 elements");
  CHECK_ERROR(eagle::constant({1.0, 2.0}, Shape{}), eagle::InvalidArgumentError,
              "Eager constant of 2 values does not fit shape [], which has 1 elements");
  CHECK_ERROR(eagle::constant(std::vector<float>{}, Shape{2}), eagle::InvalidArgumentError,
              "Eager constant of 0 values does not fit shape [2], which has 2 elements");
  CHECK_ERROR(eagle::constant({true, false}, Shape{0}), eagle::InvalidArgumentError,
              "Eager constant of 2 values does not fit shape [0], which has 0 elements");
  const float data[5] = {};
  CHECK_ERROR(eagle::constant_from_buffer(data, 5, DType::kFloat32, Shape{2, 3}),
              eagle::InvalidArgumentError,
              "Eager constant of 5 values does not fit shape [2,3], which has 6 elements");
  CHECK_ERROR(eagle::constant({{1.0, 2.0}, {3.0}}), eagle::InvalidArgumentError,
              "Can't convert non-rectangular Python sequence to Tensor. In a list, item 1 has "
              "shape (1,) but item 0 has shape (2,).");
  CHECK_ERROR(eagle::constant({1.5}, std::nullopt, DType::kInt32), eagle::InvalidArgumentError,
              "Cannot convert 1.5 to EagerTensor of dtype int32");
  CHECK_ERROR(eagle::constant({kNaN}, std::nullopt, DType::kInt64), eagle::InvalidArgumentError,
              "Cannot convert nan to EagerTensor of dtype int64");
  CHECK_ERROR(eagle::constant(1e19, std::nullopt, DType::kInt64), eagle::InvalidArgumentError,
              "Cannot convert 1e+19 to EagerTensor of dtype int64");
  // Shapes themselves: rank and negative dimensions.
  CHECK_ERROR(eagle::zeros(Shape{1, 1, 1, 1, 1, 1, 1, 1, 1}), eagle::InvalidArgumentError,
              "Shape rank exceeds the maximum of 8 supported by eagle");
  CHECK_ERROR(eagle::zeros(Shape{2, -1}), eagle::InvalidArgumentError,
              "Dimension 1 must be >= 0, got -1");
}

// ---- Undefined tensors and reading values ---------------------------------------------------

TEST_CASE("undefined tensors are rejected by every op", "[ops][errors]") {
  const Tensor u;
  const Tensor x = eagle::zeros({2, 2});
  for (const auto& [name, op] : binary_ops()) {
    INFO(name);
    CHECK_ERROR(op(u, x), eagle::InvalidArgumentError, undefined_input(0, name));
    CHECK_ERROR(op(x, u), eagle::InvalidArgumentError, undefined_input(1, name));
  }
  const std::vector<std::tuple<std::string, Unary>> unary{
      {"Neg", [](const Tensor& t) { return eagle::negative(t); }},
      {"Abs", [](const Tensor& t) { return eagle::abs(t); }},
      {"Exp", [](const Tensor& t) { return eagle::exp(t); }},
      {"Log", [](const Tensor& t) { return eagle::log(t); }},
      {"Sqrt", [](const Tensor& t) { return eagle::sqrt(t); }},
      {"Square", [](const Tensor& t) { return eagle::square(t); }},
      {"Relu", [](const Tensor& t) { return eagle::relu(t); }},
      {"Sigmoid", [](const Tensor& t) { return eagle::sigmoid(t); }},
      {"Tanh", [](const Tensor& t) { return eagle::tanh(t); }},
      {"Sum", [](const Tensor& t) { return eagle::reduce_sum(t); }},
      {"Mean", [](const Tensor& t) { return eagle::reduce_mean(t, 0); }},
      {"Max", [](const Tensor& t) { return eagle::reduce_max(t); }},
      {"Min", [](const Tensor& t) { return eagle::reduce_min(t, {}, true); }},
      {"ArgMax", [](const Tensor& t) { return eagle::argmax(t); }},
      {"Softmax", [](const Tensor& t) { return eagle::softmax(t); }},
      {"Reshape", [](const Tensor& t) { return eagle::reshape(t, {-1}); }},
      {"Transpose", [](const Tensor& t) { return eagle::transpose(t); }},
      {"ExpandDims", [](const Tensor& t) { return eagle::expand_dims(t, 0); }},
      {"Squeeze", [](const Tensor& t) { return eagle::squeeze(t); }},
      {"Slice", [](const Tensor& t) { return eagle::slice(t, {}, {}); }},
      {"Identity", [](const Tensor& t) { return eagle::identity(t); }},
      {"Cast", [](const Tensor& t) { return eagle::cast(t, DType::kInt32); }},
      {"MatMul",
       [](const Tensor& t) {
         return eagle::matmul(t, eagle::zeros({2, 2}));
       }},
      {"AddN", [](const Tensor& t) { return eagle::add_n({t}); }},
      {"ConcatV2", [](const Tensor& t) { return eagle::concat({t}, 0); }},
      // A C++ number next to a tensor becomes a constant of the tensor's dtype first.
      {"Const", [](const Tensor& t) { return t + 1; }},
      {"Const", [](const Tensor& t) { return 2.0 * t; }},
  };
  for (const auto& [name, op] : unary) {
    INFO(name);
    CHECK_ERROR(op(u), eagle::InvalidArgumentError, undefined_input(0, name));
  }
  CHECK_ERROR(eagle::matmul(x, u), eagle::InvalidArgumentError, undefined_input(1, "MatMul"));
  CHECK_ERROR(eagle::matmul(eagle::zeros({2, 2, 2}), u), eagle::InvalidArgumentError,
              undefined_input(1, "BatchMatMulV2"));
  CHECK_ERROR(eagle::add_n({x, x, u}), eagle::InvalidArgumentError, undefined_input(2, "AddN"));
  CHECK_ERROR(eagle::concat({x, u}, 0), eagle::InvalidArgumentError,
              undefined_input(1, "ConcatV2"));
  CHECK_ERROR(eagle::divide(eagle::constant({1}), u), eagle::InvalidArgumentError,
              undefined_input(1, "RealDiv"));

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
    CHECK_ERROR(eagle::exp(i), eagle::InvalidArgumentError, not_allowed("Exp", "int32", kFloating));
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

TEST_CASE("integer random bounds must fit the dtype", "[errors]") {
  CHECK_THROWS_MATCHES(eagle::random_uniform(eagle::Shape{4}, 0, 1e10, eagle::int32, 1),
                       eagle::InvalidArgumentError,
                       Catch::Message("minval 0 and maxval 10000000000 must lie within the range "
                                      "of int32 [Op:RandomUniform]"));
  const auto ok = eagle::random_uniform(eagle::Shape{64}, -5, 5, eagle::int32, 1).to_vector<int>();
  for (int v : ok) CHECK((v >= -5 && v < 5));
}

// Found by tests/fuzz/constant_fuzzer: [-0.5, 0.5) truncated to the empty [0, 0) and the kernel
// divided by its size; a maxval of 2^63 overflowed the int64 arithmetic.
TEST_CASE("integer random bounds must be values of the dtype", "[errors]") {
  CHECK_ERROR(eagle::random_uniform(eagle::Shape{3}, -0.5, 0.5, eagle::int32, 1),
              eagle::InvalidArgumentError,
              "Cannot convert -0.5 to EagerTensor of dtype int32 [Op:RandomUniform]");
  CHECK_ERROR(eagle::random_uniform(eagle::Shape{3}, 0, 2.5, eagle::int64, 1),
              eagle::InvalidArgumentError,
              "Cannot convert 2.5 to EagerTensor of dtype int64 [Op:RandomUniform]");
  CHECK_ERROR(eagle::random_uniform(eagle::Shape{3}, 0, 9223372036854775808.0, eagle::int64, 1),
              eagle::InvalidArgumentError,
              "minval 0 and maxval 9.223372036854776e+18 must lie within the range of int64 "
              "[Op:RandomUniform]");
  const auto top = eagle::random_uniform(eagle::Shape{64}, 2147483646, 2147483647, eagle::int32, 1)
                       .to_vector<int>();
  for (int v : top) CHECK(v == 2147483646);
}
