// Helpers the sample programs share: what they print about the GPUs, device lists and memory, in
// the form the seed tutorials show (samples/README.md), and the seeds' matmul tower. For the
// samples only; not part of the eagle library.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <eagle/eagle.hpp>

namespace eagle_samples {

// Says whether the GPUs below are CUDA devices or simulated ones.
inline void print_gpu_kind() {
  const auto gpus = eagle::config::list_physical_devices("GPU");
  if (gpus.empty()) {
    fmt::print("Running on the CPU only (no GPU)\n");
    return;
  }
  const auto details = eagle::config::get_device_details(gpus[0]);
  const char* plural = gpus.size() == 1 ? "" : "s";
  if (details.device_name == "Simulated GPU") {
    fmt::print("Running on {} simulated GPU{} (no CUDA GPU found)\n", gpus.size(), plural);
  } else {
    fmt::print("Running on {} CUDA GPU{}: {}\n", gpus.size(), plural, details.device_name);
  }
}

// How a sample starts: without a CUDA GPU, `simulated_gpus` simulated ones (docs/guide.md,
// "Simulated GPUs"); log lines on stdout, in order with everything the sample prints (placement
// lines bare, warnings prefixed "WARNING:eagle:" as the default sink prints them); then which GPUs
// run it.
inline void start(int simulated_gpus) {
  eagle::config::simulate_gpus_when_absent(simulated_gpus);
  eagle::debugging::set_log_sink([](eagle::debugging::LogLevel level, std::string_view line) {
    fmt::print("{}{}\n", level == eagle::debugging::LogLevel::kWarning ? "WARNING:eagle:" : "",
               line);
  });
  print_gpu_kind();
}

// 256 B, 256 KiB, 2 MiB, 14584 MiB: bytes in the unit that reads best.
inline std::string human(std::size_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:g} KiB", bytes / 1024.0);
  return fmt::format("{:g} MiB", bytes / 1048576.0);
}

// The call get_memory_info(device) as the REPL shows it, its result as TensorFlow's dict, then
// the same in readable units on a line that starts with `lead`.
inline void print_memory_info(const std::string& device, std::string_view lead = "    ") {
  const auto info = eagle::config::get_memory_info(device);
  fmt::print(">>> eagle::config::get_memory_info(\"{}\")\n", device);
  fmt::print("{{'current': {}, 'peak': {}, 'reserved': {}, 'limit': {}}}\n", info.current,
             info.peak, info.reserved, info.limit);
  fmt::print("{}current {}, peak {}, reserved {}, limit {}\n", lead, human(info.current),
             human(info.peak), human(info.reserved), human(info.limit));
}

// Python's repr of a device list, as seed 003 shows it; `kind` is "PhysicalDevice" or
// "LogicalDevice".
template <class Device>
void print_devices(const char* kind, const std::vector<Device>& devices) {
  fmt::print("[");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    fmt::print("{}{}(name='{}', device_type='{}')", i ? ",\n " : "", kind, devices[i].name,
               devices[i].device_type);
  }
  fmt::print("]\n");
}

// The call list_logical_devices("GPU") as the REPL shows it, then its result, which it returns.
// The first call starts the runtime.
inline std::vector<eagle::config::LogicalDevice> list_logical_gpus() {
  fmt::print(">>> eagle::config::list_logical_devices(\"GPU\")\n");
  auto logical = eagle::config::list_logical_devices("GPU");
  print_devices("LogicalDevice", logical);
  return logical;
}

// One tower of seed 002 §六 and seed 003: two constants and their matmul, all on `device`.
struct Tower {
  eagle::Tensor a, b, c;
};

inline Tower matmul_tower(const char* device) {
  auto scope = eagle::device(device);
  Tower tower;
  tower.a = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{2, 3});
  tower.b = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{3, 2});
  tower.c = eagle::matmul(tower.a, tower.b);
  return tower;
}

}  // namespace eagle_samples
