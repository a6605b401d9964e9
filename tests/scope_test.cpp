// Device scopes (docs/guide.md, "Devices"; docs/errors.md, "scope.hpp"): merging, reset,
// per-thread stacks, nesting errors.
#include <catch2/catch.hpp>

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include "eagle/eagle.hpp"

using eagle::current_device_spec;

namespace {
const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kNestingError = "Exiting device scope without proper scope nesting";
}  // namespace

TEST_CASE("a thread starts with no scope") { CHECK(current_device_spec().empty()); }

TEST_CASE("top-level specs are completed from the host device") {
  {
    auto s = eagle::device("/GPU:1");
    CHECK(current_device_spec() == "/job:localhost/replica:0/task:0/device:GPU:1");
  }
  {
    auto s = eagle::device("/job:worker/task:1");
    CHECK(current_device_spec() == "/job:worker/replica:0/task:1/device:CPU:0");
  }
  {
    auto s = eagle::device("/cpu:0");
    CHECK(current_device_spec() == kCpu0);
  }
  CHECK(current_device_spec().empty());
}

TEST_CASE("nested scopes merge field by field") {
  auto outer = eagle::device("GPU:1");
  {
    auto inner = eagle::device("GPU");  // type only: keeps the outer id
    CHECK(current_device_spec() == "/job:localhost/replica:0/task:0/device:GPU:1");
  }
  {
    auto inner = eagle::device("/device:CPU:0");
    CHECK(current_device_spec() == kCpu0);
    {
      auto innermost = eagle::device("/task:3");
      CHECK(current_device_spec() == "/job:localhost/replica:0/task:3/device:CPU:0");
    }
    CHECK(current_device_spec() == kCpu0);
  }
  CHECK(current_device_spec() == "/job:localhost/replica:0/task:0/device:GPU:1");
}

TEST_CASE("an empty spec is the same as no scope, nullptr and nullopt reset") {
  {
    auto s = eagle::device("");
    CHECK(current_device_spec().empty());
  }
  auto outer = eagle::device("/GPU:0");
  {
    auto transparent = eagle::device("");
    CHECK(current_device_spec() == "/job:localhost/replica:0/task:0/device:GPU:0");
  }
  {
    auto reset = eagle::device(nullptr);
    CHECK(current_device_spec().empty());
    auto inner = eagle::device("CPU:0");  // completed from the host again, not from GPU:0
    CHECK(current_device_spec() == kCpu0);
  }
  {
    auto reset = eagle::device(std::nullopt);
    CHECK(current_device_spec().empty());
  }
  CHECK(current_device_spec() == "/job:localhost/replica:0/task:0/device:GPU:0");
}

TEST_CASE("with_device runs the function inside the scope and returns its value") {
  const std::string seen = eagle::with_device("/CPU:0", [] { return current_device_spec(); });
  CHECK(seen == kCpu0);
  CHECK(current_device_spec().empty());
  const auto t = eagle::with_device("/CPU:0", [] { return eagle::constant({1.0, 2.0}); });
  CHECK(t.device() == kCpu0);
}

TEST_CASE("a malformed spec throws and leaves the stack as it was") {
  auto outer = eagle::device("/CPU:0");
  CHECK_THROWS_MATCHES(eagle::device("/device:GPU:"), eagle::InvalidArgumentError,
                       Catch::Message("Malformed device specification '/device:GPU:'"));
  CHECK(current_device_spec() == kCpu0);
  CHECK_NOTHROW(eagle::constant(1.0));
}

TEST_CASE("ops under a CPU scope run on the CPU") {
  auto s = eagle::device("/CPU:0");
  const auto c = eagle::constant({1.0, 2.0}) + eagle::constant({3.0, 4.0});
  CHECK(c.device() == kCpu0);
  CHECK(c.to_vector<float>() == std::vector<float>{4, 6});
}

TEST_CASE("every thread has its own stack") {
  constexpr int kThreads = 8;
  std::atomic<int> failures{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures, &ready] {
      if (!current_device_spec().empty()) ++failures;  // a new thread starts empty
      const std::string spec = "/job:localhost/replica:0/task:" + std::to_string(t) +
                               "/device:GPU:" + std::to_string(t % 3);
      auto s = eagle::device(spec);
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();  // all scopes open at once
      for (int i = 0; i < 2000; ++i) {
        auto inner = eagle::device(i % 2 ? "CPU:0" : "GPU");
        const std::string expected =
            "/job:localhost/replica:0/task:" + std::to_string(t) +
            (i % 2 ? "/device:CPU:0" : "/device:GPU:" + std::to_string(t % 3));
        if (current_device_spec() != expected) ++failures;
      }
      if (current_device_spec() != spec) ++failures;
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  CHECK(current_device_spec().empty());
}

TEST_CASE("ending an outer scope before an inner one is reported at the next op") {
  std::optional<eagle::DeviceScope> outer;
  outer.emplace("/CPU:0");
  {
    auto inner = eagle::device("/GPU:0");
    outer.reset();  // out of order: the destructor cannot throw, so the next op reports it
    CHECK_THROWS_MATCHES(eagle::constant(1.0), eagle::FailedPreconditionError,
                         Catch::Message(kNestingError));
    // Reported once; the inner scope is still in effect and still merged from the outer one.
    CHECK(current_device_spec() == "/job:localhost/replica:0/task:0/device:GPU:0");
    CHECK_NOTHROW(eagle::constant(1.0));
  }
  CHECK(current_device_spec().empty());
}

TEST_CASE("exit() reports an out-of-order exit immediately") {
  std::optional<eagle::DeviceScope> outer;
  outer.emplace("/CPU:0");
  auto inner = eagle::device("GPU:0");
  CHECK_THROWS_MATCHES(outer->exit(), eagle::FailedPreconditionError,
                       Catch::Message(kNestingError));
  outer.reset();  // already exited: nothing more happens
  CHECK_NOTHROW(eagle::constant(1.0));
  inner.exit();
  CHECK(current_device_spec().empty());
}

TEST_CASE("a scope destroyed on another thread is reported on both threads") {
  auto* scope = new eagle::DeviceScope("/CPU:0");
  CHECK(current_device_spec() == kCpu0);
  std::atomic<bool> other_thread_saw_error{false};
  std::thread([&] {
    delete scope;
    try {
      eagle::constant(1.0);
    } catch (const eagle::FailedPreconditionError& e) {
      other_thread_saw_error = std::string(e.what()) == kNestingError;
    }
  }).join();
  CHECK(other_thread_saw_error.load());
  CHECK_THROWS_MATCHES(eagle::constant(1.0), eagle::FailedPreconditionError,
                       Catch::Message(kNestingError));
  CHECK(current_device_spec().empty());  // the abandoned entry is gone
  CHECK_NOTHROW(eagle::constant(1.0));
}
