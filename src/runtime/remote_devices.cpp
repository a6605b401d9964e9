#include "runtime/remote_devices.hpp"

#include <mutex>

namespace eagle::runtime {
namespace {

struct Table {
  std::mutex mutex;
  bool connected = false;
  std::vector<RemoteDeviceEntry> devices;
};

Table& table() {
  static Table* const instance = new Table();  // never destroyed: read by threads at exit
  return *instance;
}

}  // namespace

void set_remote_devices(std::vector<RemoteDeviceEntry> devices) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.devices = std::move(devices);
  t.connected = true;
}

std::vector<RemoteDeviceEntry> remote_devices() {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.devices;
}

bool connected_to_cluster() {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.connected;
}

}  // namespace eagle::runtime
