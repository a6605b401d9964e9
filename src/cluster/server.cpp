#include "eagle/distribute/server.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <random>

#include <fmt/format.h>

#include "cluster/rpc.hpp"
#include "cluster/task_executor.hpp"
#include "eagle/config.hpp"
#include "eagle/errors.hpp"
#include "runtime/context.hpp"
#include "runtime/log_sink.hpp"

namespace eagle::distribute {
namespace {

std::string task_name(const ServerDef& def) {
  return "/job:" + def.job_name + "/replica:0/task:" + std::to_string(def.task_index);
}

// TensorFlow's GrpcServer::Init checks, in its order and with its texts.
const std::string& checked_task_address(const ServerDef& def) {
  if (def.protocol != "grpc") {
    throw NotFoundError("No server factory registered for the given ServerDef: job_name: \"" +
                        def.job_name + "\" task_index: " + std::to_string(def.task_index) +
                        " protocol: \"" + def.protocol +
                        "\"\nThe available server factories are: [ GRPC_SERVER ]");
  }
  auto jobs = def.cluster.jobs();
  if (std::find(jobs.begin(), jobs.end(), def.job_name) == jobs.end()) {
    throw InternalError("Job \"" + def.job_name + "\" was not defined in cluster");
  }
  auto indices = def.cluster.task_indices(def.job_name);
  if (std::find(indices.begin(), indices.end(), def.task_index) == indices.end()) {
    throw InvalidArgumentError("Task " + std::to_string(def.task_index) +
                               " was not defined in job \"" + def.job_name + "\"");
  }
  return def.cluster.task_address(def.job_name, def.task_index);
}

struct HostPort {
  std::string host;
  int port;
};

// "localhost:2222", "[::1]:2222"; TensorFlow's text for anything else.
HostPort parse_address(const std::string& address) {
  auto colon = address.rfind(':');
  std::string host = colon == std::string::npos ? "" : address.substr(0, colon);
  std::string port = colon == std::string::npos ? "" : address.substr(colon + 1);
  bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  bool valid = colon != std::string::npos && !port.empty() && port.size() <= 5 &&
               port.find_first_not_of("0123456789") == std::string::npos &&
               std::stoi(port) <= 65535 && (bracketed || host.find(':') == std::string::npos);
  if (!valid) {
    throw InvalidArgumentError("Could not parse port for local server from \"" + address + "\".");
  }
  return {host, std::stoi(port)};
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

// "Initialize GrpcChannelCache for job local -> {0 -> localhost:2222, 1 -> localhost:2223}".
std::string channel_cache_line(const ClusterSpec& cluster, const std::string& job) {
  std::string line = "Initialize GrpcChannelCache for job " + job + " -> {";
  bool first = true;
  for (std::int64_t index : cluster.task_indices(job)) {
    line += (first ? "" : ", ") + std::to_string(index) + " -> " + cluster.task_address(job, index);
    first = false;
  }
  return line + "}";
}

std::uint64_t draw_incarnation() {
  std::random_device device;
  std::uint64_t value = 0;
  while (value == 0) value = (std::uint64_t{device()} << 32) | device();
  return value;
}

}  // namespace

ServerDef make_server_def(const ClusterSpec& cluster, const std::optional<std::string>& job_name,
                          std::optional<std::int64_t> task_index,
                          const std::optional<std::string>& protocol) {
  ServerDef def;
  def.cluster = cluster;
  if (job_name) {
    def.job_name = *job_name;
  } else if (cluster.jobs().size() == 1) {
    def.job_name = cluster.jobs().front();
  } else {
    throw InvalidArgumentError("Must specify an explicit `job_name`.");
  }
  if (task_index) {
    def.task_index = *task_index;
  } else {
    auto indices = cluster.task_indices(def.job_name);
    if (indices.size() != 1) throw InvalidArgumentError("Must specify an explicit `task_index`.");
    def.task_index = indices.front();
  }
  def.protocol = protocol.value_or("grpc");
  return def;
}

struct Server::Impl {
  enum class State { kNew, kStarted, kStopped };

  ServerDef def;
  std::string host;  // of the target: the task's host, "localhost" when the address has none
  std::uint64_t incarnation = draw_incarnation();
  // Read by the transport's threads: calls before start() are refused as from a task not up.
  std::shared_ptr<std::atomic<bool>> serving = std::make_shared<std::atomic<bool>>(false);
  std::unique_ptr<cluster::RpcServer> rpc;
  int bound_port = 0;

  std::mutex mutex;
  std::condition_variable stopped;
  State state = State::kNew;

  std::string target() const { return "grpc://" + host + ":" + std::to_string(bound_port); }

