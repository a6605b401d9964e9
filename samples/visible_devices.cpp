// Seed 003 "限制GPU使用和显存增长" (samples/README.md): choose which GPUs the process uses (what
// seeds 000 and 004 do with CUDA_VISIBLE_DEVICES, before the program starts).
//   tf.config.list_physical_devices()
//   # [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU'),
//   #  PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU'),
//   #  PhysicalDevice(name='/physical_device:GPU:1', device_type='GPU')]
//   tf.config.set_visible_devices(tf.config.list_physical_devices('GPU')[0], 'GPU')   # 仅使用GPU:0
//   tf.config.list_logical_devices()
//   # [LogicalDevice(name='/device:CPU:0', device_type='CPU'),                # 逻辑设备中仅有GPU:0
//   #  LogicalDevice(name='/device:GPU:0', device_type='GPU')]
// With the argument --no-gpu, the seed's other example instead:
//   tf.config.set_visible_devices([], 'GPU')                 # 不使用GPU
//   tf.config.list_logical_devices()                         # 初始化设备
//   # [LogicalDevice(name='/device:CPU:0', device_type='CPU')]  # 逻辑设备中没有GPU
// Both then show that the choice is frozen once the runtime has started.
//
// On a machine without a CUDA GPU this runs on two simulated 16 GiB GPUs (docs/guide.md,
// "Simulated GPUs").
#include <string_view>
#include <vector>

#include <eagle/eagle.hpp>

#include "sample_support.hpp"

int main(int argc, char** argv) {
  const bool no_gpu = argc > 1 && std::string_view(argv[1]) == "--no-gpu";
  eagle_samples::start(2);

  fmt::print("\n>>> eagle::config::list_physical_devices()\n");
  eagle_samples::print_devices("PhysicalDevice", eagle::config::list_physical_devices());
  const auto gpus = eagle::config::list_physical_devices("GPU");

  std::vector<eagle::config::PhysicalDevice> visible;
  if (no_gpu) {
    fmt::print(">>> eagle::config::set_visible_devices({{}}, \"GPU\");  // no GPU\n");
  } else {
    fmt::print(
        ">>> eagle::config::set_visible_devices(eagle::config::list_physical_devices(\"GPU\")[0], "
        "\"GPU\");  // GPU:0 only\n");
    if (!gpus.empty()) visible.push_back(gpus[0]);
  }
  eagle::config::set_visible_devices(visible, "GPU");
  fmt::print(">>> eagle::config::get_visible_devices()\n");
  eagle_samples::print_devices("PhysicalDevice", eagle::config::get_visible_devices());

  // The runtime starts here.
  fmt::print(">>> eagle::config::list_logical_devices()  // initializes the devices\n");
  eagle_samples::print_devices("LogicalDevice", eagle::config::list_logical_devices());

  fmt::print("\nWhere does a matmul go now? (GPU:0 when a GPU is visible, else CPU:0)\n");
  fmt::print(">>> eagle::debugging::set_log_device_placement(true);\n");
  fmt::print(">>> auto a = eagle::constant({{{{1.0, 2.0, 3.0}}, {{4.0, 5.0, 6.0}}}});\n");
  fmt::print(">>> auto b = eagle::constant({{{{1.0, 2.0}}, {{3.0, 4.0}}, {{5.0, 6.0}}}});\n");
  fmt::print(">>> auto c = eagle::matmul(a, b);\n");
  eagle::debugging::set_log_device_placement(true);
  const auto a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  const auto b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  const auto c = eagle::matmul(a, b);
  fmt::print("{}\n", eagle::format_values(c));
  eagle::debugging::set_log_device_placement(false);

  fmt::print(
      "\nThe devices are initialized now: the visible set is frozen. Asking for the same set\n"
      "again is allowed (it changes nothing); anything else is an error.\n");
  fmt::print(
      ">>> eagle::config::set_visible_devices(eagle::config::get_visible_devices(\"GPU\"), "
      "\"GPU\");\n");
  eagle::config::set_visible_devices(eagle::config::get_visible_devices("GPU"), "GPU");
  fmt::print("(no error)\n");
  // A different choice now: no GPU after "GPU:0 only", every GPU after "no GPU".
  try {
    if (no_gpu) {
      fmt::print(
          ">>> eagle::config::set_visible_devices(eagle::config::list_physical_devices("
          "\"GPU\"), \"GPU\");\n");
      eagle::config::set_visible_devices(gpus, "GPU");
    } else {
      fmt::print(">>> eagle::config::set_visible_devices({{}}, \"GPU\");\n");
      eagle::config::set_visible_devices(std::vector<eagle::config::PhysicalDevice>{}, "GPU");
    }
    fmt::print("(no error: that changed nothing here)\n");
  } catch (const eagle::FailedPreconditionError& e) {
    fmt::print("FailedPreconditionError: {}\n", e.what());
  }
  fmt::print(
      "To use another set of GPUs, start the program again (or set CUDA_VISIBLE_DEVICES\n"
      "before starting it, as seeds 000 and 004 do).\n");
  fmt::print("Done.\n");
  return 0;
}
