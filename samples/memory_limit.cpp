// Seed 003 "限制GPU使用和显存增长": a hard memory limit through a logical device configuration
// (seeds 000, 002 §四 and 004 do the same with per_process_gpu_memory_fraction; the seeds:
// samples/README.md).
//   gpus = tf.config.list_physical_devices('GPU')
//   tf.config.set_logical_device_configuration(            # 为GPU:0配置一个逻辑设备,并分配1GB显存
//       gpus[0],
//       [tf.config.LogicalDeviceConfiguration(memory_limit=1024)])
//   tf.config.list_logical_devices('GPU')
//   # [LogicalDevice(name='/device:GPU:0', device_type='GPU')]
// then, beyond the seed: what fits in 1 GiB, what does not (a ResourceExhaustedError the program
// catches), and that the device keeps working after it.
//
// On a machine without a CUDA GPU this runs on one simulated 16 GiB GPU (docs/guide.md,
// "Simulated GPUs").
#include <eagle/eagle.hpp>

#include "sample_support.hpp"

int main() {
  eagle_samples::start(1);

  const auto gpus = eagle::config::list_physical_devices("GPU");
  if (gpus.empty()) {
    fmt::print("No GPU: nothing to limit.\nDone.\n");
    return 0;
  }
  fmt::print("\n>>> auto gpus = eagle::config::list_physical_devices(\"GPU\");\n");
  fmt::print(
      ">>> eagle::config::set_logical_device_configuration(\n"
      "...     gpus[0], {{eagle::config::LogicalDeviceConfiguration{{1024}}}});\n");
  eagle::config::set_logical_device_configuration(
      gpus[0], {eagle::config::LogicalDeviceConfiguration{1024}});
  const auto logical = eagle_samples::list_logical_gpus();

  fmt::print(
      "\nGPU:0 may now hold at most 1024 MiB. Without memory growth its allocator takes\n"
      "all of it at the first allocation:\n");
  fmt::print(">>> auto scope = eagle::device(\"/GPU:0\");\n");
  fmt::print(">>> auto a = eagle::ones({{256, 1024}});  // 1 MiB: fits\n");
  auto scope = eagle::device("/GPU:0");
  const auto a = eagle::ones({256, 1024});
  fmt::print("a.device(): {}\n", a.device());
  eagle_samples::print_memory_info("GPU:0");

  fmt::print("\n2 GiB does not fit in 1 GiB:\n");
  fmt::print(">>> auto big = eagle::zeros({{512, 1024, 1024}});  // 2 GiB\n");
  try {
    const auto big = eagle::zeros({512, 1024, 1024});
    fmt::print("unexpected: allocated {} on {}\n", big.shape().to_string(), big.device());
  } catch (const eagle::ResourceExhaustedError& e) {
    fmt::print("ResourceExhaustedError: {}\n", e.what());
  }

  fmt::print(
      "\nThe error is an exception like any other: the program goes on, GPU:0 still works\n"
      "and what it held is intact.\n");
  fmt::print(">>> eagle::debugging::set_log_device_placement(true);\n");
  fmt::print(
      ">>> auto b = eagle::constant({{1.0, 2.0, 3.0, 4.0, 5.0, 6.0}}, eagle::Shape{{2, 3}});\n");
  fmt::print(
      ">>> auto c = eagle::constant({{1.0, 2.0, 3.0, 4.0, 5.0, 6.0}}, eagle::Shape{{3, 2}});\n");
  fmt::print(">>> auto d = eagle::matmul(b, c);\n");
  eagle::debugging::set_log_device_placement(true);
  const auto b = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{2, 3});
  const auto c = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{3, 2});
  const auto d = eagle::matmul(b, c);
  eagle::debugging::set_log_device_placement(false);
  fmt::print("{}\n", d);
  fmt::print(">>> eagle::reduce_sum(a)\n");
  fmt::print("{}  (256 * 1024 ones, still there)\n", eagle::format_values(eagle::reduce_sum(a)));
  eagle_samples::print_memory_info("GPU:0");
  fmt::print("Done.\n");
  return 0;
}
