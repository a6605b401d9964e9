// The devices of the other tasks of the cluster this process joined
// (config::experimental_connect_to_cluster): what the cluster room found, kept where the core's
// device listing reads it (the core does not depend on the cluster room).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace eagle::runtime {

struct RemoteDeviceEntry {
  std::string name;               // "/job:local/replica:0/task:1/device:CPU:0"
  std::string device_type;        // "CPU"
  std::string task;               // "/job:local/replica:0/task:1"
  std::string address;            // "localhost:2223"
  std::uint64_t incarnation = 0;  // of the task's server when it answered
};

// Replaces the table: this process is now connected to a cluster whose other tasks hold
// `devices` (in the cluster's order). Thread-safe.
void set_remote_devices(std::vector<RemoteDeviceEntry> devices);
// The table; empty when not connected. Thread-safe.
std::vector<RemoteDeviceEntry> remote_devices();
// True once set_remote_devices was called (a cluster of one task has no remote devices).
bool connected_to_cluster();

}  // namespace eagle::runtime
