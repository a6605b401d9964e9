// eagle::distribute::Server (TensorFlow's tf.distribute.Server, also tf.train.Server): one task
// of a cluster, serving its devices to the other tasks over gRPC (docs/guide.md, "Clusters").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "eagle/distribute/cluster_spec.hpp"

namespace eagle::distribute {

// tf.train.ServerDef: the cluster, and which of its tasks this server is.
struct ServerDef {
  ClusterSpec cluster;
  std::string job_name;
  std::int64_t task_index = 0;
  std::string protocol = "grpc";
};

// TensorFlow's _make_server_def: a job name left out is the cluster's only job ("Must specify an
// explicit `job_name`." when there are several), a task index left out is the job's only task
// ("Must specify an explicit `task_index`."), the protocol defaults to "grpc". ValueError for an
// unknown job, as ClusterSpec::task_indices.
ServerDef make_server_def(const ClusterSpec& cluster,
                          const std::optional<std::string>& job_name = std::nullopt,
                          std::optional<std::int64_t> task_index = std::nullopt,
                          const std::optional<std::string>& protocol = std::nullopt);

// A task's server. The constructor checks the definition with TensorFlow's texts
// (InvalidArgumentError "Task 2 was not defined in job \"worker\"", "Could not parse port for
// local server from \"localhost:x\".", NotFoundError for a protocol other than "grpc") and binds
// the task's port, as TensorFlow's does; port 0 binds one the system chooses, which target()
// names. A port already in use is TensorFlow's UnknownError "Could not start gRPC server", with
// what TensorFlow leaves out: the address, the port, and the process that holds it where the
// system tells.
//
// Beyond TensorFlow, whose servers cannot shut down ("Clean shutdown is not currently
// implemented"): stop() ends the server, and so does the destructor.
//
// A task whose address names the loopback ("localhost", "127.0.0.1", "[::1]") listens on the
// loopback only; any other address listens on every interface, as TensorFlow's (0.0.0.0).
class Server {
 public:
  // Server(cluster, "local", 1): task 1 of job "local".
  explicit Server(const ClusterSpec& cluster,
                  const std::optional<std::string>& job_name = std::nullopt,
                  std::optional<std::int64_t> task_index = std::nullopt,
                  const std::optional<std::string>& protocol = std::nullopt, bool start = true);
  explicit Server(const ServerDef& server_def, bool start = true);
  ~Server();
  Server(Server&&) noexcept;
  Server& operator=(Server&&) noexcept;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // tf.distribute.Server.create_local_server: a cluster of one task, {"localhost":
  // ["localhost:0"]} (TensorFlow 2's; its docstring still says "local", as TensorFlow 1's was).
  static Server create_local_server(bool start = true);

  // Serves the other tasks; logs "Started server with target: grpc://localhost:2222". Again:
  // logs "Server already started (target: ...)". After stop() or join(): FailedPreconditionError
  // "Server has stopped.".
  void start();
  // Blocks until the server stops (stop() from another thread). On a server not yet started it
  // returns at once and the server can no longer start, as TensorFlow's.
  void join();
  // Stops serving: calls in flight get their answers (or are cancelled after a grace of a few
  // seconds), new ones are refused, join() returns. Idempotent.
  void stop();

  // "grpc://localhost:2222": this task's host ("localhost" when the address has none) and the
  // port the server is bound to.
  std::string target() const;
  const ServerDef& server_def() const;
  // Drawn when the server is created; a client that sees another one knows the task restarted.
  std::uint64_t incarnation() const;

 private:
  struct Impl;
  void check_not_moved_from() const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace eagle::distribute

namespace eagle::train {
// tf.train.Server and tf.train.ServerDef, as TensorFlow 2 still spells them.
using Server = eagle::distribute::Server;
using ServerDef = eagle::distribute::ServerDef;
}  // namespace eagle::train
