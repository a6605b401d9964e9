// Seed 002 §六 "使用多GPU" (samples/README.md): a multi-tower model, one tower per GPU, the towers'
// results summed on the CPU.
//   c = []
//   for d in ['/device:GPU:2', '/device:GPU:3']:
//     with tf.device(d):
//       a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
//       b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
//       c.append(tf.matmul(a, b))
//   with tf.device('/cpu:0'):
//     sum = tf.add_n(c)
//   print(sess.run(sum))
// which the seed shows running on a machine with four GPUs as
//   MatMul_1: /job:localhost/replica:0/task:0/device:GPU:3
//   MatMul: /job:localhost/replica:0/task:0/device:GPU:2
//   AddN: /job:localhost/replica:0/task:0/cpu:0
//   [[  44.   56.]
//    [  98.  128.]]
//
// On a machine without a CUDA GPU this runs on four simulated 16 GiB GPUs (docs/guide.md,
// "Simulated GPUs"). With fewer real GPUs than four, soft placement (on by default) moves the
// missing towers to GPU:0.
#include <cstddef>
#include <string>
#include <vector>

#include <eagle/eagle.hpp>

#include "sample_support.hpp"

int main() {
  eagle_samples::start(4);

  // The seed's "Device mapping": one logical GPU per physical GPU here.
  fmt::print("\nDevice mapping:\n");
  const auto gpus = eagle::config::list_physical_devices("GPU");
  const auto logical = eagle::config::list_logical_devices("GPU");
  for (std::size_t i = 0; i < logical.size() && i < gpus.size(); ++i) {
    fmt::print("/job:localhost/replica:0/task:0{} -> device: {}, name: {}\n", logical[i].name, i,
               eagle::config::get_device_details(gpus[i]).device_name);
  }

  fmt::print("{}", R"(
>>> eagle::debugging::set_log_device_placement(true);
>>> std::vector<eagle::Tensor> c;
>>> for (const char* d : {"/device:GPU:2", "/device:GPU:3"}) {
...   auto scope = eagle::device(d);
...   auto a = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{2, 3});
...   auto b = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{3, 2});
...   c.push_back(eagle::matmul(a, b));
... }
>>> eagle::Tensor sum;
>>> {
...   auto scope = eagle::device("/cpu:0");
...   sum = eagle::add_n(c);
... }
)");
  eagle::debugging::set_log_device_placement(true);
  std::vector<eagle::Tensor> c;
  std::vector<std::string> constant_devices;
  for (const char* d : {"/device:GPU:2", "/device:GPU:3"}) {
    const auto tower = eagle_samples::matmul_tower(d);
    constant_devices.push_back(tower.a.device());
    constant_devices.push_back(tower.b.device());
    c.push_back(tower.c);
  }
  eagle::Tensor sum;
  {
    auto scope = eagle::device("/cpu:0");
    sum = eagle::add_n(c);
  }
  eagle::debugging::set_log_device_placement(false);

  fmt::print(">>> fmt::print(\"{{}}\\n\", eagle::format_values(sum));\n");
  fmt::print("{}\n", eagle::format_values(sum));

  // Constants are data, not ops: they print no placement line. Where they went:
  fmt::print("\nWhere every tensor lives (constants log nothing, so ask them):\n");
  fmt::print("a (tower 0): {}\nb (tower 0): {}\n", constant_devices[0], constant_devices[1]);
  fmt::print("a (tower 1): {}\nb (tower 1): {}\n", constant_devices[2], constant_devices[3]);
  fmt::print("c[0]: {}\nc[1]: {}\nsum:  {}\n", c[0].device(), c[1].device(), sum.device());
  fmt::print("Done.\n");
  return 0;
}
