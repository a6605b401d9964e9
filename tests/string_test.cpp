// String tensors (DType kString, TensorFlow's tf.string) and the string ops, against TensorFlow
// 2.21's values, prints and texts (Note [String tensors]). Runs with one simulated GPU: string ops
// under a GPU scope go to the CPU by soft placement.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"

namespace {

using eagle::constant;
using eagle::Tensor;
using Strings = std::vector<std::string>;

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";

}  // namespace

TEST_CASE("strings: constants, their dtype, values and TensorFlow's print") {
  const Tensor hello = constant("Hello from server2!");
  CHECK(hello.dtype() == eagle::kString);
  CHECK(hello.shape() == eagle::Shape{});
  CHECK(hello.item<std::string>() == "Hello from server2!");
  CHECK(eagle::to_string(hello) ==
        "eagle.Tensor(b'Hello from server2!', shape=(), dtype=string, device=" + kCpu0 + ")");

  const Tensor grid = constant({{"a", "bcd"}, {"x\n", "it's"}});
  CHECK(grid.shape() == eagle::Shape{2, 2});
  CHECK(grid.to_vector<std::string>() == Strings{"a", "bcd", "x\n", "it's"});
  // str() of TensorFlow 2.21's tf.constant([[b'a', b'bcd'], [b'x\n', b"it's"]]).
  CHECK(eagle::to_string(grid) ==
        "eagle.Tensor(\n[[b'a' b'bcd']\n [b'x\\n' b\"it's\"]], shape=(2, 2), dtype=string, "
        "device=" +
            kCpu0 + ")");
  CHECK(eagle::format_values(constant(std::string("\x01\xff\\", 3))) == "b'\\x01\\xff\\\\'");

  const Tensor from_vector = constant(Strings{"p", "q", "r", "s"}, {2, 2});
  CHECK(from_vector.shape() == eagle::Shape{2, 2});
  CHECK(from_vector.to_vector<std::string>() == Strings{"p", "q", "r", "s"});
  CHECK(constant("z", {2, 3}).to_vector<std::string>() == Strings(6, "z"));  // one value fills
  CHECK(constant(Strings{}).shape() == eagle::Shape{0});
  CHECK(eagle::format_values(constant(Strings{})) == "[]");
  CHECK(constant(std::string(1000, 'y')).item<std::string>().size() == 1000);  // not inline
}

TEST_CASE("strings: TensorFlow's conversion errors") {
  CHECK_THROWS_MATCHES(constant({"a", "b"}, eagle::kFloat32), eagle::InvalidArgumentError,
                       Catch::Message("Cannot convert 'a' to EagerTensor of dtype float32"));
  CHECK_THROWS_MATCHES(constant(1, eagle::kString), eagle::InvalidArgumentError,
                       Catch::Message("Cannot convert 1 to EagerTensor of dtype string"));
  CHECK_THROWS_MATCHES(constant({eagle::TensorData("a"), eagle::TensorData(1)}),
                       eagle::InvalidArgumentError,
                       Catch::Message("Can't convert Python sequence with mixed types to Tensor. "
                                      "A list mixes strings with numbers."));
  CHECK_THROWS_MATCHES(constant({eagle::TensorData(true), eagle::TensorData("a")}),
                       eagle::InvalidArgumentError,
                       Catch::Message("Can't convert Python sequence with mixed types to Tensor. "
                                      "A list mixes strings with bool."));
  const Tensor a = constant("a");
  CHECK_THROWS_MATCHES(a.item<float>(), eagle::InvalidArgumentError,
                       Catch::Message("Cannot read a string tensor as float32"));
  CHECK_THROWS_MATCHES(constant(1.5f).item<std::string>(), eagle::InvalidArgumentError,
                       Catch::Message("Cannot read a float32 tensor as string"));
  CHECK_THROWS_MATCHES(a * 2, eagle::InvalidArgumentError,
                       Catch::Message("Cannot convert 2 to EagerTensor of dtype string"));
  CHECK_THROWS_MATCHES(
      eagle::exp(a), eagle::InvalidArgumentError,
      Catch::Message("Value for attr 'T' of string is not in the list of allowed values: "
                     "bfloat16, half, float, double [Op:Exp]"));
  CHECK_THROWS_AS(eagle::cast(a, eagle::kFloat32), eagle::InvalidArgumentError);
  CHECK_THROWS_WITH(eagle::cast(a, eagle::kFloat32),
                    Catch::StartsWith("Value for attr 'T' of string is not in the list of "
                                      "allowed values: "));
}

