// Ops on another task's devices (Note [Remote devices] in src/runtime/remote_device.hpp), seed
// 001 across processes as TensorFlow 2 writes it: the task is this binary in another process
// (tests/task_process.hpp), on loopback, and its tensors stay there until read.
#include <signal.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "captured_log.hpp"
#include "cluster/rpc.hpp"
#include "eagle/config.hpp"
#include "eagle/debugging.hpp"
#include "eagle/distribute.hpp"
#include "eagle/eagle.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops/strings.hpp"
#include "task_process.hpp"

namespace {

using eagle::Tensor;
using eagle::distribute::ClusterSpec;
using eagle::distribute::Server;
using namespace std::chrono_literals;

constexpr const char* kTask1Cpu = "/job:local/replica:0/task:1/device:CPU:0";
constexpr const char* kTask1Gpu = "/job:local/replica:0/task:1/device:GPU:0";

// "grpc://localhost:41234" -> "localhost:41234"
std::string address_of(const std::string& target) { return target.substr(7); }

// Task 1 serving in another process; this process connected as task 0.
struct TwoTasks {
  eagle_test::TaskProcess task{{"serve"}};
  std::string address = address_of(task.read_line());
  explicit TwoTasks(eagle::config::ConnectOptions options = {}) {
    eagle::config::experimental_connect_to_cluster(
        ClusterSpec({{"local", {"localhost:0", address}}}), "local", 0, options);
  }
};

}  // namespace

TEST_CASE("remote execution: seed 001's string runs on task 1 and is read back") {
  TwoTasks cluster;
  eagle_test::CapturedLog log;
  Tensor c;
  {
    auto scope = eagle::device(kTask1Cpu);
    c = eagle::identity(eagle::constant("Hello from server2!"));
  }
  CHECK(c.device() == kTask1Cpu);
  CHECK(c.dtype() == eagle::kString);
  CHECK(c.item<std::string>() == "Hello from server2!");
  CHECK(eagle::to_string(c) ==
        "eagle.Tensor(b'Hello from server2!', shape=(), dtype=string, "
        "device=/job:local/replica:0/task:1/device:CPU:0)");
  // TensorFlow's remote form of the placement line; the constant itself prints none.
  CHECK(log.lines() ==
        std::vector<std::string>{"Executing op Identity on task " + std::string(kTask1Cpu)});
}

TEST_CASE("remote execution: numbers on the task's CPU and GPU equal the local results") {
  TwoTasks cluster;
  const Tensor a = eagle::constant({{1.0f, 2.0f}, {3.0f, 4.0f}});
  const Tensor b = eagle::constant({{0.5f, -1.0f}, {2.0f, 0.25f}});
  const Tensor local = eagle::relu(eagle::matmul(a, b) * 3.0f - 1.0f);
  for (const char* device : {kTask1Cpu, kTask1Gpu}) {
    INFO(device);
    Tensor remote;
    {
      auto scope = eagle::device(device);
      remote = eagle::relu(eagle::matmul(a, b) * 3.0f - 1.0f);
    }
    CHECK(remote.device() == device);
    CHECK(remote.shape() == eagle::Shape{2, 2});
    CHECK(remote.to_vector<float>() == local.to_vector<float>());
    // Read where it is used: a local op copies the remote tensor here.
    CHECK((remote + 1.0f).device() == "/job:local/replica:0/task:0/device:CPU:0");
  }
}

TEST_CASE("remote execution: copies between the task's devices, this process and back") {
  TwoTasks cluster;
  Tensor on_cpu, on_gpu, empty;
  {
    auto scope = eagle::device(kTask1Cpu);
    on_cpu = eagle::range(0.0, 6.0);
    empty = eagle::zeros({0, 3});
  }
  {
    auto scope = eagle::device(kTask1Gpu);
    on_gpu = eagle::identity(on_cpu) * 10.0f;  // copied within task 1
  }
  CHECK(on_gpu.device() == kTask1Gpu);
  CHECK(on_gpu.to_vector<float>() == std::vector<float>{0, 10, 20, 30, 40, 50});
  CHECK(empty.shape() == eagle::Shape{0, 3});
  CHECK(empty.to_vector<float>().empty());
  Tensor back = eagle::identity(empty);  // local
  CHECK(back.shape() == eagle::Shape{0, 3});
  // Strings join on the task, from a local and a remote input.
  Tensor joined;
  {
    auto scope = eagle::device(kTask1Cpu);
    joined =
        eagle::strings::join({eagle::constant(std::vector<std::string>{"a", "b"}),
                              eagle::identity(eagle::constant(std::vector<std::string>{"x", "y"}))},
                             "-");
  }
  CHECK(joined.device() == kTask1Cpu);
  CHECK(joined.to_vector<std::string>() == std::vector<std::string>{"a-x", "b-y"});
}

