// Seed 001's cluster (samples/README.md), in TensorFlow 2's form: servers, remote devices and
// string tensors across processes.
//   server = tf.train.Server.create_local_server()
//   cluster = tf.train.ClusterSpec({"local": ["localhost:2222", "localhost:2223"]})
//   server = tf.train.Server(cluster, job_name="local", task_index=1); server.join()
// TensorFlow 1 ran a Session on the server's target; TensorFlow 2 connects the eager program to
// the cluster and runs ops under a device scope on a task, which is what this does. Task 1 is
// this program again in a child process (--task 1 PORT); ports are the system's choice unless
// --ports 2222,2223 asks for the seed's. Unlike the seed's, this program ends: it stops task 1.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include <eagle/distribute.hpp>
#include <eagle/eagle.hpp>

extern char** environ;

namespace {

using eagle::distribute::ClusterSpec;
using eagle::distribute::Server;

// Task 1: serves its cluster's task until stopped, printing its target first.
int run_task1(const std::string& port) {
  eagle::debugging::set_log_sink([](eagle::debugging::LogLevel, std::string_view) {});
  Server server(ClusterSpec({{"local", {"localhost:0", "localhost:" + port}}}), "local", 1);
  std::cout << server.target() << std::endl;
  server.join();
  return 0;
}

// Starts task 1 in a child process (its own process group) and returns its pid and address.
std::pair<pid_t, std::string> start_task1(const std::string& self, const std::string& port) {
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  std::string a0 = self, a1 = "--task", a2 = "1", a3 = port;
  char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), nullptr};
  pid_t pid = 0;
  const int failed = ::posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (failed != 0) throw std::runtime_error("could not start task 1");
  ::close(pipe_ends[1]);
  std::string line;
  char c = 0;
  while (::read(pipe_ends[0], &c, 1) == 1 && c != '\n') line += c;
  ::close(pipe_ends[0]);
  if (line.rfind("grpc://", 0) != 0) throw std::runtime_error("task 1 did not start");
  return {pid, line.substr(7)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--task") return run_task1(argv[3]);
  std::string port0 = "0", port1 = "0";
  if (argc == 3 && std::string(argv[1]) == "--ports") {
    const std::string ports = argv[2];
    port0 = ports.substr(0, ports.find(','));
    port1 = ports.substr(ports.find(',') + 1);
  }
  // Log lines to stdout, so they and the values appear in order.
  eagle::debugging::set_log_sink(
      [](eagle::debugging::LogLevel, std::string_view line) { std::cout << line << "\n"; });

  // The seed's first cell: a string on a local server (create_local_server).
  Server local = Server::create_local_server();
  const eagle::Tensor s = eagle::constant("Hello, distributed TensorFlow!");
  std::cout << eagle::format_values(s) << "\n";
  local.stop();

  // The seed's second cell: two tasks of job "local". This process is task 0; task 1 is a child.
  auto [task1, address1] = start_task1(argv[0], port1);
  int status = 0;
  try {
    eagle::config::experimental_connect_to_cluster(
        ClusterSpec({{"local", {"localhost:" + port0, address1}}}), "local", 0);
    eagle::debugging::set_log_device_placement(true);
    const eagle::Tensor c = eagle::constant("Hello from server1!");  // on task 0, this process
    std::cout << c.device() << ": " << eagle::format_values(c) << "\n";
    eagle::Tensor c2;
    {
      auto scope = eagle::device("/job:local/replica:0/task:1/device:CPU:0");
      c2 = eagle::identity(eagle::constant("Hello from server2!"));
    }
    std::cout << c2.device() << ": " << eagle::format_values(c2) << "\n";
  } catch (const eagle::Error& error) {
    std::cerr << error.what() << "\n";
    status = 1;
  }
  ::kill(-task1, SIGTERM);
  ::waitpid(task1, nullptr, 0);
  return status;
}
