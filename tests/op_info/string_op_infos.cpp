// OpInfo entries of the string ops: StringJoin, StringLength, AsString, ReduceJoin (Note
// [OpInfo table]). CPU kernels only, so no backend comparison; their TensorFlow values are in
// string_test.cpp. The error cases are TensorFlow 2.21's texts.
#include "op_info/op_info.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

namespace {

using eagle::InvalidArgumentError;
using V = const Inputs&;

Tensor words() { return eagle::constant({{"a", "bc"}, {"d", "\xc3\xa9"}}); }

std::vector<Sample> string_samples(const Call& call) {
  return {{"2x2 strings", {words()}, call, exact()}};
}

OpInfo string_join_info() {
  OpInfo e{opdefs::OpId::kStringJoin};
  e.call = [](V x) { return eagle::strings::join(x, "-"); };
  e.samples = [](DType) {
    return std::vector<Sample>{
        {"a matrix and a scalar", {words(), eagle::constant("z")}, {}, exact()}};
  };
  e.errors = [] {
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [] {
              eagle::strings::join({words(), eagle::constant({"x", "y"})});
            },
            "Input shapes do not match: [2,2] vs. [2] [Op:StringJoin]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::strings::join({words(), eagle::constant(1.0f)});
            },
            "cannot compute StringJoin as input #1(zero-based) was expected to be a string "
            "tensor but is a float32 tensor [Op:StringJoin]"),
    };
  };
  return e;
}

OpInfo string_length_info() {
  OpInfo e{opdefs::OpId::kStringLength};
  e.call = [](V x) { return eagle::strings::length(x[0]); };
  e.samples = [](DType) {
    return string_samples([](V x) { return eagle::strings::length(x[0], "UTF8_CHAR"); });
  };
  e.errors = [] {
    return std::vector<ErrorCase>{raises<InvalidArgumentError>(
        [] { eagle::strings::length(words(), "byte"); },
        "Value for attr 'unit' of \"byte\" is not in the list of allowed values: \"BYTE\", "
        "\"UTF8_CHAR\" [Op:StringLength]")};
  };
  return e;
}

OpInfo as_string_info() {
  OpInfo e{opdefs::OpId::kAsString};
  e.call = [](V x) { return eagle::strings::as_string(x[0]); };
  e.samples = [](DType d) {
    return std::vector<Sample>{{"4 values", {make(d, {4}, Domain::kSmall, 71)}, {}, exact()}};
  };
  e.errors = [] {
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>([] { eagle::strings::as_string(eagle::constant(true), 1); },
                                     "precision not supported for datatype bool [Op:AsString]"),
        raises<InvalidArgumentError>(
            [] { eagle::strings::as_string(eagle::constant(2.5), -1, false, false, 5, "*"); },
            "Fill argument not supported: \"*\" [Op:AsString]"),
    };
  };
  return e;
}

OpInfo reduce_join_info() {
  OpInfo e{opdefs::OpId::kReduceJoin};
  e.call = [](V x) { return eagle::strings::reduce_join(x[0], 0, false, ","); };
  e.samples = [](DType) {
    return string_samples([](V x) { return eagle::strings::reduce_join(x[0], 1); });
  };
  e.errors = [] {
    return std::vector<ErrorCase>{raises<eagle::OutOfRangeError>(
        [] { eagle::strings::reduce_join(words(), -3); },
        "Invalid reduction dimension -3 for input with 2 dimension(s) [Op:ReduceJoin]")};
  };
  return e;
}

}  // namespace

std::vector<OpInfo> string_op_infos() {
  return {string_join_info(), string_length_info(), as_string_info(), reduce_join_info()};
}

}  // namespace eagle_test
