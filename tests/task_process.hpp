// A task of a test's cluster in its own process: the test binary run again with "--eagle-task",
// a role's name and its arguments. A test file registers its roles with EAGLE_TEST_TASK_ROLE, and
// the shared main (catch_main.cpp) runs the one named. The child runs in a process group of its
// own, and the handle kills the whole group when it goes, so a failed test leaves nothing behind.
#pragma once

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace eagle_test {

// A role's body: its arguments after the name; returns the process's exit status.
using TaskRole = std::function<int(const std::vector<std::string>&)>;
bool register_task_role(const std::string& name, TaskRole role);

// EAGLE_TEST_TASK_ROLE(serve) { ...; return 0; } defines and registers role "serve"; its body sees
// `arguments`.
#define EAGLE_TEST_TASK_ROLE(name)                                              \
  static int eagle_task_role_##name(const std::vector<std::string>& arguments); \
  [[maybe_unused]] static const bool eagle_task_role_registered_##name =        \
      ::eagle_test::register_task_role(#name, eagle_task_role_##name);          \
  static int eagle_task_role_##name([[maybe_unused]] const std::vector<std::string>& arguments)

class TaskProcess {
 public:
  // Starts "/proc/self/exe --eagle-task <role> <arguments...>" with its stdout on a pipe.
  explicit TaskProcess(const std::vector<std::string>& arguments) {
    int pipe_ends[2];
    if (::pipe(pipe_ends) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    std::vector<std::string> words{"/proc/self/exe", "--eagle-task"};
    words.insert(words.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    int failed =
        ::posix_spawn(&pid_, "/proc/self/exe", &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(pipe_ends[1]);
    output_ = pipe_ends[0];
    if (failed != 0) {
      ::close(output_);
      throw std::runtime_error("posix_spawn failed");
    }
  }
  ~TaskProcess() {
    kill();
    ::close(output_);
  }
  TaskProcess(const TaskProcess&) = delete;
  TaskProcess& operator=(const TaskProcess&) = delete;

  // The child's next line of output, waiting at most `timeout`; throws when none comes.
  std::string read_line(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      auto newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        std::string line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd wait{output_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&wait, 1, static_cast<int>(left.count())) <= 0) {
        throw std::runtime_error("the task printed no line in time");
      }
      char chunk[256];
      ssize_t size = ::read(output_, chunk, sizeof(chunk));
      if (size <= 0) throw std::runtime_error("the task ended before printing a line");
      buffer_.append(chunk, static_cast<std::size_t>(size));
    }
  }

  // Kills the child's process group and reaps the child. Idempotent.
  void kill() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int output_ = -1;
  std::string buffer_;
};

}  // namespace eagle_test
