#include "runtime/device.hpp"

#include <cstring>

#include <fmt/format.h>

#include "eagle/errors.hpp"

namespace eagle::runtime {

std::string_view device_type_name(DeviceType type) {
  return type == DeviceType::kGPU ? "GPU" : "CPU";
}

Device::Device(DeviceType type, int id)
    : type_(type),
      id_(id),
      parsed_name_(DeviceName::local(device_type_name(type), id)),
      name_(parsed_name_.to_string()) {}

Device::Device(DeviceType type, int id, const DeviceName& name, bool remote)
    : type_(type), id_(id), parsed_name_(name), name_(name.to_string()), remote_(remote) {}

void Device::rename_task(const std::string& job, std::int64_t task) {
  parsed_name_.job = job;
  parsed_name_.task = task;
  name_ = parsed_name_.to_string();
  scope_spec_id_.store(0, std::memory_order_release);  // interned under the old name
}

void Device::copy_within(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0 || dst == src) return;
  if (host_accessible()) {
    std::memcpy(dst, src, bytes);
  } else if (!copy_to_device(*this, dst, src, bytes)) {
    throw InternalError(fmt::format("{} could not copy within its own memory", name()));
  }
}

}  // namespace eagle::runtime
