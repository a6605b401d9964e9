// Intra-op parallelism: CPU kernels split one op's work over a process-wide pool of threads.
//
// Note [Intra-op parallelism]: a memory-bound kernel on one core reaches about two thirds of
// the memory bandwidth that two cores reach (reduce_sum over [4096, 4096] float32 on the 2-core
// dev VM: 22 GB/s on one thread, 31 GB/s on two), and the peers docs/performance.md measures
// eagle against (TensorFlow, PyTorch) run ops on all the cores they are given. So the large
// elementwise, reduction and softmax kernels cut their work into ranges and run them here.
//  - Only ops that move at least kMinChunkBytes per thread are split (compute-heavy ones count
//    their work as more bytes): waking a worker costs microseconds, and below about 8 MiB per
//    thread the data sits in caches that one core already drains fast (add of 2^20 floats,
//    12 MiB: the same 200 us on one thread or two; 2^21: 540 -> 430 us).
//  - Results never depend on the thread count: every output element is computed by one thread
//    in the same order as on one thread, and a reduction to a single value folds fixed-size
//    blocks whose partial results are combined in block order.
//  - The calling thread runs chunks too and claims whatever no worker has started, so an op
//    finishes even when every worker is busy with other threads' ops; a body called on a
//    worker (nested parallel_for) runs inline.
//  - set_intra_op_parallelism_threads (eagle::config::threading) swaps in a new pool; ops in
//    flight finish on the old one. BLAS (matmul) keeps its own threads (OPENBLAS_NUM_THREADS).
//  - Idle threads spin briefly before they sleep (Note [Spinning before sleeping]).
//
// Note [Spinning before sleeping]: waking a thread that sleeps on a futex costs tens of
// microseconds once its core has gone idle (about 50 us on the 2-core dev VM), and a training
// step runs a parallel op every few hundred microseconds. So a worker that has finished its work
// polls the queue for up to intra_op_spin_microseconds() (default 300 us, env
// EAGLE_INTRA_OP_SPIN_US; 0 sleeps at once) before it sleeps, as libgomp's and Eigen's pools do.
// The seed CNN's step on the dev VM, medians of 8 interleaved rounds: batch 32 3.31-3.38 ->
// 2.94-3.02 ms, batch 128 1-3% faster; with one of the 2 cores held by another process, up to
// 5% slower (a poller holding a core pushes the threads that have work onto the other one).
//  - It polls with sched_yield, not a pause loop, and stops once a yield has let another
//    thread run: pause loops of 1 ms (in the caller too) made batch 128 70% slower under load.
//  - The caller never polls for a worker's last chunk: it sleeps, so that its core goes idle
//    and the kernel can move a worker that shares a busy core onto it.
//  - Not OpenMP, though one libgomp team for eagle's ops and oneDNN's would be one pool: a
//    parallel region ends at a barrier that waits for every thread of the team, so a worker off
//    its core delays the op even when the caller has run every chunk (Note [Batch blocks]); the
//    batch-32 step with one core held by another process went from 3.2 to 5.9 ms on OpenMP.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace eagle::cpu {

// Ops below this many bytes moved per chunk run on the calling thread.
inline constexpr std::int64_t kMinChunkBytes = std::int64_t{8} << 20;

// The number of threads an op may use (>= 1): the configured count, or else the CPUs this
// process may run on.
int intra_op_threads();
// 0: the default (the CPUs this process may run on). Throws InvalidArgumentError if negative.
void set_intra_op_threads(int threads);
// The configured count; 0 when it is the default.
int configured_intra_op_threads();

// How long an idle pool thread polls for work before it sleeps (Note [Spinning before sleeping]):
// EAGLE_INTRA_OP_SPIN_US when set (read once; a bad value makes this, and so every op that
// splits its work, throw InvalidArgumentError), else kDefaultIntraOpSpinMicroseconds. 0 sleeps
// at once.
inline constexpr std::int64_t kDefaultIntraOpSpinMicroseconds = 300;
std::int64_t intra_op_spin_microseconds();
// Overrides the environment for this process (tests, benchmarks); negative restores it.
void set_intra_op_spin_microseconds(std::int64_t microseconds);

namespace detail {
// Parses EAGLE_INTRA_OP_SPIN_US: a whole number of microseconds in [0, 1000000].
std::int64_t parse_intra_op_spin(const std::string& value);

// Calls run(context, c) for every chunk c in [0, chunks), on the pool and the calling thread;
// returns when all have finished, rethrowing the first exception one of them threw.
void run_chunks(std::int64_t chunks, void (*run)(void*, std::int64_t), void* context);
}  // namespace detail

// Calls body(begin, end) on disjoint ranges that cover [0, n), possibly in parallel. `item_bytes`
// is the memory one item moves, times its compute weight (it decides how many threads are worth
// waking); range starts are
// multiples of `align` items (outputs of different threads never share a cache line).
template <class F>
void parallel_for(std::int64_t n, std::int64_t item_bytes, F&& body, std::int64_t align = 1) {
  if (n <= 0) return;
  const std::int64_t units = (n + align - 1) / align;
  const std::int64_t by_bytes = item_bytes >= kMinChunkBytes
                                    ? n
                                    : n / (kMinChunkBytes / std::max<std::int64_t>(item_bytes, 1));
  const std::int64_t chunks =
      by_bytes <= 1 ? 1 : std::min<std::int64_t>({units, by_bytes, intra_op_threads()});
  if (chunks <= 1) {
    body(std::int64_t{0}, n);
    return;
  }
  struct Context {
    std::remove_reference_t<F>* body;
    std::int64_t units, chunks, align, n;
  } context{&body, units, chunks, align, n};
  detail::run_chunks(
      chunks,
      [](void* p, std::int64_t c) {
        const Context& ctx = *static_cast<const Context*>(p);
        const std::int64_t begin = ctx.units * c / ctx.chunks * ctx.align;
        const std::int64_t end = std::min(ctx.n, ctx.units * (c + 1) / ctx.chunks * ctx.align);
        (*ctx.body)(begin, end);
      },
      &context);
}

}  // namespace eagle::cpu
