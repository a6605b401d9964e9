// Seed 002 §三 (samples/README.md): pin the constants to the CPU; the op outside the scope is
// placed automatically.
//   with tf.device('/cpu:0'):
//     a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')
//     b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')
//   c = tf.matmul(a, b)
#include <eagle/eagle.hpp>

int main() {
  eagle::debugging::set_log_sink(
      [](eagle::debugging::LogLevel, std::string_view line) { fmt::print("{}\n", line); });
  eagle::debugging::set_log_device_placement(true);

  eagle::Tensor a, b;
  {
    auto scope = eagle::device("/cpu:0");
    a = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{2, 3});
    b = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{3, 2});
  }
  const auto c = eagle::matmul(a, b);  // automatic placement: GPU:0 if there is one, else CPU:0
  fmt::print("b: {}\na: {}\nMatMul: {}\n{}\n", b.device(), a.device(), c.device(),
             eagle::format_values(c));
  return 0;
}