  std::shared_ptr<const cluster::TaskService> make_service() const {
    auto service = std::make_shared<cluster::TaskService>();
    std::string name = task_name(def);
    // The tensors clients keep on this task (Note [Remote devices]); the service's functions
    // share it, and it lives as long as the transport may call them.
    auto executor = std::make_shared<cluster::TaskExecutor>(name, incarnation);
    service->check_header = [executor](const cluster::CallHeader& header) {
      executor->check_header(header);
    };
    service->enqueue = [executor](const cluster::CallHeader& header,
                                  const cluster::EnqueueCall& call) {
      executor->enqueue(header, call);
    };
    service->send_tensor = [executor](const cluster::CallHeader& header, const std::string& device,
                                      std::uint64_t handle, cluster::WireTensor value) {
      executor->send_tensor(header, device, handle, std::move(value));
    };
    service->fetch_tensor = [executor](const cluster::CallHeader& header, std::uint64_t handle) {
      return executor->fetch_tensor(header, handle);
    };
    service->copy_tensor = [executor](const cluster::CallHeader& header, const std::string& device,
                                      std::uint64_t source, std::uint64_t destination) {
      executor->copy_tensor(header, device, source, destination);
    };
    service->get_task_info = [serving = serving, name, job = def.job_name, index = def.task_index,
                              incarnation = incarnation, executor] {
      if (!serving->load()) throw UnavailableError("Task " + name + " has not started serving");
      cluster::TaskInfo info{job, index, incarnation, {}, executor->num_tensors()};
      // This process's own devices, named as this task's: "/job:local/replica:0/task:1/..."
      for (const runtime::Device* device : runtime::Context::get().devices()) {
        const std::string type(runtime::device_type_name(device->type()));
        info.devices.push_back({fmt::format("{}/device:{}:{}", name, type, device->id()), type});
      }
      return info;
    };
    return service;
  }
};

Server::Server(const ClusterSpec& cluster, const std::optional<std::string>& job_name,
               std::optional<std::int64_t> task_index, const std::optional<std::string>& protocol,
               bool start)
    : Server(make_server_def(cluster, job_name, task_index, protocol), start) {}

Server::Server(const ServerDef& server_def, bool start) : impl_(std::make_unique<Impl>()) {
  impl_->def = server_def;
  const std::string& address = checked_task_address(server_def);
  HostPort host_port = parse_address(address);
  impl_->host = host_port.host.empty() ? "localhost" : host_port.host;
  std::string bind_host = is_loopback(host_port.host) ? host_port.host : "0.0.0.0";
  impl_->rpc = cluster::start_rpc_server(bind_host, host_port.port, address, impl_->make_service());
  impl_->bound_port = impl_->rpc->bound_port();
  for (const std::string& job : server_def.cluster.jobs()) {
    runtime::emit_log(debugging::LogLevel::kInfo, channel_cache_line(server_def.cluster, job));
  }
  if (start) this->start();
}

Server::~Server() {
  if (impl_) stop();
}

Server::Server(Server&&) noexcept = default;
Server& Server::operator=(Server&& other) noexcept {
  if (this != &other) {
    if (impl_) stop();
    impl_ = std::move(other.impl_);
  }
  return *this;
}

Server Server::create_local_server(bool start) {
  return Server(ClusterSpec{{"localhost", {"localhost:0"}}}, std::nullopt, std::nullopt, "grpc",
                start);
}

void Server::start() {
  check_not_moved_from();
  std::lock_guard<std::mutex> lock(impl_->mutex);
  switch (impl_->state) {
    case Impl::State::kNew:
      impl_->state = Impl::State::kStarted;
      impl_->serving->store(true);
      runtime::emit_log(debugging::LogLevel::kInfo,
                        "Started server with target: " + impl_->target());
      return;
    case Impl::State::kStarted:
      runtime::emit_log(debugging::LogLevel::kInfo,
                        "Server already started (target: " + impl_->target() + ")");
      return;
    case Impl::State::kStopped:
      throw FailedPreconditionError("Server has stopped.");
  }
}

void Server::join() {
  check_not_moved_from();
  std::unique_lock<std::mutex> lock(impl_->mutex);
  if (impl_->state == Impl::State::kNew) {
    impl_->state = Impl::State::kStopped;  // as TensorFlow's: it can no longer start
    return;
  }
  impl_->stopped.wait(lock, [&] { return impl_->state == Impl::State::kStopped; });
}

void Server::stop() {
  check_not_moved_from();
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->serving->store(false);
  if (impl_->rpc) {
    // Calls in flight get a short grace to answer; a server that never ends is TensorFlow's
    // complaint (issue #25858), not a behaviour to keep.
    impl_->rpc->shutdown(std::chrono::seconds(2));
    impl_->rpc.reset();
  }
  impl_->state = Impl::State::kStopped;
  impl_->stopped.notify_all();
}

std::string Server::target() const {
  check_not_moved_from();
  return impl_->target();
}

const ServerDef& Server::server_def() const {
  check_not_moved_from();
  return impl_->def;
}

std::uint64_t Server::incarnation() const {
  check_not_moved_from();
  return impl_->incarnation;
}

void Server::check_not_moved_from() const {
  if (!impl_) throw FailedPreconditionError("This Server was moved from; use the one it moved to");
}

}  // namespace eagle::distribute
