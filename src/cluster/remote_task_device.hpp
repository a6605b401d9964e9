// The client's side of remote execution: a device of another task (Note [Remote devices] in
// src/runtime/remote_device.hpp), and the connection to that task its devices share.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/rpc.hpp"
#include "eagle/shape.hpp"
#include "runtime/remote_device.hpp"

namespace eagle::cluster {

// One task this process connected to: its client, the handles this process keeps there (with
// their dtypes and shapes, which copies need) and the handles dropped since the last call, which
// the next call carries. Thread-safe.
class TaskConnection {
 public:
  TaskConnection(std::string task_name, std::uint64_t incarnation,
                 std::unique_ptr<TaskClient> client);

  const std::string& task_name() const { return task_name_; }
  std::uint64_t new_handle(const Shape& shape, DType dtype);
  void release(std::uint64_t handle) noexcept;
  WireSpec spec(std::uint64_t handle) const;

  // Runs `call` with a header carrying the pending releases (back in the queue if it fails).
  template <class Call>
  auto with_header(Call&& call) {
    CallHeader header = take_header();
    try {
      return call(client(), header);
    } catch (...) {
      requeue(header.releases);
      throw;
    }
  }

 private:
  CallHeader take_header();
  void requeue(const std::vector<std::uint64_t>& releases) noexcept;
  TaskClient& client() { return *client_; }

  std::string task_name_;
  std::uint64_t incarnation_;
  std::uint64_t client_id_;
  std::unique_ptr<TaskClient> client_;
  mutable std::mutex mutex_;
  std::uint64_t next_handle_ = 1;
  std::map<std::uint64_t, WireSpec> specs_;
  std::vector<std::uint64_t> released_;
};

class RemoteTaskDevice final : public runtime::RemoteDevice {
 public:
  // `name`: the device in this cluster's naming ("/job:local/replica:0/task:1/device:GPU:0").
  RemoteTaskDevice(runtime::DeviceType type, int id, const DeviceName& name,
                   std::shared_ptr<TaskConnection> task);

  void* allocate(std::size_t bytes, const Shape& shape, DType dtype) override;
  void deallocate(void* ptr, std::size_t bytes) noexcept override;
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override;
  void copy_from_host(void* dst, const void* src, std::size_t bytes) override;
  bool copy_to_device(Device& destination, void* dst, const void* src, std::size_t bytes) override;
  void execute(const runtime::OpCall& call, const Tensor* inputs, Tensor* results) override;

 private:
  void send(std::uint64_t handle, const WireTensor& value);

  std::string local_name_;  // the task's own name for the device: "/device:GPU:0"
  std::shared_ptr<TaskConnection> task_;
};

}  // namespace eagle::cluster
