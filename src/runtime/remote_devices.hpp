// The devices of the other tasks of the cluster this process joined
// (config::experimental_connect_to_cluster): made by the cluster room, kept where the core's
// placement and device listing read them (the core does not depend on the cluster room).
#pragma once

#include <memory>
#include <vector>

#include "runtime/remote_device.hpp"

namespace eagle::runtime {

// Replaces the table: this process is now connected to a cluster whose other tasks hold
// `devices` (in the cluster's order), and bumps the placement caches' version. Devices replaced
// stay alive while tensors on them do. Thread-safe.
void set_remote_devices(std::vector<std::shared_ptr<RemoteDevice>> devices);
// The table; empty when not connected. Thread-safe.
std::vector<std::shared_ptr<RemoteDevice>> remote_devices();
// True once set_remote_devices was called (a cluster of one task has no remote devices).
bool connected_to_cluster();

}  // namespace eagle::runtime
