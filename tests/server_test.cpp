// eagle::distribute::Server against TensorFlow 2.21's (server_lib.py, grpc_server_lib.cc): its
// definition's defaults and errors, target(), the log lines, start/join/stop, a port in use, and
// a task in another process answering over gRPC (Note [Cluster transport]).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "captured_log.hpp"
#include "cluster/rpc.hpp"
#include "eagle/distribute.hpp"
#include "eagle/distribute/server.hpp"
#include "eagle/errors.hpp"
#include "task_process.hpp"

namespace {

using eagle::distribute::ClusterSpec;
using eagle::distribute::make_server_def;
using eagle::distribute::Server;
using eagle::distribute::ServerDef;
using namespace std::chrono_literals;

int port_of_target(const std::string& target) {
  std::smatch match;
  REQUIRE(std::regex_match(target, match, std::regex("grpc://localhost:([0-9]+)")));
  return std::stoi(match[1]);
}

std::string local_address(const Server& server) {
  return "localhost:" + std::to_string(port_of_target(server.target()));
}

// A TCP socket listening on 127.0.0.1 at a port the system chooses, as another program's would.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
    REQUIRE(::listen(fd_, 1) == 0);
    socklen_t size = sizeof(address);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.sin_port);
  }
  ~Listener() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

std::string process_name() {
  std::ifstream comm("/proc/self/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

}  // namespace

TEST_CASE("make_server_def: TensorFlow's defaults and errors") {
  ServerDef one = make_server_def(ClusterSpec({{"local", {"localhost:2222"}}}));
  CHECK(one.job_name == "local");
  CHECK(one.task_index == 0);
  CHECK(one.protocol == "grpc");

  ClusterSpec seed({{"local", {"localhost:2222", "localhost:2223"}}});
  CHECK_THROWS_MATCHES(make_server_def(seed, "local"), eagle::InvalidArgumentError,
                       Catch::Message("Must specify an explicit `task_index`."));
  ServerDef second = make_server_def(seed, "local", 1);
  CHECK(second.task_index == 1);
  CHECK(second.cluster == seed);

  ClusterSpec two_jobs({{"ps", {"localhost:2222"}}, {"worker", {"localhost:2223"}}});
  CHECK_THROWS_MATCHES(make_server_def(two_jobs), eagle::InvalidArgumentError,
                       Catch::Message("Must specify an explicit `job_name`."));
  CHECK_THROWS_MATCHES(make_server_def(two_jobs, "chief"), eagle::InvalidArgumentError,
                       Catch::Message("No such job in cluster: 'chief'"));
}

TEST_CASE("Server: a definition TensorFlow refuses is refused with its text") {
  ClusterSpec seed({{"local", {"localhost:0", "localhost:0"}}});
  CHECK_THROWS_MATCHES(Server(seed, "local", 2), eagle::InvalidArgumentError,
                       Catch::Message("Task 2 was not defined in job \"local\""));
  CHECK_THROWS_MATCHES(Server(seed, "local", -1), eagle::InvalidArgumentError,
                       Catch::Message("Task -1 was not defined in job \"local\""));
  CHECK_THROWS_MATCHES(Server(ServerDef{seed, "worker", 0, "grpc"}), eagle::InternalError,
                       Catch::Message("Job \"worker\" was not defined in cluster"));
  CHECK_THROWS_MATCHES(
      Server(seed, "local", 0, "grpc+verbs"), eagle::NotFoundError,
      Catch::Message("No server factory registered for the given ServerDef: job_name: \"local\" "
                     "task_index: 0 protocol: \"grpc+verbs\"\nThe available server factories "
                     "are: [ GRPC_SERVER ]"));
  for (const char* address : {"localhost", "localhost:", "localhost:http", "localhost:70000",
                              "::1:2222", "localhost:-1"}) {
    CAPTURE(address);
    CHECK_THROWS_MATCHES(
        Server(ClusterSpec({{"local", {address}}})), eagle::InvalidArgumentError,
        Catch::Message(std::string("Could not parse port for local server from \"") + address +
                       "\"."));
  }
}

TEST_CASE(
    "Server: create_local_server binds a port the system chooses, and logs TensorFlow's lines") {
  eagle_test::CapturedLog log(false);
  Server server = Server::create_local_server();
  int port = port_of_target(server.target());
  CHECK(port > 0);
  CHECK(server.server_def().job_name == "localhost");
  CHECK(server.server_def().cluster == ClusterSpec({{"localhost", {"localhost:0"}}}));
  server.start();
  CHECK(log.take() == std::vector<std::string>{
                          "Initialize GrpcChannelCache for job localhost -> {0 -> localhost:0}",
                          "Started server with target: " + server.target(),
                          "Server already started (target: " + server.target() + ")"});
}

TEST_CASE("Server: the channel-cache line of each job, sparse ones included") {
  eagle_test::CapturedLog log(false);
  ClusterSpec cluster = ClusterSpec::sparse(
      {{"worker", {{0, "localhost:0"}, {3, "localhost:2230"}}}, {"ps", {{0, "localhost:2224"}}}});
  Server server(cluster, "worker", 0, std::nullopt, false);
  CHECK(log.take() ==
        std::vector<std::string>{
            "Initialize GrpcChannelCache for job worker -> {0 -> localhost:0, 3 -> localhost:2230}",
            "Initialize GrpcChannelCache for job ps -> {0 -> localhost:2224}"});
}

TEST_CASE("Server: a task answers who it is once started, with its devices and incarnation") {
  Server server = Server::create_local_server(false);
  const std::string address = local_address(server);
  CHECK_THROWS_MATCHES(
      eagle::cluster::get_task_info(address, "/job:localhost/replica:0/task:0", 5s),
      eagle::UnavailableError,
      Catch::Message("Task /job:localhost/replica:0/task:0 at " + address +
                     " is unavailable: Task /job:localhost/replica:0/task:0 has not started "
                     "serving"));
  server.start();
  eagle::cluster::TaskInfo info =
      eagle::cluster::get_task_info(address, "/job:localhost/replica:0/task:0", 5s);
  CHECK(info.job_name == "localhost");
  CHECK(info.task_index == 0);
  CHECK(info.incarnation == server.incarnation());
  CHECK(info.incarnation != 0);
  REQUIRE_FALSE(info.devices.empty());
  CHECK(info.devices.front().name == "/job:localhost/replica:0/task:0/device:CPU:0");
  CHECK(info.devices.front().device_type == "CPU");
  // Another server, another incarnation: how a client tells a restarted task.
  Server other = Server::create_local_server();
  CHECK(other.incarnation() != server.incarnation());
}

TEST_CASE("Server: stop() ends it, join() returns, and it cannot start again") {
  Server server = Server::create_local_server();
  const std::string address = local_address(server);
  std::atomic<bool> joined{false};
  std::thread joiner([&] {
    server.join();
    joined = true;
  });
  std::this_thread::sleep_for(50ms);
  CHECK_FALSE(joined);
  server.stop();
  joiner.join();
  CHECK(joined);
  server.stop();  // idempotent
  CHECK_THROWS_MATCHES(server.start(), eagle::FailedPreconditionError,
                       Catch::Message("Server has stopped."));
  try {
    eagle::cluster::get_task_info(address, "/job:localhost/replica:0/task:0", 5s);
    FAIL("a stopped server answered");
  } catch (const eagle::UnavailableError& error) {
    CHECK_THAT(error.what(), Catch::StartsWith("Task /job:localhost/replica:0/task:0 at " +
                                               address + " is unavailable: "));
  }
  // The port is free again: a new server binds it.
  Server again(ClusterSpec({{"localhost", {address}}}));
  CHECK(again.target() == "grpc://" + address);
}

TEST_CASE("Server: join() on a server not started returns at once, as TensorFlow's") {
  Server server = Server::create_local_server(false);
  server.join();
  CHECK_THROWS_MATCHES(server.start(), eagle::FailedPreconditionError,
                       Catch::Message("Server has stopped."));
}

TEST_CASE("Server: a port in use is TensorFlow's error plus the port and the process holding it") {
  Listener listener;
  const std::string address = "localhost:" + std::to_string(listener.port());
  const std::string expected = "Could not start gRPC server: cannot listen on " + address +
                               ": port " + std::to_string(listener.port()) +
                               " is already in use by process " + std::to_string(::getpid()) +
                               " (" + process_name() + ")";
  CHECK_THROWS_MATCHES(Server(ClusterSpec({{"local", {address}}})), eagle::UnknownError,
                       Catch::Message(expected));

  // Two servers for one task: the second is refused the same way (no SO_REUSEPORT sharing).
  Server first = Server::create_local_server();
  const std::string taken = local_address(first);
  CHECK_THROWS_AS(Server(ClusterSpec({{"localhost", {taken}}})), eagle::UnknownError);
  CHECK_THROWS_WITH(
      Server(ClusterSpec({{"localhost", {taken}}})),
      Catch::StartsWith("Could not start gRPC server: cannot listen on " + taken + ": port " +
                        taken.substr(taken.rfind(':') + 1) + " is already in use by process " +
                        std::to_string(::getpid())));
}

TEST_CASE("Server: a moved-from Server says so") {
  Server server = Server::create_local_server();
  Server moved = std::move(server);
  CHECK(port_of_target(moved.target()) > 0);
  CHECK_THROWS_MATCHES(server.target(), eagle::FailedPreconditionError,  // NOLINT: on purpose
                       Catch::Message("This Server was moved from; use the one it moved to"));
}

TEST_CASE("Server: a task in another process answers over gRPC, and is unavailable once killed") {
  eagle_test::TaskProcess task({"serve"});
  const std::string target = task.read_line();
  const std::string address = target.substr(std::string("grpc://").size());
  eagle::cluster::TaskInfo info =
      eagle::cluster::get_task_info(address, "/job:local/replica:0/task:1", 10s);
  CHECK(info.job_name == "local");
  CHECK(info.task_index == 1);
  CHECK(info.devices.front().name == "/job:local/replica:0/task:1/device:CPU:0");
  // Its simulated GPU (EAGLE_SIMULATED_GPUS=1 in the task's environment) is a device of task 1.
  REQUIRE(info.devices.size() == 2);
  CHECK(info.devices[1].name == "/job:local/replica:0/task:1/device:GPU:0");
  CHECK(info.devices[1].device_type == "GPU");
  task.kill();
  CHECK_THROWS_AS(eagle::cluster::get_task_info(address, "/job:local/replica:0/task:1", 10s),
                  eagle::UnavailableError);
}
