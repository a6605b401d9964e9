// Joining a cluster from an eager program: TensorFlow 2's tf.config.experimental_connect_to_cluster
// and experimental_connect_to_host (tensorflow/python/eager/remote.py), in eagle::config.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "eagle/distribute/cluster_resolver.hpp"
#include "eagle/distribute/cluster_spec.hpp"

namespace eagle::config {

// What TensorFlow's connect does not let a user choose. TensorFlow waits for ever, silently, for a
// task that is not up (tensorflow#34564); eagle reports the wait and gives up in bounded time.
struct ConnectOptions {
  std::string protocol = "grpc";
  // How long to wait for every other task to answer; UnavailableError naming the first task that
  // did not.
  std::chrono::milliseconds timeout = std::chrono::seconds(60);
  // How often to log "... still waiting for response from worker: <task>" while waiting
  // (TensorFlow 1's master logged it every 10 s).
  std::chrono::milliseconds log_interval = std::chrono::seconds(10);
  // How long one remote op, copy or read may take before DeadlineExceededError naming the task. A
  // task that dies is UnavailableError at once; this bounds one that hangs.
  std::chrono::milliseconds call_timeout = std::chrono::minutes(5);
};

// Makes this process task `task_index` of job `job_name` of `cluster`: starts that task's server
// (a job not in the cluster is added with one task on "localhost:0", a port the system chooses, as
// TensorFlow adds it on an unused port), waits until every other task answers, and lists their
// devices. Afterwards list_logical_devices names every device in full, this task's own included
// ("/job:local/replica:0/task:0/device:CPU:0", as TensorFlow renames them), followed by the other
// tasks' ("/job:local/replica:0/task:1/device:CPU:0"). Connecting again replaces the cluster.
//
// Call it at program start, before other threads run ops: it renames the local devices, which
// every op reads without a lock (Note [The local task's name] in src/runtime/context.cpp).
void experimental_connect_to_cluster(const distribute::ClusterSpec& cluster,
                                     const std::string& job_name = "localhost",
                                     std::int64_t task_index = 0,
                                     const ConnectOptions& options = {});
// The resolver's cluster_spec(), as TensorFlow takes it.
void experimental_connect_to_cluster(const distribute::cluster_resolver::ClusterResolver& resolver,
                                     const std::string& job_name = "localhost",
                                     std::int64_t task_index = 0,
                                     const ConnectOptions& options = {});

// Connects to servers at `remote_hosts` ("localhost:2222" or "grpc://localhost:2222"), as the
// tasks of job `job_name`; this process joins as job "localhost". InvalidArgumentError "Must
// provide at least one remote_host" for none.
void experimental_connect_to_host(const std::vector<std::string>& remote_hosts,
                                  const std::string& job_name = "worker",
                                  const ConnectOptions& options = {});
void experimental_connect_to_host(const std::string& remote_host,
                                  const std::string& job_name = "worker",
                                  const ConnectOptions& options = {});

}  // namespace eagle::config
