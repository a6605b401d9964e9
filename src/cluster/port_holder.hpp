// Who holds a TCP port: what a "port in use" error can say beyond errno.
#pragma once

#include <optional>
#include <string>

namespace eagle::cluster {

// "process 4242 (python3)" for the process listening on `port` (TCP, IPv4 or IPv6), as far as
// /proc tells: nullopt when no listener is found, or when it belongs to a process this one may
// not inspect (another user's).
std::optional<std::string> describe_port_holder(int port);

}  // namespace eagle::cluster
