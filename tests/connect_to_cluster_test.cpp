// config::experimental_connect_to_cluster and experimental_connect_to_host against TensorFlow
// 2.21's (tensorflow/python/eager/remote.py): the other tasks are this binary in other processes
// (tests/task_process.hpp), serving on ports the system chooses, on loopback.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "captured_log.hpp"
#include "eagle/config.hpp"
#include "eagle/distribute.hpp"
#include "eagle/eagle.hpp"
#include "eagle/errors.hpp"
#include "task_process.hpp"

namespace {

using eagle::config::ConnectOptions;
using eagle::config::list_logical_devices;
using eagle::distribute::ClusterSpec;
using eagle::distribute::Server;
using namespace std::chrono_literals;

std::vector<std::string> device_names(const std::string& type = "") {
  std::vector<std::string> names;
  for (const auto& device : list_logical_devices(type)) names.push_back(device.name);
  return names;
}

// A loopback port nothing listens on: one the system chose, released again.
int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
  socklen_t size = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  ::close(fd);
  return ntohs(address.sin_port);
}

// "grpc://localhost:41234" -> "localhost:41234"
std::string address_of(const std::string& target) {
  REQUIRE(target.rfind("grpc://", 0) == 0);
  return target.substr(7);
}

}  // namespace

TEST_CASE("connect_to_cluster: the other task's devices are listed and the local ones renamed") {
  eagle_test::TaskProcess task({"serve"});
  const std::string address = address_of(task.read_line());
  CHECK(device_names() == std::vector<std::string>{"/device:CPU:0"});

  eagle_test::LevelLog log;
  eagle::config::experimental_connect_to_cluster(ClusterSpec({{"local", {"localhost:0", address}}}),
                                                 "local", 0);
  // As TensorFlow 2.21 lists them after connecting (measured): every name in full, this task's
  // first.
  CHECK(device_names() == std::vector<std::string>{"/job:local/replica:0/task:0/device:CPU:0",
                                                   "/job:local/replica:0/task:1/device:CPU:0",
                                                   "/job:local/replica:0/task:1/device:GPU:0"});
  CHECK(device_names("GPU") ==
        std::vector<std::string>{"/job:local/replica:0/task:1/device:GPU:0"});
  const std::vector<std::string> lines = log.take();
  REQUIRE(lines.size() >= 2);
  CHECK(lines[0].rfind(
            "INFO:eagle:Initialize GrpcChannelCache for job local -> {0 -> localhost:0, 1 -> " +
                address + "}",
            0) == 0);
  CHECK(lines[1].rfind("INFO:eagle:Started server with target: grpc://localhost:", 0) == 0);

  // A local op runs in this task's renamed device, and the placement log says so.
  eagle_test::CapturedLog placement;
  eagle::Tensor sum;
  {
    auto scope = eagle::device("/job:local/replica:0/task:0/device:CPU:0");
    sum = eagle::constant(1.0f) + eagle::constant(2.0f);
  }
  CHECK(sum.item<float>() == 3.0f);
  CHECK(sum.device() == "/job:local/replica:0/task:0/device:CPU:0");
  const std::vector<std::string> placed = placement.lines();
  CHECK(std::find(placed.begin(), placed.end(),
                  "Executing op AddV2 in device /job:local/replica:0/task:0/device:CPU:0") !=
        placed.end());
  // The job "localhost" names nothing any more.
  {
    auto scope = eagle::device("/job:localhost/replica:0/task:0/device:CPU:0");
    CHECK_THROWS_AS(eagle::constant(1.0f) + eagle::constant(2.0f), eagle::InvalidArgumentError);
  }
  // A short spec is completed from this task's name.
  {
    auto scope = eagle::device("/CPU:0");
    CHECK((eagle::constant(1.0f) * 2.0f).device() == "/job:local/replica:0/task:0/device:CPU:0");
  }
}