TEST_CASE("remote execution: the task's errors come back as the same class and text") {
  TwoTasks cluster;
  Tensor bad;
  {
    auto scope = eagle::device(kTask1Cpu);
    bad = eagle::constant(std::numeric_limits<float>::quiet_NaN());
    CHECK_THROWS_MATCHES(eagle::debugging::check_numerics(bad, "on task 1"),
                         eagle::InvalidArgumentError,
                         Catch::Message("on task 1 : Tensor had NaN values [Op:CheckNumerics]"));
  }
  // The process goes on: the task still serves.
  auto scope = eagle::device(kTask1Cpu);
  CHECK((eagle::constant(2.0f) * 2.0f).item<float>() == 4.0f);
}

TEST_CASE("remote execution: the task drops the tensors this process no longer holds") {
  TwoTasks cluster;
  auto scope = eagle::device(kTask1Cpu);
  Tensor keep = eagle::constant(1.0f);
  for (int i = 0; i < 50; ++i) Tensor dropped = keep + static_cast<float>(i);
  CHECK((keep * 2.0f).item<float>() == 2.0f);
  // The releases ride on the next call: this read carries the last ones.
  CHECK(keep.item<float>() == 1.0f);
  const eagle::cluster::TaskInfo info =
      eagle::cluster::get_task_info(cluster.address, "/job:local/replica:0/task:1", 10s);
  CHECK(info.tensors_held == 1);  // `keep`
}

TEST_CASE("remote execution: a task that died is UnavailableError naming it") {
  TwoTasks cluster;
  Tensor remote;
  {
    auto scope = eagle::device(kTask1Cpu);
    remote = eagle::constant(1.0f) + 1.0f;
  }
  cluster.task.kill();
  const auto started = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(remote.item<float>(), Catch::StartsWith("Task /job:local/replica:0/task:1 at " +
                                                            cluster.address + " is unavailable: "));
  auto scope = eagle::device(kTask1Cpu);
  CHECK_THROWS_AS(eagle::constant(1.0f) + 1.0f, eagle::UnavailableError);
  CHECK(std::chrono::steady_clock::now() - started < 10s);  // at once, not after a timeout
}

TEST_CASE("remote execution: a restarted task refuses the handles of its earlier life") {
  TwoTasks cluster;
  Tensor remote;
  {
    auto scope = eagle::device(kTask1Cpu);
    remote = eagle::constant(1.0f) + 1.0f;
  }
  const std::string port = cluster.address.substr(cluster.address.rfind(':') + 1);
  cluster.task.kill();
  eagle_test::TaskProcess restarted({"serve", port});
  CHECK(restarted.read_line() == "grpc://localhost:" + port);
  CHECK_THROWS_AS(remote.item<float>(), eagle::FailedPreconditionError);
  CHECK_THROWS_WITH(
      remote.item<float>(),
      Catch::Matches("Task /job:local/replica:0/task:1 was restarted since this client connected "
                     "\\(incarnation [0-9a-f]{16}, now [0-9a-f]{16}\\): the tensors the client "
                     "kept there are gone. Connect to the cluster again "
                     "\\(experimental_connect_to_cluster\\)."));
}

TEST_CASE("remote execution: a variable made under the task's scope lives there") {
  // What parameter servers are built on: reads, assignments and updates run on task 1.
  TwoTasks cluster;
  eagle_test::CapturedLog log;
  std::optional<eagle::Variable> v;
  {
    auto scope = eagle::device(kTask1Cpu);
    v.emplace(eagle::constant({1.0f, 2.0f}));
  }
  CHECK(v->device() == kTask1Cpu);
  const Tensor before = v->read_value();
  v->assign_add(eagle::constant({0.5f, 0.5f}));  // from this process: the delta is copied there
  CHECK(v->read_value().to_vector<float>() == std::vector<float>{1.5f, 2.5f});
  CHECK(before.to_vector<float>() == std::vector<float>{1.0f, 2.0f});  // a read keeps its value
  v->assign(eagle::constant({-1.0f, 4.0f}));
  CHECK(v->read_value().to_vector<float>() == std::vector<float>{-1.0f, 4.0f});
  const std::vector<std::string> lines = log.lines();
  CHECK(std::find(lines.begin(), lines.end(),
                  "Executing op AssignAddVariableOp on task " + std::string(kTask1Cpu)) !=
        lines.end());
}

TEST_CASE("remote execution: a tape records remote ops and an optimizer updates there") {
  TwoTasks cluster;
  std::optional<eagle::Variable> w;
  {
    auto scope = eagle::device(kTask1Cpu);
    w.emplace(eagle::constant({1.0f, -2.0f}));
  }
  eagle::optimizers::SGD sgd(0.25);
  std::vector<std::optional<Tensor>> gradients;
  {
    eagle::GradientTape tape;
    auto scope = eagle::device(kTask1Cpu);
    const Tensor loss = eagle::reduce_sum(eagle::square(w->read_value()));
    gradients = tape.gradient(loss, std::vector<eagle::Variable>{*w});
  }
  REQUIRE(gradients.size() == 1);
  REQUIRE(gradients[0].has_value());
  CHECK(gradients[0]->to_vector<float>() == std::vector<float>{2.0f, -4.0f});
  sgd.apply_gradients(gradients, std::vector<eagle::Variable>{*w});
  CHECK(w->device() == kTask1Cpu);
  CHECK(w->read_value().to_vector<float>() == std::vector<float>{0.5f, -1.0f});
}
