// Seed 003 "限制GPU使用和显存增长" (and seeds 000, 002 §四, 004 on allow_growth;
// samples/README.md): turn on memory growth before the runtime starts, so each GPU's allocator
// takes device memory as it needs it instead of nearly all of it at the first allocation.
//   gpus = tf.config.list_physical_devices('GPU')
//   if gpus:
//       for gpu in gpus:
//           tf.config.experimental.set_memory_growth(gpu, True)
//   tf.config.list_logical_devices('GPU')
//   # [LogicalDevice(name='/device:GPU:0', device_type='GPU')]
// then, beyond the seed, a tensor on GPU:0 and tf.config.experimental.get_memory_info('GPU:0').
//
// On a machine without a CUDA GPU this runs on one simulated 16 GiB GPU (docs/guide.md,
// "Simulated GPUs").
#include <cstddef>

#include <eagle/eagle.hpp>

#include "sample_support.hpp"

int main() {
  eagle::config::simulate_gpus_when_absent(1);
  eagle_samples::print_gpu_kind();

  fmt::print("\n>>> auto gpus = eagle::config::list_physical_devices(\"GPU\");\n");
  fmt::print(">>> for (const auto& gpu : gpus) eagle::config::set_memory_growth(gpu, true);\n");
  const auto gpus = eagle::config::list_physical_devices("GPU");
  for (const auto& gpu : gpus) eagle::config::set_memory_growth(gpu, true);
  for (const auto& gpu : gpus) {
    fmt::print("get_memory_growth({}) = {}\n", gpu.name,
               eagle::config::get_memory_growth(gpu).value_or(false));
  }

  // The runtime starts here: from now on the configuration is frozen.
  const auto logical = eagle_samples::list_logical_gpus();
  if (logical.empty()) {
    fmt::print("No GPU: nothing to grow.\nDone.\n");
    return 0;
  }

  fmt::print("\nNothing is allocated yet:\n");
  eagle_samples::print_memory_info("GPU:0");

  std::size_t first = 0, second = 0, third = 0;
  {
    fmt::print(
        "\nA 256x256 float tensor (256 KiB) on GPU:0. With growth the allocator reserves a\n"
        "first region of 2 MiB, not the whole limit:\n");
    fmt::print(">>> auto scope = eagle::device(\"/GPU:0\");\n");
    fmt::print(">>> auto x = eagle::ones({{256, 256}});\n");
    auto scope = eagle::device("/GPU:0");
    const auto x = eagle::ones({256, 256});
    fmt::print("x.device(): {}\n", x.device());
    eagle_samples::print_memory_info("GPU:0");
    first = eagle::config::get_memory_info("GPU:0").reserved;

    fmt::print(
        "\nA 1024x1024 float tensor (4 MiB) does not fit in what is left: the allocator\n"
        "takes another region (each new one at least double the last):\n");
    fmt::print(">>> auto y = eagle::ones({{1024, 1024}});\n");
    const auto y = eagle::ones({1024, 1024});
    eagle_samples::print_memory_info("GPU:0");
    second = eagle::config::get_memory_info("GPU:0").reserved;

    fmt::print("\nAnd a 4096x4096 one (64 MiB):\n");
    fmt::print(">>> auto z = eagle::ones({{4096, 4096}});\n");
    const auto z = eagle::ones({4096, 4096});
    eagle_samples::print_memory_info("GPU:0");
    third = eagle::config::get_memory_info("GPU:0").reserved;
  }
  fmt::print("\nReserved memory: {} -> {} -> {} ({}).\n", eagle_samples::human(first),
             eagle_samples::human(second), eagle_samples::human(third),
             first < second && second < third ? "it grew with the tensors" : "unexpected");

  fmt::print(
      "\nThe tensors are gone, but as the seed says, growth never gives memory back by\n"
      "itself (that would fragment it); the regions stay reserved for later tensors:\n");
  eagle_samples::print_memory_info("GPU:0");
  fmt::print("\neagle can return fully free regions on request (TensorFlow cannot):\n");
  fmt::print(">>> eagle::config::release_unused_memory(\"GPU:0\")\n");
  const auto released = eagle::config::release_unused_memory("GPU:0");
  fmt::print("{} bytes released ({})\n", released, eagle_samples::human(released));
  eagle_samples::print_memory_info("GPU:0");

  fmt::print(
      "\nWithout memory growth the first allocation would have reserved the whole limit\n"
      "({}); see samples/memory_limit.cpp.\n",
      eagle_samples::human(eagle::config::get_memory_info("GPU:0").limit));
  fmt::print("Done.\n");
  return 0;
}
