// Seed 003 (samples/README.md): ask for /GPU:1 with soft placement off (an error), then on (eagle
// picks a device).
//   tf.config.set_soft_device_placement(False)
//   with tf.device('/GPU:1'):
//     a = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
//     b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
//     c = tf.matmul(a, b)
#include <eagle/eagle.hpp>

namespace {

eagle::Tensor tower() {
  auto scope = eagle::device("/GPU:1");
  const auto a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  const auto b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  return eagle::matmul(a, b);
}

}  // namespace

int main() {
  eagle::debugging::set_log_sink(
      [](eagle::debugging::LogLevel, std::string_view line) { fmt::print("{}\n", line); });
  eagle::debugging::set_log_device_placement(true);
  fmt::print("Logical devices:");
  for (const auto& d : eagle::config::list_logical_devices()) fmt::print(" {}", d.name);
  fmt::print("\n\n>>> eagle::config::set_soft_device_placement(false)\n");

  eagle::config::set_soft_device_placement(false);
  try {
    tower();
    fmt::print("unexpected: /GPU:1 exists here\n");
  } catch (const eagle::InvalidArgumentError& e) {
    fmt::print("InvalidArgumentError: {}\n", e.what());
  }

  fmt::print("\n>>> eagle::config::set_soft_device_placement(true)\n");
  eagle::config::set_soft_device_placement(true);
  const auto c = tower();
  fmt::print("{}\n", c);
  return 0;
}
