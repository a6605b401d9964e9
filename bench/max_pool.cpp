// MaxPool and MaxPoolGrad on the seed CNN's two poolings (issue 17, Note [Direct max pooling]),
// through eagle's public ops, so the same source times any build of eagle: with the activations
// in cache ("warm": the same input every repetition) and as in a training step, where they come
// from memory ("cold": 256 MiB read between repetitions).
//
//   bench_max_pool [--quick] [--reps N] [--warmup N] [--threads N] [--filter TEXT]
//
// One JSON line per shape, op and temperature: median, min and max microseconds over the
// repetitions (30, or 10 with --quick) after the warm-up (2, or 1). Inputs: the shared ones (Note
// [Shared benchmark inputs]), x seed 1 through Relu (as the seed's layers feed their pools), the
// pooled gradient seed 3, uniform in [-1, 1). Run with OMP_WAIT_POLICY=PASSIVE on a shared
// machine.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench_inputs.hpp"
#include "bench_util.hpp"
#include "eagle/eagle.hpp"

using std::int64_t;

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  const int threads = opt.threads_or_available();
  eagle::config::threading::set_intra_op_parallelism_threads(threads);
  struct Case {
    const char* label;
    eagle::Shape x;
  };
  // The seed CNN at batch 128: conv1's 26x26x32 (windows that cover it) and conv2's 11x11x64
  // (the last row and column in no window).
  const Case cases[] = {{"128x26x26x32", {128, 26, 26, 32}}, {"128x11x11x64", {128, 11, 11, 64}}};
  // Larger than the last-level cache of the machines this runs on, read to evict the inputs.
  const eagle::Tensor evictor = bench::shared_tensor(eagle::Shape{64, 1024, 1024}, 5);
  bench::Reporter rep;
  for (const Case& c : cases) {
    if (!opt.filter.empty() && std::string(c.label).find(opt.filter) == std::string::npos) {
      continue;
    }
    const eagle::Tensor x = eagle::relu(bench::shared_tensor(c.x, 1));
    const eagle::Tensor pooled = eagle::nn::max_pool2d(x);
    const eagle::Tensor grad = bench::shared_tensor(pooled.shape(), 3);
    for (const bool cold : {false, true}) {
      const auto evict = [&] {
        if (cold) bench::do_not_optimize(eagle::reduce_sum(evictor));
      };
      const auto forward = [&] { bench::do_not_optimize(eagle::nn::max_pool2d(x)); };
      const auto backward = [&] {
        bench::do_not_optimize(eagle::nn::max_pool_grad(x, pooled, grad));
      };
      const int reps = opt.reps_or(30, 10), warmup = opt.warmup_or(2, 1);
      for (const auto& [op, run] :
           {std::pair<const char*, std::function<void()>>{"MaxPool", forward},
            {"MaxPoolGrad", backward}}) {
        for (int i = 0; i < warmup; ++i) run();
        std::vector<double> us;
        for (int r = 0; r < reps; ++r) {
          evict();
          us.push_back(bench::time_once_us(run));
        }
        bench::Record record;
        record.set("case", "max_pool").set("impl", "eagle").set("label", c.label);
        record.set("op", op).set("temperature", cold ? "cold" : "warm");
        record.set(bench::summarize(std::move(us)));
        record.set("threads", threads);
        rep.emit(std::move(record));
      }
    }
  }
  rep.table("MaxPool 2x2 and its gradient, NHWC float32, microseconds per call",
            {{"shape", "label", 14, 0},
             {"op", "op", 12, 0},
             {"inputs", "temperature", 7, 0},
             {"median", "median_us", 10, 1},
             {"min", "min_us", 10, 1},
             {"max", "max_us", 10, 1}});
  return 0;
}
