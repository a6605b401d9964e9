// The cluster's transport, behind a header without gRPC in it (Note [Cluster transport]): the
// rest of eagle sees plain structs, and a build without gRPC links no_rpc.cpp instead.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace eagle::cluster {

struct RemoteDevice {
  std::string name;         // "/job:local/replica:0/task:1/device:CPU:0"
  std::string device_type;  // "CPU"
};

// What GetTaskInfo answers.
struct TaskInfo {
  std::string job_name;
  std::int64_t task_index = 0;
  std::uint64_t incarnation = 0;
  std::vector<RemoteDevice> devices;
};

// What a server does when called; its functions run on the transport's threads and may throw
// eagle::Error, which the caller receives as the same class and text.
struct TaskService {
  std::function<TaskInfo()> get_task_info;
};

// A listening server. Destroying it stops it (shutdown() first when it is still serving).
class RpcServer {
 public:
  virtual ~RpcServer() = default;
  virtual int bound_port() const = 0;
  // Refuses new calls, lets those in flight finish for up to `grace`, then cancels them.
  virtual void shutdown(std::chrono::milliseconds grace) = 0;
};

// Binds `bind_host`:`port` ("localhost", 2222; port 0: one the system chooses) and serves
// `service`. UnknownError "Could not start gRPC server: ..." naming `task_address` (the cluster's
// spelling) and, for a port in use, the process that holds it.
std::unique_ptr<RpcServer> start_rpc_server(const std::string& bind_host, int port,
                                            const std::string& task_address,
                                            std::shared_ptr<const TaskService> service);

// Calls GetTaskInfo on the task at `address` ("localhost:2222"), waiting at most `timeout`.
// UnavailableError / DeadlineExceededError naming `task_name` when it does not answer.
TaskInfo get_task_info(const std::string& address, const std::string& task_name,
                       std::chrono::milliseconds timeout);

}  // namespace eagle::cluster
