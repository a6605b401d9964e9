// Seed 003 "使用单个 GPU 模拟多个 GPU" (samples/README.md): split one GPU into two logical GPUs of
// 1 GiB each, so that multi-GPU code can be tried on a single card.
//   gpus = tf.config.list_physical_devices('GPU')
//   tf.config.set_logical_device_configuration(
//       gpus[0],
//       [tf.config.LogicalDeviceConfiguration(memory_limit=1024),
//        tf.config.LogicalDeviceConfiguration(memory_limit=1024)])
//   tf.config.list_logical_devices('GPU')
//   # [LogicalDevice(name='/device:GPU:0', device_type='GPU'),
//   #  LogicalDevice(name='/device:GPU:1', device_type='GPU')]
// The seed goes on with tf.distribute.MirroredStrategy (a later eagle milestone); here each
// logical GPU runs the seeds' matmul under its own device scope instead.
//
// On a machine without a CUDA GPU this runs on one simulated 16 GiB GPU (docs/guide.md,
// "Simulated GPUs").
#include <cstddef>
#include <vector>

#include <eagle/eagle.hpp>

#include "sample_support.hpp"

int main() {
  eagle_samples::start(1);

  const auto gpus = eagle::config::list_physical_devices("GPU");
  if (gpus.empty()) {
    fmt::print("No GPU to split.\nDone.\n");
    return 0;
  }
  fmt::print("\n>>> auto gpus = eagle::config::list_physical_devices(\"GPU\");\n");
  fmt::print(">>> eagle::config::set_logical_device_configuration(\n");
  fmt::print("...     gpus[0], {{eagle::config::LogicalDeviceConfiguration{{1024}},\n");
  fmt::print("...               eagle::config::LogicalDeviceConfiguration{{1024}}}});\n");
  eagle::config::set_logical_device_configuration(
      gpus[0], {eagle::config::LogicalDeviceConfiguration{1024},
                eagle::config::LogicalDeviceConfiguration{1024}});
  const auto logical = eagle_samples::list_logical_gpus();

  fmt::print(
      "\nEach logical GPU is a device of its own: a scope picks it, ops run there, and it\n"
      "has its own allocator and its own 1 GiB limit on the shared card.\n");
  fmt::print(">>> eagle::debugging::set_log_device_placement(true);\n");
  fmt::print(">>> std::vector<eagle::Tensor> c;\n");
  fmt::print(">>> for (const char* d : {{\"/GPU:0\", \"/GPU:1\"}}) {{\n");
  fmt::print("...   auto scope = eagle::device(d);\n");
  fmt::print(
      "...   auto a = eagle::constant({{1.0, 2.0, 3.0, 4.0, 5.0, 6.0}}, eagle::Shape{{2, 3}});\n");
  fmt::print(
      "...   auto b = eagle::constant({{1.0, 2.0, 3.0, 4.0, 5.0, 6.0}}, eagle::Shape{{3, 2}});\n");
  fmt::print("...   c.push_back(eagle::matmul(a, b));\n");
  fmt::print("... }}\n");
  eagle::debugging::set_log_device_placement(true);
  std::vector<eagle::Tensor> c;
  for (const char* d : {"/GPU:0", "/GPU:1"}) c.push_back(eagle_samples::matmul_tower(d).c);
  for (std::size_t i = 0; i < c.size(); ++i) fmt::print("c[{}]: {}\n", i, c[i]);

  fmt::print("\nAnd summed on the CPU, as the towers of seed 002 do:\n");
  fmt::print(">>> auto sum = eagle::with_device(\"/CPU:0\", [&] {{ return eagle::add_n(c); }});\n");
  const auto sum = eagle::with_device("/CPU:0", [&] { return eagle::add_n(c); });
  fmt::print("{}\n", eagle::format_values(sum));
  eagle::debugging::set_log_device_placement(false);

  fmt::print("\nMemory of each logical GPU:\n");
  for (const auto& d : logical) {
    const auto info = eagle::config::get_memory_info(d.name);
    fmt::print("{}: current {}, reserved {}, limit {}\n", d.name,
               eagle_samples::human(info.current), eagle_samples::human(info.reserved),
               eagle_samples::human(info.limit));
  }
  fmt::print("Done.\n");
  return 0;
}
