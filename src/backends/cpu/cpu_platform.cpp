#include "cpu/cpu_platform.hpp"

#include <unistd.h>

#include <fstream>
#include <string>

namespace eagle::cpu {
namespace {

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) break;
    const auto start = line.find_first_not_of(' ', colon + 1);
    if (start != std::string::npos) return line.substr(start);
  }
  return "CPU";
}

}  // namespace

runtime::PhysicalDeviceInfo CpuPlatform::info(int) const {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  runtime::PhysicalDeviceInfo info;
  info.device_name = cpu_model_name();
  if (pages > 0 && page_size > 0) {
    info.total_memory = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size);
  }
  return info;
}

}  // namespace eagle::cpu