TEST_CASE("strings: identity, reshape, equal and not_equal") {
  const Tensor words = constant({"a", "b", "a"});
  CHECK(eagle::identity(words).to_vector<std::string>() == Strings{"a", "b", "a"});
  CHECK(eagle::reshape(words, {3, 1}).shape() == eagle::Shape{3, 1});
  CHECK(eagle::expand_dims(words, 0).shape() == eagle::Shape{1, 3});
  CHECK((eagle::equal(words, constant("a")).to_vector<bool>() ==
         std::vector<bool>{true, false, true}));
  CHECK((eagle::not_equal(words, constant({"a", "c", "a"})).to_vector<bool>() ==
         std::vector<bool>{false, true, false}));
  // Broadcasting, as for numbers: [2, 1] against [3].
  const Tensor column = constant({{"a"}, {"b"}});
  CHECK((eagle::equal(column, words).to_vector<bool>() ==
         std::vector<bool>{true, false, true, false, true, false}));
  CHECK_THROWS_MATCHES(eagle::equal(words, constant(1)), eagle::InvalidArgumentError,
                       Catch::Message("cannot compute Equal as input #1(zero-based) was expected "
                                      "to be a string tensor but is a int32 tensor [Op:Equal]"));
}

TEST_CASE("strings::join, length, as_string and reduce_join: TensorFlow's values") {
  namespace strings = eagle::strings;
  CHECK(strings::join({constant("a"), constant({"x", "y"})}, "-").to_vector<std::string>() ==
        Strings{"a-x", "a-y"});
  CHECK(strings::join({}).item<std::string>().empty());
  CHECK(strings::length(constant({"ab", "h\xc3\xa9llo"})).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{2, 6});
  CHECK(strings::length(constant({"ab", "h\xc3\xa9llo"}), "UTF8_CHAR").to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{2, 5});

  CHECK(strings::as_string(constant({1.5f, 2.0f})).to_vector<std::string>() ==
        Strings{"1.500000", "2.000000"});
  CHECK(strings::as_string(constant({1, 2})).to_vector<std::string>() == Strings{"1", "2"});
  CHECK(strings::as_string(constant({true, false})).to_vector<std::string>() ==
        Strings{"true", "false"});
  CHECK(strings::as_string(constant({1.5f, -2.25f}), 2, false, false, 8, "0")
            .to_vector<std::string>() == Strings{"00001.50", "-0002.25"});
  CHECK(strings::as_string(constant({1.5e10f, -2.25f}), -1, false, true).to_vector<std::string>() ==
        Strings{"1.5e+10", "-2.25"});
  CHECK(strings::as_string(constant({7, -3}), -1, false, false, 4).to_vector<std::string>() ==
        Strings{"   7", "  -3"});
  CHECK(strings::as_string(constant(1.5), -1, true).item<std::string>() == "1.500000e+00");
  CHECK(strings::as_string(constant("a")).item<std::string>() == "a");
  CHECK(
      strings::as_string(eagle::cast(constant({1.5f}), eagle::kFloat16)).to_vector<std::string>() ==
      Strings{"1.500000"});

  const Tensor grid = constant({{"a", "b"}, {"c", "d"}});
  CHECK(strings::reduce_join(grid).item<std::string>() == "abcd");
  CHECK(strings::reduce_join(grid, 1, false, ",").to_vector<std::string>() ==
        Strings{"a,b", "c,d"});
  const Tensor kept = strings::reduce_join(grid, 0, true, "+");
  CHECK(kept.shape() == eagle::Shape{1, 2});
  CHECK(kept.to_vector<std::string>() == Strings{"a+c", "b+d"});
  CHECK(strings::reduce_join(grid, -1).to_vector<std::string>() == Strings{"ab", "cd"});
  CHECK(strings::reduce_join(constant(Strings{}, {2, 0}), 1).to_vector<std::string>() ==
        Strings{"", ""});
}

