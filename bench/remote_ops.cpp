// Cases 13 and 14 of docs/performance.md: ops and copies on another task over loopback. Task 1 is
// this program again in a child process (--serve), serving on a port the system chooses; this
// process connects as task 0. TensorFlow's side: bench/remote_ops_tf.py.
//
//   remote_add_kept     one 1-element AddV2 on task 1, result kept there (a chain of 100, one
//                       fetch at the end; per op)
//   remote_add_fetched  one 1-element AddV2 on task 1, then its value read here (per op)
//   send / fetch        a float32 tensor of `bytes` to task 1 (identity under its scope), and
//                       one of task 1's read here (after an identity there: a new handle)
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "eagle/config.hpp"
#include "eagle/debugging.hpp"
#include "eagle/distribute.hpp"
#include "eagle/eagle.hpp"

extern char** environ;

namespace {

using eagle::Tensor;
using eagle::distribute::ClusterSpec;

constexpr const char* kTask1 = "/job:local/replica:0/task:1/device:CPU:0";
constexpr int kChain = 100;

int serve() {
  eagle::debugging::set_log_sink([](eagle::debugging::LogLevel, std::string_view) {});
  eagle::distribute::Server server(ClusterSpec({{"local", {"localhost:0", "localhost:0"}}}),
                                   "local", 1);
  std::cout << server.target() << std::endl;
  server.join();
  return 0;
}

// Starts task 1 and returns its pid and address ("localhost:41234").
std::pair<pid_t, std::string> start_task() {
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) std::exit(1);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
  char self[] = "/proc/self/exe";
  char flag[] = "--serve";
  char* argv[] = {self, flag, nullptr};
  pid_t pid = 0;
  const int failed = ::posix_spawn(&pid, self, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) std::exit(1);
  ::close(pipe_ends[1]);
  std::string line;
  char c = 0;
  while (::read(pipe_ends[0], &c, 1) == 1 && c != '\n') line += c;
  ::close(pipe_ends[0]);
  return {pid, line.substr(std::string("grpc://").size())};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--serve") return serve();
  const bench::Options options = bench::parse_args(argc, argv);
  const int reps = options.reps_or(30, 10);
  const int warmup = options.warmup_or(2, 1);
  auto [pid, address] = start_task();
  eagle::debugging::set_log_sink([](eagle::debugging::LogLevel, std::string_view) {});
  eagle::config::experimental_connect_to_cluster(ClusterSpec({{"local", {"localhost:0", address}}}),
                                                 "local", 0);
  bench::Reporter reporter;
  const auto report = [&](const std::string& name, long long bytes, bench::Stats stats,
                          double per) {
    stats.median_us /= per;
    stats.min_us /= per;
    stats.max_us /= per;
    reporter.emit(
        bench::Record().set("case", name).set("impl", "eagle").set("bytes", bytes).set(stats));
  };

  if (options.selected("remote_add_kept", 4)) {
    auto scope = eagle::device(kTask1);
    const Tensor one = eagle::constant(1.0f);
    float last = 0;
    const bench::Stats stats = bench::measure(
        [&] {
          Tensor x = one;
          for (int i = 0; i < kChain; ++i) x = x + one;
          last = x.item<float>();
        },
        warmup, reps);
    if (last != kChain + 1) std::fprintf(stderr, "wrong result %g\n", last), std::exit(1);
    report("remote_add_kept", 4, stats, kChain);
  }
  if (options.selected("remote_add_fetched", 4)) {
    auto scope = eagle::device(kTask1);
    const Tensor one = eagle::constant(1.0f);
    float sum = 0;
    const bench::Stats stats = bench::measure(
        [&] {
          for (int i = 0; i < kChain; ++i) sum += (one + one).item<float>();
        },
        warmup, reps);
    bench::do_not_optimize(sum);
    report("remote_add_fetched", 4, stats, kChain);
  }
  std::vector<long long> sizes{4 << 10, 1 << 20, 16 << 20};
  if (!options.quick) sizes.push_back(256 << 20);
  for (long long bytes : sizes) {
    const std::int64_t n = bytes / 4;
    const Tensor local = eagle::random_uniform({n});
    const int copies_reps = bytes >= (64 << 20) ? std::min(reps, 10) : reps;
    if (options.selected("send", bytes)) {
      const bench::Stats stats = bench::measure(
          [&] {
            // A new handle each time (Identity shares the bytes): a tensor already sent is kept
            // there as its mirror, and would not be sent again.
            const Tensor fresh = eagle::identity(local);
            auto scope = eagle::device(kTask1);
            const Tensor there = eagle::identity(fresh);
            bench::do_not_optimize(there);
          },
          1, copies_reps);
      report("send", bytes, stats, 1);
    }
    if (options.selected("fetch", bytes)) {
      Tensor there;
      {
        auto scope = eagle::device(kTask1);
        there = eagle::identity(local);
      }
      std::vector<float> values;
      // A new remote handle each time, as TensorFlow's side needs (it keeps a read's copy).
      const bench::Stats stats = bench::measure(
          [&] {
            Tensor again;
            {
              auto scope = eagle::device(kTask1);
              again = eagle::identity(there);
            }
            values = again.to_vector<float>();
          },
          1, copies_reps);
      if (values != local.to_vector<float>()) std::fprintf(stderr, "wrong values\n"), std::exit(1);
      report("fetch", bytes, stats, 1);
    }
  }
  reporter.table("eagle remote ops (per op / per copy)", {{"case", "case", 20},
                                                          {"bytes", "bytes", 10},
                                                          {"median us", "median_us", 12, 1},
                                                          {"min us", "min_us", 10, 1}});
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return 0;
}
