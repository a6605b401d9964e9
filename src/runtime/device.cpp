#include "runtime/device.hpp"

namespace eagle::runtime {

std::string_view device_type_name(DeviceType type) {
  return type == DeviceType::kGPU ? "GPU" : "CPU";
}

Device::Device(DeviceType type, int id)
    : type_(type),
      id_(id),
      parsed_name_(DeviceName::local(device_type_name(type), id)),
      name_(parsed_name_.to_string()) {}

}  // namespace eagle::runtime
