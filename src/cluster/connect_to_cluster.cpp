#include "eagle/distribute/connect_to_cluster.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "cluster/remote_task_device.hpp"
#include "cluster/rpc.hpp"
#include "eagle/device_name.hpp"
#include "eagle/distribute/server.hpp"
#include "eagle/errors.hpp"
#include "runtime/context.hpp"
#include "runtime/log_sink.hpp"
#include "runtime/remote_devices.hpp"

namespace eagle::config {
namespace {

using Clock = std::chrono::steady_clock;
using distribute::ClusterSpec;

std::string task_name(const std::string& job, std::int64_t index) {
  return fmt::format("/job:{}/replica:0/task:{}", job, index);
}

std::string seconds_text(std::chrono::milliseconds duration) {
  return fmt::format("{:g} s", static_cast<double>(duration.count()) / 1000.0);
}

// The cluster with this process's job in it: TensorFlow adds a job it does not find, as one task
// on a port it picks; port 0 lets the system pick.
ClusterSpec with_local_job(const ClusterSpec& cluster, const std::string& job_name,
                           std::int64_t task_index) {
  const std::vector<std::string> jobs = cluster.jobs();
  if (std::find(jobs.begin(), jobs.end(), job_name) != jobs.end()) return cluster;
  std::vector<std::pair<std::string, ClusterSpec::Tasks>> sparse;
  for (const std::string& job : jobs) {
    ClusterSpec::Tasks tasks;
    for (std::int64_t index : cluster.task_indices(job)) {
      tasks.emplace(index, cluster.task_address(job, index));
    }
    sparse.emplace_back(job, std::move(tasks));
  }
  sparse.emplace_back(job_name, ClusterSpec::Tasks{{task_index, "localhost:0"}});
  return ClusterSpec::sparse(std::move(sparse));
}

// Asks the task at `address` for its devices until it answers or `deadline` passes. A task not up
// yet (refused, or its server not started) is asked again; an error its server raised is not.
cluster::TaskInfo wait_for_task(const std::string& name, const std::string& address,
                                Clock::time_point started, const ConnectOptions& options) {
  const Clock::time_point deadline = started + options.timeout;
  Clock::time_point next_log = started + options.log_interval;
  std::chrono::milliseconds backoff(20);
  std::string last_error;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 && !last_error.empty()) {
      throw UnavailableError(
          fmt::format("experimental_connect_to_cluster: task {} at {} did not answer within {} "
                      "(ConnectOptions::timeout). Is its server running? Last error: {}",
                      name, address, seconds_text(options.timeout), last_error));
    }
    try {
      // One attempt is short, so that a task that comes up late is seen soon after.
      return cluster::get_task_info(
          address, name,
          std::clamp(left, std::chrono::milliseconds(100), std::chrono::milliseconds(2000)));
    } catch (const Error& error) {
      const bool retry = dynamic_cast<const UnavailableError*>(&error) != nullptr ||
                         dynamic_cast<const DeadlineExceededError*>(&error) != nullptr;
      if (!retry) throw;
      last_error = error.what();
    }
    if (Clock::now() >= next_log) {
      runtime::emit_log(
          debugging::LogLevel::kInfo,
          fmt::format("experimental_connect_to_cluster still waiting for response from worker: "
                      "{} ({}), {} of {}",
                      name, address,
                      seconds_text(
                          std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - started)),
                      seconds_text(options.timeout)));
      next_log += options.log_interval;
    }
    std::this_thread::sleep_for(
        std::clamp<Clock::duration>(deadline - Clock::now(), Clock::duration::zero(), backoff));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(500));
  }
}

// This process's own server, kept for the life of the process (or until the next connect): the
// other tasks reach this task through it.
struct Connection {
  std::mutex mutex;
  std::unique_ptr<distribute::Server> server;
};

Connection& connection() {
  static Connection* const instance = new Connection();  // never destroyed: serves until exit
  return *instance;
}

}  // namespace

void experimental_connect_to_cluster(const ClusterSpec& cluster, const std::string& job_name,
                                     std::int64_t task_index, const ConnectOptions& options) {
  if (job_name.empty()) throw InvalidArgumentError("Must specify an explicit `job_name`.");
  if (task_index < 0) {
    throw InvalidArgumentError(fmt::format("task_index must be >= 0, got {}", task_index));
  }
  if (options.timeout.count() <= 0 || options.log_interval.count() <= 0) {
    throw InvalidArgumentError("ConnectOptions: timeout and log_interval must be positive");
  }
  const ClusterSpec full = with_local_job(cluster, job_name, task_index);
  runtime::Context& context = runtime::Context::get();

  Connection& state = connection();
  std::lock_guard<std::mutex> lock(state.mutex);
  // The old server goes first, so that connecting again to the same cluster can bind its port.
  state.server.reset();
  auto server = std::make_unique<distribute::Server>(full, job_name, task_index, options.protocol);

  const std::string own_name = task_name(job_name, task_index);
  const Clock::time_point started = Clock::now();
  std::vector<std::shared_ptr<runtime::RemoteDevice>> devices;
  for (const std::string& job : full.jobs()) {
    for (std::int64_t index : full.task_indices(job)) {
      const std::string name = task_name(job, index);
      if (name == own_name) continue;
      const std::string& address = full.task_address(job, index);
      cluster::TaskInfo info = wait_for_task(name, address, started, options);
      auto task = std::make_shared<cluster::TaskConnection>(
          name, info.incarnation, cluster::make_task_client(address, name, options.call_timeout));
      for (const cluster::RemoteDevice& device : info.devices) {
        // Named by this cluster, whatever the server was started as (TensorFlow's client sends
        // its cluster to the task, which takes it): the task's own kind and number stay.
        DeviceName parsed = DeviceName::parse(device.name);
        if (!parsed.type || !parsed.id) {
          throw InternalError(fmt::format("Task {} listed device '{}' without a kind and number",
                                          name, device.name));
        }
        parsed.job = job;
        parsed.replica = 0;
        parsed.task = index;
        const runtime::DeviceType type =
            *parsed.type == "GPU" ? runtime::DeviceType::kGPU : runtime::DeviceType::kCPU;
        devices.push_back(std::make_shared<cluster::RemoteTaskDevice>(
            type, static_cast<int>(*parsed.id), parsed, task));
      }
    }
  }
  context.rename_local_task(job_name, task_index);
  runtime::set_remote_devices(std::move(devices));
  state.server = std::move(server);
}

void experimental_connect_to_cluster(const distribute::cluster_resolver::ClusterResolver& resolver,
                                     const std::string& job_name, std::int64_t task_index,
                                     const ConnectOptions& options) {
  experimental_connect_to_cluster(resolver.cluster_spec(), job_name, task_index, options);
}

void experimental_connect_to_host(const std::vector<std::string>& remote_hosts,
                                  const std::string& job_name, const ConnectOptions& options) {
  if (remote_hosts.empty()) throw InvalidArgumentError("Must provide at least one remote_host");
  std::vector<std::string> addresses;
  for (const std::string& host : remote_hosts) {
    const std::string prefix = "grpc://";
    addresses.push_back(host.rfind(prefix, 0) == 0 ? host.substr(prefix.size()) : host);
  }
  experimental_connect_to_cluster(ClusterSpec::dense({{job_name, addresses}}), "localhost", 0,
                                  options);
}

void experimental_connect_to_host(const std::string& remote_host, const std::string& job_name,
                                  const ConnectOptions& options) {
  experimental_connect_to_host(std::vector<std::string>{remote_host}, job_name, options);
}

}  // namespace eagle::config