TEST_CASE("connect_to_host: the servers are job worker, and this process joins as localhost") {
  eagle_test::TaskProcess task({"serve"});
  const std::string target = task.read_line();
  eagle::config::experimental_connect_to_host(target);
  // The task was started as /job:local/replica:0/task:1; this client's cluster names it worker 0,
  // as TensorFlow's client hands the task its cluster.
  CHECK(device_names() == std::vector<std::string>{"/job:localhost/replica:0/task:0/device:CPU:0",
                                                   "/job:worker/replica:0/task:0/device:CPU:0",
                                                   "/job:worker/replica:0/task:0/device:GPU:0"});
  CHECK_THROWS_MATCHES(eagle::config::experimental_connect_to_host(std::vector<std::string>{}),
                       eagle::InvalidArgumentError,
                       Catch::Message("Must provide at least one remote_host"));
}

TEST_CASE("connect_to_cluster: a task that never answers is UnavailableError after the timeout") {
  // TensorFlow waits for ever, silently (tensorflow#34564); eagle logs the wait and gives up.
  const std::string address = "localhost:" + std::to_string(free_port());
  eagle_test::LevelLog log;
  const auto started = std::chrono::steady_clock::now();
  ConnectOptions options;
  options.timeout = 1500ms;
  options.log_interval = 500ms;
  CHECK_THROWS_AS(eagle::config::experimental_connect_to_cluster(
                      ClusterSpec({{"local", {"localhost:0", address}}}), "local", 0, options),
                  eagle::UnavailableError);
  const auto waited = std::chrono::steady_clock::now() - started;
  CHECK(waited >= 1400ms);
  CHECK(waited < 10s);  // bounded: the timeout and one last attempt, never for ever
  try {
    eagle::config::experimental_connect_to_cluster(
        ClusterSpec({{"local", {"localhost:0", address}}}), "local", 0, options);
  } catch (const eagle::UnavailableError& error) {
    CHECK_THAT(error.what(),
               Catch::StartsWith("experimental_connect_to_cluster: task "
                                 "/job:local/replica:0/task:1 at " +
                                 address +
                                 " did not answer within 1.5 s (ConnectOptions::timeout). "
                                 "Is its server running? Last error: Task "
                                 "/job:local/replica:0/task:1 at " +
                                 address + " is unavailable: "));
  }
  int waiting_lines = 0;
  for (const std::string& line : log.take()) {
    if (line.rfind("INFO:eagle:experimental_connect_to_cluster still waiting for response from "
                   "worker: /job:local/replica:0/task:1 (" +
                       address + "), ",
                   0) == 0) {
      ++waiting_lines;
    }
  }
  CHECK(waiting_lines >= 2);  // at least one in each wait of 1.5 s at a 0.5 s interval
  // Nothing changed: not connected, the devices keep their names, the server is gone.
  CHECK(device_names() == std::vector<std::string>{"/device:CPU:0"});
  CHECK(eagle::constant(1.0f).device() == "/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST_CASE("connect_to_cluster: a task that comes up late is waited for") {
  const int port = free_port();
  eagle_test::TaskProcess task({"serve", std::to_string(port), "1500"});
  ConnectOptions options;
  options.timeout = 30s;
  eagle::config::experimental_connect_to_cluster(
      ClusterSpec({{"local", {"localhost:0", "localhost:" + std::to_string(port)}}}), "local", 0,
      options);
  CHECK(task.read_line() == "grpc://localhost:" + std::to_string(port));
  CHECK(device_names("CPU") ==
        std::vector<std::string>{"/job:local/replica:0/task:0/device:CPU:0",
                                 "/job:local/replica:0/task:1/device:CPU:0"});
}

TEST_CASE("connect_to_cluster: TensorFlow's errors for a task this cluster does not define") {
  CHECK_THROWS_MATCHES(eagle::config::experimental_connect_to_cluster(
                           ClusterSpec({{"local", {"localhost:0"}}}), "local", 2),
                       eagle::InvalidArgumentError,
                       Catch::Message("Task 2 was not defined in job \"local\""));
  CHECK_THROWS_MATCHES(
      eagle::config::experimental_connect_to_cluster(ClusterSpec({{"local", {"localhost:0"}}}), ""),
      eagle::InvalidArgumentError, Catch::Message("Must specify an explicit `job_name`."));
  CHECK(device_names() == std::vector<std::string>{"/device:CPU:0"});
}
