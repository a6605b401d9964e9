// The serving side of remote execution (Note [Remote devices] in src/runtime/remote_device.hpp):
// the tensors each client keeps on this task, by the handle ids the client chose, and the calls
// that make, run on, read and drop them.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "cluster/rpc.hpp"
#include "eagle/tensor.hpp"
#include "runtime/device.hpp"

namespace eagle::cluster {

class TaskExecutor {
 public:
  // `task_name`: this task's, for errors ("/job:local/replica:0/task:1"); `incarnation`: its
  // server's, which every call must name.
  TaskExecutor(std::string task_name, std::uint64_t incarnation)
      : task_name_(std::move(task_name)), incarnation_(incarnation) {}

  // FailedPreconditionError for a call to an earlier incarnation; then drops the released handles.
  void check_header(const CallHeader& header);
  void enqueue(const CallHeader& header, const EnqueueCall& call);
  void send_tensor(const CallHeader& header, const std::string& device, std::uint64_t handle,
                   WireTensor value);
  WireTensor fetch_tensor(const CallHeader& header, std::uint64_t handle);
  void copy_tensor(const CallHeader& header, const std::string& device, std::uint64_t source,
                   std::uint64_t destination);
  // How many tensors clients keep here (tests: releases arrive).
  std::size_t num_tensors() const;

 private:
  using Key = std::pair<std::uint64_t, std::uint64_t>;  // client, handle
  Tensor find(const CallHeader& header, std::uint64_t handle) const;
  void store(const CallHeader& header, std::uint64_t handle, Tensor tensor);

  std::string task_name_;
  std::uint64_t incarnation_;
  mutable std::mutex mutex_;
  std::map<Key, Tensor> tensors_;
};

// A tensor's value for the wire, and back on `device` (the host CPU first, then copied).
WireTensor to_wire(const Tensor& tensor);
Tensor from_wire(const WireTensor& value, runtime::Device& device);

}  // namespace eagle::cluster
