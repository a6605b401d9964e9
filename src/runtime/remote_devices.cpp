#include "runtime/remote_devices.hpp"

#include <mutex>

#include "runtime/context.hpp"

namespace eagle::runtime {
namespace {

struct Table {
  std::mutex mutex;
  bool connected = false;
  std::vector<std::shared_ptr<RemoteDevice>> devices;
  // Replaced devices are kept: tensors and placement caches hold them by plain pointer.
  std::vector<std::shared_ptr<RemoteDevice>> retired;
};

Table& table() {
  static Table* const instance = new Table();  // never destroyed: read by threads at exit
  return *instance;
}

}  // namespace

void set_remote_devices(std::vector<std::shared_ptr<RemoteDevice>> devices) {
  Table& t = table();
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    t.retired.insert(t.retired.end(), t.devices.begin(), t.devices.end());
    t.devices = std::move(devices);
    t.connected = true;
  }
  Context::get().devices_changed();
}

std::vector<std::shared_ptr<RemoteDevice>> remote_devices() {
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
