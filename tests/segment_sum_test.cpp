// unsorted_segment_sum (UnsortedSegmentSum): TensorFlow's values (from tf.math.unsorted_segment_sum
// in TensorFlow 2.21) and error texts, on the CPU and a simulated GPU, every dtype it takes, and
// the gather gradients that now go through it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"

namespace {

using eagle::Shape;
using eagle::Tensor;

#define CHECK_ERROR(expr, Type, text) CHECK_THROWS_MATCHES(expr, Type, Catch::Message(text))

void values_on(const char* device) {
  auto scope = eagle::device(device);
  // tf.math.unsorted_segment_sum([1., 2., 3.], [0, -1, 1], 3) == [1., 3., 0.]: -1 drops its row.
  Tensor s = eagle::math::unsorted_segment_sum(eagle::constant({1.0f, 2.0f, 3.0f}),
                                               eagle::constant({0, -1, 1}), 3);
  CHECK(s.shape() == Shape{3});
  CHECK(s.to_vector<float>() == std::vector<float>{1, 3, 0});
  // 2-d ids over [2, 2] data: [1., 9.]
  s = eagle::unsorted_segment_sum(eagle::constant({{1.0, 2.0}, {3.0, 4.0}}, eagle::kFloat64),
                                  eagle::constant({{0, 1}, {1, 1}}, eagle::kInt64), 2);
  CHECK(s.to_vector<double>() == std::vector<double>{1, 9});
  // Rows of [3, 2] into 2 segments, ids [1, 0, 1]: [[3, 4], [6, 8]].
  const Tensor rows = eagle::constant({{1, 2}, {3, 4}, {5, 6}});
  s = eagle::unsorted_segment_sum(rows, eagle::constant({1, 0, 1}), 2);
  CHECK(s.shape() == Shape{2, 2});
  CHECK(s.to_vector<std::int32_t>() == std::vector<std::int32_t>{3, 4, 6, 8});
  s = eagle::unsorted_segment_sum(eagle::cast(rows, eagle::kInt64), eagle::constant({1, 0, 1}), 3);
  CHECK(s.to_vector<std::int64_t>() == std::vector<std::int64_t>{3, 4, 6, 8, 0, 0});
  for (const eagle::DType half : {eagle::kFloat16, eagle::kBFloat16}) {
    s = eagle::unsorted_segment_sum(eagle::cast(rows, half), eagle::constant({1, 0, 1}), 2);
    CHECK(s.dtype() == half);
    CHECK(eagle::cast(s, eagle::kFloat32).to_vector<float>() == std::vector<float>{3, 4, 6, 8});
  }
  // Edges: no segments, no rows, a scalar id.
  CHECK(eagle::unsorted_segment_sum(eagle::zeros({0, 2}), eagle::constant(std::vector<int>{}), 2)
            .to_vector<float>() == std::vector<float>{0, 0, 0, 0});
  CHECK(eagle::unsorted_segment_sum(eagle::zeros({2, 3}), eagle::constant({-1, -1}), 0).shape() ==
        Shape{0, 3});
  CHECK(eagle::unsorted_segment_sum(eagle::constant(5.0f), eagle::constant(1), 2)
            .to_vector<float>() == std::vector<float>{0, 5});
}

}  // namespace

TEST_CASE("unsorted_segment_sum gives TensorFlow's values on the CPU") { values_on("/CPU:0"); }

TEST_CASE("unsorted_segment_sum gives TensorFlow's values on a simulated GPU") {
  REQUIRE_FALSE(eagle::config::list_logical_devices("GPU").empty());
  values_on("/GPU:0");
}

TEST_CASE("unsorted_segment_sum refuses bad input with TensorFlow's texts") {
  const Tensor data = eagle::constant({1.0f, 2.0f, 3.0f});
  CHECK_ERROR(eagle::unsorted_segment_sum(data, eagle::constant({0, 5, 1}), 3),
              eagle::InvalidArgumentError,
              "segment_ids[1] = 5 is out of range [0, 3) [Op:UnsortedSegmentSum]");
  CHECK_ERROR(
      eagle::unsorted_segment_sum(eagle::zeros({2, 2}), eagle::constant({{0, 1}, {3, 0}}), 3),
      eagle::InvalidArgumentError,
      "segment_ids[1,0] = 3 is out of range [0, 3) [Op:UnsortedSegmentSum]");
  CHECK_ERROR(eagle::unsorted_segment_sum(eagle::zeros({2, 2}), eagle::constant({0}), 3),
              eagle::InvalidArgumentError,
              "data.shape = [2,2] does not start with segment_ids.shape = [1] "
              "[Op:UnsortedSegmentSum]");
  CHECK_ERROR(eagle::unsorted_segment_sum(data, eagle::constant({0, 1, 1}), -1),
              eagle::InvalidArgumentError,
              "Input num_segments == -1 must not be negative. [Op:UnsortedSegmentSum]");
  CHECK_ERROR(eagle::unsorted_segment_sum(data, eagle::constant({0.0f, 1.0f, 1.0f}), 2),
              eagle::InvalidArgumentError,
              "Value for attr 'Tindices' of float is not in the list of allowed values: int32, "
              "int64 [Op:UnsortedSegmentSum]");
  CHECK_ERROR(eagle::unsorted_segment_sum(eagle::constant({true}), eagle::constant({0}), 2),
              eagle::InvalidArgumentError,
              "Value for attr 'T' of bool is not in the list of allowed values: float, double, "
              "int32, int64, bfloat16, half [Op:UnsortedSegmentSum]");
  CHECK_ERROR(eagle::unsorted_segment_sum(Tensor(), eagle::constant({0}), 2),
              eagle::InvalidArgumentError,
              "input #0 is an undefined tensor [Op:UnsortedSegmentSum]");
}

TEST_CASE("a gather's gradient is an UnsortedSegmentSum, not a one-hot contraction") {
  const Tensor table = eagle::random_normal({1000, 8}, 0, 1, eagle::kFloat32, 3);
  const Tensor ids = eagle::constant({5, 999, 5});
  eagle::GradientTape tape;
  tape.watch(table);
  const Tensor rows = eagle::gather(table, ids);
  eagle::debugging::set_log_device_placement(true);
  std::vector<std::string> lines;
  eagle::debugging::set_log_sink(
      [&](eagle::debugging::LogLevel, std::string_view line) { lines.emplace_back(line); });
  const auto g = tape.gradient(eagle::reduce_sum(rows), {table});
  eagle::debugging::set_log_device_placement(false);
  eagle::debugging::set_log_sink({});
  bool segment_sum = false;
  for (const std::string& line : lines) {
    CHECK(line.find("Einsum") == std::string::npos);
    if (line.find("Executing op UnsortedSegmentSum") == 0) segment_sum = true;
  }
  CHECK(segment_sum);
  const auto v = g[0]->to_vector<float>();
  CHECK(v[5 * 8] == 2.0f);
  CHECK(v[999 * 8 + 7] == 1.0f);
  CHECK(v[0] == 0.0f);
}
