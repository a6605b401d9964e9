// The intra-op thread pool (Note [Intra-op parallelism]).
#include "cpu/intra_op_pool.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "eagle/errors.hpp"

namespace eagle::cpu {
namespace {

// One parallel_for call: chunks are claimed with `next`, counted when finished with `done`.
// Shared with the workers that picked it up, so that a worker that finds nothing left to claim
// after the caller has returned still touches live memory.
struct Job {
  void (*run)(void*, std::int64_t);
  void* context;
  std::int64_t chunks;
  std::atomic<std::int64_t> next{0};
  std::atomic<std::int64_t> done{0};
  std::mutex mutex;
  std::condition_variable finished;
  std::exception_ptr error;  // the first exception, guarded by mutex

  // Runs chunks until none is left to claim.
  void work() {
    for (std::int64_t c = next.fetch_add(1); c < chunks; c = next.fetch_add(1)) {
      try {
        run(context, c);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
      }
      if (done.fetch_add(1) + 1 == chunks) {
        std::lock_guard<std::mutex> lock(mutex);  // the caller checks `done` under this lock
        finished.notify_all();
      }
    }
  }
};

thread_local bool t_on_worker = false;

std::atomic<std::int64_t> g_spin_override{-1};

// EAGLE_INTRA_OP_SPIN_US, read once: its value, the default when unset, -1 when invalid.
std::int64_t spin_from_env() {
  static const std::int64_t value = [] {
    const char* env = std::getenv("EAGLE_INTRA_OP_SPIN_US");
    if (env == nullptr || *env == '\0') return kDefaultIntraOpSpinMicroseconds;
    try {
      return detail::parse_intra_op_spin(env);
    } catch (const InvalidArgumentError&) {
      return std::int64_t{-1};
    }
  }();
  return value;
}

// The override when one is set, else the environment's value (-1 when that is invalid).
std::int64_t configured_spin() {
  const std::int64_t override_value = g_spin_override.load(std::memory_order_relaxed);
  return override_value >= 0 ? override_value : spin_from_env();
}

// The polling limit for workers, which must not throw: 0 while the environment's is invalid
// (callers get the error from intra_op_spin_microseconds() in run_chunks).
std::int64_t worker_spin_microseconds() noexcept {
  return std::max<std::int64_t>(configured_spin(), 0);
}

// Polls `ready` until it holds or worker_spin_microseconds() have passed, yielding the core
// between polls, and gives up early once a yield has let another thread run (Note [Spinning
// before sleeping]); returns whether `ready` holds.
template <class Ready>
bool spin_until(Ready ready) {
  if (ready()) return true;
  const std::int64_t spin = worker_spin_microseconds();
  if (spin == 0) return false;
  using Clock = std::chrono::steady_clock;
  // A yield that returns later than this ran someone else: the core is wanted.
  constexpr auto kCoreTaken = std::chrono::microseconds(20);
  Clock::time_point last = Clock::now();
  const Clock::time_point deadline = last + std::chrono::microseconds(spin);
  for (;;) {
    std::this_thread::yield();
    if (ready()) return true;
    const Clock::time_point now = Clock::now();
    if (now >= deadline || now - last > kCoreTaken) return false;
    last = now;
  }
}

class Pool {
 public:
  explicit Pool(int threads) : threads_(threads) {
    workers_.reserve(static_cast<std::size_t>(threads - 1));
    for (int i = 0; i + 1 < threads; ++i) workers_.emplace_back([this] { serve(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_.store(true);
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  int threads() const { return threads_; }

  void run(std::int64_t chunks, void (*run)(void*, std::int64_t), void* context) {
    auto job = std::make_shared<Job>();
    job->run = run;
    job->context = context;
    job->chunks = chunks;
    const std::int64_t helpers = std::min<std::int64_t>(chunks - 1, threads_ - 1);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (std::int64_t i = 0; i < helpers; ++i) queue_.push_back(job);
      queued_.store(static_cast<std::int64_t>(queue_.size()), std::memory_order_release);
    }
    for (std::int64_t i = 0; i < helpers; ++i) wake_.notify_one();  // no syscall for pollers
    job->work();
    std::unique_lock<std::mutex> lock(job->mutex);
    job->finished.wait(lock, [&] { return job->done.load() == chunks; });
    if (job->error) std::rethrow_exception(job->error);
  }

 private:
  void serve() {
    t_on_worker = true;
    for (;;) {
      std::shared_ptr<Job> job = next_job();
      if (!job) return;  // stopping, and nothing left
      job->work();
    }
  }

  // The next queued job, after polling for one and then sleeping until one comes; null when the
  // pool stops with nothing queued.
  std::shared_ptr<Job> next_job() {
    spin_until([&] {
      return queued_.load(std::memory_order_acquire) > 0 ||
             stopping_.load(std::memory_order_relaxed);
    });
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return stopping_.load() || !queue_.empty(); });
    if (queue_.empty()) return nullptr;
    std::shared_ptr<Job> job = std::move(queue_.front());
    queue_.pop_front();
    queued_.store(static_cast<std::int64_t>(queue_.size()), std::memory_order_release);
    return job;
  }

  const int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;  // guarded by mutex_
  std::atomic<std::int64_t> queued_{0};     // queue_.size(), for pollers outside the lock
  std::atomic<bool> stopping_{false};       // written under mutex_
};

// The CPUs this process may run on (taskset, cgroups' cpusets), at least 1.
int available_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
#endif
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// The pool, created on the first parallel op and replaced when the thread count changes.
struct PoolState {
  std::mutex mutex;
  std::shared_ptr<Pool> pool;
};

PoolState& state() {
  static PoolState s;
  return s;
}

std::atomic<int> g_configured{0};

int effective_threads(int configured) {
  static const int cpus = available_cpus();
  return configured > 0 ? configured : cpus;
}

}  // namespace

int intra_op_threads() { return effective_threads(g_configured.load(std::memory_order_relaxed)); }

int configured_intra_op_threads() { return g_configured.load(std::memory_order_relaxed); }

void set_intra_op_threads(int threads) {
  if (threads < 0) {
    throw InvalidArgumentError(fmt::format(
        "intra_op_parallelism_threads must be >= 0 (0 picks the available CPUs), got {}", threads));
  }
  g_configured.store(threads);
  // The next parallel op replaces a pool of another size; ops running on it finish there.
}

std::int64_t intra_op_spin_microseconds() {
  const std::int64_t spin = configured_spin();
  // Invalid: parsing the variable again throws its error.
  if (spin < 0) return detail::parse_intra_op_spin(std::getenv("EAGLE_INTRA_OP_SPIN_US"));
  return spin;
}

void set_intra_op_spin_microseconds(std::int64_t microseconds) {
  g_spin_override.store(microseconds < 0 ? -1 : microseconds);
}

namespace detail {

std::int64_t parse_intra_op_spin(const std::string& value) {
  constexpr std::int64_t kMax = 1000000;
  const bool digits =
      !value.empty() && value.size() <= 7 && std::all_of(value.begin(), value.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      });
  const std::int64_t us = digits ? std::stoll(value) : -1;
  if (us < 0 || us > kMax) {
    throw InvalidArgumentError(fmt::format(
        "Invalid EAGLE_INTRA_OP_SPIN_US='{}': expected whole microseconds from 0 (sleep at once) "
        "to {}",
        value, kMax));
  }
  return us;
}

void run_chunks(std::int64_t chunks, void (*run)(void*, std::int64_t), void* context) {
  // A bad EAGLE_INTRA_OP_SPIN_US throws here, on the caller's thread, never on a worker.
  (void)intra_op_spin_microseconds();
  if (t_on_worker) {  // nested: the pool's threads are already busy with the outer op
    for (std::int64_t c = 0; c < chunks; ++c) run(context, c);
    return;
  }
  std::shared_ptr<Pool> pool, stale;
  {
    PoolState& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    const int threads = intra_op_threads();
    if (!s.pool || s.pool->threads() != threads) {
      stale = std::move(s.pool);
      s.pool = std::make_shared<Pool>(threads);
    }
    pool = s.pool;
  }
  stale.reset();  // joins the old pool's workers (unless an op still runs on it), unlocked
  pool->run(chunks, run, context);
}

}  // namespace detail
}  // namespace eagle::cpu
