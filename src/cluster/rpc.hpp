// The cluster's transport, behind a header without gRPC in it (Note [Cluster transport]): the
// rest of eagle sees plain structs, and a build without gRPC links no_rpc.cpp instead.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "eagle/dtype.hpp"

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
  std::uint64_t tensors_held = 0;  // tensors clients keep there (remote execution)
};

// A tensor's value between tasks: numbers as their bytes, strings one by one.
struct WireTensor {
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;
  std::string bytes;
  std::vector<std::string> strings;
};

struct WireSpec {
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;
};

// What every remote-execution call carries (eagle_service.proto, CallHeader).
struct CallHeader {
  std::uint64_t client = 0;
  std::uint64_t incarnation = 0;
  std::vector<std::uint64_t> releases;
};

// One op on one of the task's devices.
struct EnqueueCall {
  std::string device;  // the task's own name for it: "/device:CPU:0"
  std::uint32_t op = 0;
  DType kernel_dtype = DType::kFloat32;
  std::vector<std::uint64_t> inputs;
  std::uint32_t resource_inputs = 0;
  std::vector<WireSpec> outputs;
  std::vector<std::uint64_t> output_handles;
  std::string attrs;  // attrs_codec.hpp
};

// What a server does when called; its functions run on the transport's threads and may throw
// eagle::Error, which the caller receives as the same class and text. The remote-execution
// functions first see the header (check_header: the incarnation, then the releases).
struct TaskService {
  std::function<TaskInfo()> get_task_info;
  std::function<void(const CallHeader&)> check_header;
  std::function<void(const CallHeader&, const EnqueueCall&)> enqueue;
  std::function<void(const CallHeader&, const std::string& device, std::uint64_t handle,
                     WireTensor value)>
      send_tensor;
  std::function<WireTensor(const CallHeader&, std::uint64_t handle)> fetch_tensor;
  std::function<void(const CallHeader&, const std::string& device, std::uint64_t source,
                     std::uint64_t destination)>
      copy_tensor;
};

// A client's channel to one task; thread-safe. Each call waits at most the client's call timeout;
// UnavailableError / DeadlineExceededError name the task when it does not answer.
class TaskClient {
 public:
  virtual ~TaskClient() = default;
  virtual void enqueue(const CallHeader& header, const EnqueueCall& call) = 0;
  virtual void send_tensor(const CallHeader& header, const std::string& device,
                           std::uint64_t handle, const WireTensor& value) = 0;
  virtual WireTensor fetch_tensor(const CallHeader& header, std::uint64_t handle) = 0;
  virtual void copy_tensor(const CallHeader& header, const std::string& device,
                           std::uint64_t source, std::uint64_t destination) = 0;
  virtual void release_handles(const CallHeader& header) = 0;
};

std::unique_ptr<TaskClient> make_task_client(const std::string& address,
                                             const std::string& task_name,
                                             std::chrono::milliseconds call_timeout);

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