TEST_CASE("strings: the ops' errors are TensorFlow's") {
  namespace strings = eagle::strings;
  CHECK_THROWS_MATCHES(strings::join({constant(1)}), eagle::InvalidArgumentError,
                       Catch::Message("cannot compute StringJoin as input #0(zero-based) was "
                                      "expected to be a string tensor but is a int32 tensor "
                                      "[Op:StringJoin]"));
  CHECK_THROWS_MATCHES(strings::join({constant({"a", "b"}), constant({{"x", "y"}})}),
                       eagle::InvalidArgumentError,
                       Catch::Message("Input shapes do not match: [2] vs. [1,2] [Op:StringJoin]"));
  CHECK_THROWS_MATCHES(strings::length(constant("a"), "CHAR"), eagle::InvalidArgumentError,
                       Catch::Message("Value for attr 'unit' of \"CHAR\" is not in the list of "
                                      "allowed values: \"BYTE\", \"UTF8_CHAR\" [Op:StringLength]"));
  CHECK_THROWS_MATCHES(strings::as_string(constant(1.5f), -1, true, true),
                       eagle::InvalidArgumentError,
                       Catch::Message("Cannot select both scientific and shortest notation "
                                      "[Op:AsString]"));
  CHECK_THROWS_MATCHES(strings::as_string(constant(1.5f), -1, false, false, -1, "ab"),
                       eagle::InvalidArgumentError,
                       Catch::Message("Fill string must be one or fewer characters [Op:AsString]"));
  CHECK_THROWS_MATCHES(strings::as_string(constant(1.5f), -1, false, false, -1, "x"),
                       eagle::InvalidArgumentError,
                       Catch::Message("Fill argument not supported: \"x\" [Op:AsString]"));
  CHECK_THROWS_MATCHES(strings::as_string(constant(1), 2), eagle::InvalidArgumentError,
                       Catch::Message("precision not supported for datatype int32 [Op:AsString]"));
  CHECK_THROWS_MATCHES(strings::as_string(constant(1), -1, true), eagle::InvalidArgumentError,
                       Catch::Message("scientific and shortest format not supported for datatype "
                                      "int32 [Op:AsString]"));
  CHECK_THROWS_MATCHES(strings::reduce_join(constant({1, 2})), eagle::InvalidArgumentError,
                       Catch::Message("cannot compute ReduceJoin as input #0(zero-based) was "
                                      "expected to be a string tensor but is a int32 tensor "
                                      "[Op:ReduceJoin]"));
  const Tensor grid = constant({{"a", "b"}, {"c", "d"}});
  CHECK_THROWS_MATCHES(strings::reduce_join(grid, 2), eagle::OutOfRangeError,
                       Catch::Message("Invalid reduction dimension 2 for input with 2 "
                                      "dimension(s) [Op:ReduceJoin]"));
  CHECK_THROWS_MATCHES(strings::reduce_join(constant({"a", "b"}), std::vector<int>{0, 0}),
                       eagle::InvalidArgumentError,
                       Catch::Message("Duplicate reduction dimension 0 [Op:ReduceJoin]"));
}

TEST_CASE("strings: under a GPU scope, string ops run on the CPU by soft placement") {
  eagle_test::CapturedLog log;
  auto scope = eagle::device("/GPU:0");
  const Tensor a = constant("a");
  CHECK(a.device() == kCpu0);
  const Tensor joined = eagle::strings::join({a, constant("b")});
  CHECK(joined.device() == kCpu0);
  CHECK(joined.item<std::string>() == "ab");
  CHECK(log.take() == std::vector<std::string>{"Executing op StringJoin in device " + kCpu0});

  eagle::config::set_soft_device_placement(false);
  CHECK_THROWS_MATCHES(
      eagle::strings::join({a, a}), eagle::InvalidArgumentError,
      Catch::Message("Could not satisfy device specification "
                     "'/job:localhost/replica:0/task:0/device:GPU:0'. enable_soft_placement=0. "
                     "Supported device types [CPU]. All available devices "
                     "[/job:localhost/replica:0/task:0/device:GPU:0, " +
                     kCpu0 + "]. [Op:StringJoin]"));
}
