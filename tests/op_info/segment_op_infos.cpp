// OpInfo entries of UnsortedSegmentSum (the gather gradients' scatter-add) and CheckNumerics
// (Note [OpInfo table]). Their TensorFlow values are in segment_sum_test.cpp and
// tf_gradient_fixture_test.cpp, the numerics mode in numerics_check_test.cpp.
#include <cmath>

#include "op_info/op_info.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

namespace {

using eagle::InvalidArgumentError;
using V = const Inputs&;

OpInfo unsorted_segment_sum_info() {
  OpInfo e{opdefs::OpId::kUnsortedSegmentSum};
  e.call = [](V x) { return eagle::unsorted_segment_sum(x[0], x[1], 7); };
  e.samples = [](DType d) {
    // 40 rows into 7 segments, two rows dropped (-1); a GPU adds in any order, so the tolerance
    // scales with the sum of the magnitudes.
    std::vector<double> ids;
    for (int r = 0; r < 40; ++r) ids.push_back(r % 9 == 4 ? -1 : (r * 5) % 7);
    const Tensor data = make(d, {40, 3, 5}, Domain::kSmall, 41);
    std::vector<Sample> out;
    for (DType it : {DType::kInt32, DType::kInt64}) {
      const Tensor segment_ids = make_values(it, ids, {40});
      const Tensor magnitudes = eagle::unsorted_segment_sum(abs64(data), segment_ids, 7);
      out.push_back(
          {"40 rows, 7 segments " + str(it), {data, segment_ids}, {}, sum_tol(d, 40, magnitudes)});
    }
    out.push_back(
        {"2-D ids",
         {make(d, {2, 2, 3}, Domain::kSmall, 42), make_values(DType::kInt64, {1, 0, 1, 1}, {2, 2})},
         [](V x) { return eagle::unsorted_segment_sum(x[0], x[1], 2); },
         exact()});
    out.push_back({"no rows",
                   {make(d, {0, 4}, Domain::kSmall, 43), make_values(DType::kInt32, {}, {0})},
                   [](V x) { return eagle::unsorted_segment_sum(x[0], x[1], 3); },
                   exact()});
    return out;
  };
  e.errors = [] {
    const Tensor data = eagle::constant({1.0f, 2.0f, 3.0f});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [data] {
              eagle::unsorted_segment_sum(data, eagle::constant({0, 5, 1}), 3);
            },
            "segment_ids[1] = 5 is out of range [0, 3) [Op:UnsortedSegmentSum]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::unsorted_segment_sum(eagle::zeros({2, 2}), eagle::constant({0}), 3);
            },
            "data.shape = [2,2] does not start with segment_ids.shape = [1] "
            "[Op:UnsortedSegmentSum]"),
        raises<InvalidArgumentError>(
            [data] {
              eagle::unsorted_segment_sum(data, eagle::constant({0, 1, 1}), -1);
            },
            "Input num_segments == -1 must not be negative. [Op:UnsortedSegmentSum]"),
        raises<InvalidArgumentError>(
            [data] {
              eagle::unsorted_segment_sum(data, eagle::constant({0.0f, 1.0f, 1.0f}), 2);
            },
            "Value for attr 'Tindices' of float is not in the list of allowed values: int32, "
            "int64 [Op:UnsortedSegmentSum]"),
    };
  };
  e.gradients = {
      {"unsorted_segment_sum",
       {{Shape{4, 3}}},
       [](V x) {
         return eagle::math::unsorted_segment_sum(x[0], eagle::constant({2, -1, 0, 2}), 3);
       }},
      {"unsorted_segment_sum 2-d ids int64",
       {{Shape{2, 2, 3}}},
       [](V x) {
         return eagle::math::unsorted_segment_sum(
             x[0], eagle::constant({{1, 0}, {1, 1}}, eagle::kInt64), 2);
       }},
  };
  return e;
}

OpInfo check_numerics_info() {
  OpInfo e{opdefs::OpId::kCheckNumerics};
  e.call = [](V x) { return eagle::debugging::check_numerics(x[0], "finite"); };
  e.tolerance = exact_tol;
  e.samples = [](DType d) {
    return std::vector<Sample>{{"finite", {make(d, {4, 33}, Domain::kGeneral, 44)}},
                               {"empty", {make(d, {0, 3}, Domain::kGeneral, 45)}}};
  };
  e.errors = [] {
    return std::vector<ErrorCase>{raises<InvalidArgumentError>(
        [] {
          eagle::debugging::check_numerics(eagle::constant({1.0f, std::nanf("")}), "my msg");
        },
        "my msg : Tensor had NaN values [Op:CheckNumerics]")};
  };
  e.gradients = {{"check_numerics", {{Shape{2, 3}}}, [](V x) {
                    return eagle::debugging::check_numerics(x[0] * x[0], "fine");
                  }}};
  return e;
}

}  // namespace

std::vector<OpInfo> segment_op_infos() {
  return {unsorted_segment_sum_info(), check_numerics_info()};
}

}  // namespace eagle_test
