// Seed 002 §二 / seed 004 (samples/README.md): log where each op runs.
//   tf.debugging.set_log_device_placement(True)
//   a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')
//   b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')
//   c = tf.matmul(a, b)
#include <eagle/eagle.hpp>

int main() {
  // Placement lines go to the log sink (stderr by default); send them to stdout here so the
  // lines and the values appear in order.
  eagle::debugging::set_log_sink(
      [](eagle::debugging::LogLevel, std::string_view line) { fmt::print("{}\n", line); });
  eagle::debugging::set_log_device_placement(true);

  const auto a = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{2, 3});
  const auto b = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{3, 2});
  fmt::print("a.device: {}\nb.device: {}\n", a.device(), b.device());
  const auto c = eagle::matmul(a, b);
  fmt::print("c.device: {}\n{}\n", c.device(), eagle::format_values(c));
  if (eagle::config::list_logical_devices("GPU").empty()) {
    fmt::print("(no GPU here: MatMul has a GPU kernel and would run on GPU:0 on a GPU machine)\n");
  }
  return 0;
}
