// The task role the cluster tests share (tests/task_process.hpp): linked into server_test,
// connect_to_cluster_test and remote_execution_test.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "eagle/debugging.hpp"
#include "eagle/distribute/server.hpp"
#include "task_process.hpp"

// "serve [PORT [DELAY_MS]]": task 1 of job "local" with one simulated GPU, on PORT (0, the
// default: one the system chooses). Waits DELAY_MS first (a task that comes up late), prints its
// target, then serves until killed.
EAGLE_TEST_TASK_ROLE(serve) {
  ::setenv("EAGLE_SIMULATED_GPUS", "1", 1);
  const std::string port = arguments.empty() ? "0" : arguments[0];
  if (arguments.size() > 1) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(arguments[1])));
  }
  eagle::debugging::set_log_sink([](eagle::debugging::LogLevel, std::string_view) {});
  eagle::distribute::Server server(
      eagle::distribute::ClusterSpec({{"local", {"localhost:0", "localhost:" + port}}}), "local",
      1);
  std::cout << server.target() << std::endl;
  server.join();
  return 0;
}
