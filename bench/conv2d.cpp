// Conv2D forward and both backprops (case 10 of docs/performance.md, issue 17 §5): the seed CNN's
// three convolutions at batch 128 and a ResNet-style 3x3x64x64 on 56x56, NHWC float32 on the CPU,
// with whichever provider this process chose (EAGLE_CONV_PROVIDER: oneDNN by default, reference).
// bench/conv2d_peers.py times the same cases in TensorFlow, JAX and PyTorch; bench/compare runs
// them side by side and checks every result against the float64 reference of
// bench/conv2d_cases.py. The inputs are the shared ones (Note [Shared benchmark inputs]): the
// image seed 1, the filter seed 2, the output gradient seed 3, uniform in [-1, 1).
//
//   bench_conv2d [--quick] [--reps N] [--warmup N] [--threads N] [--filter TEXT]
//
// One JSON line per case and op: the median, min and max of the repetitions (30, or 10 for the
// ResNet layer; 5 and 3 with --quick) after a warm-up, and the result at the sample indices.
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench_inputs.hpp"
#include "bench_util.hpp"
#include "eagle/eagle.hpp"

namespace {

struct Case {
  const char* label;  // as bench/conv2d_cases.py's CASES
  std::int64_t n, h, w, c, k, o;
};

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  const int threads = opt.threads_or_available();
  eagle::config::threading::set_intra_op_parallelism_threads(threads);
  const Case cases[] = {{"seed conv1 28x28x1->32", 128, 28, 28, 1, 3, 32},
                        {"seed conv2 13x13x32->64", 128, 13, 13, 32, 3, 64},
                        {"seed conv3 5x5x64->64", 128, 5, 5, 64, 3, 64},
                        {"resnet 56x56x64->64", 128, 56, 56, 64, 3, 64}};
  const char* provider = std::getenv("EAGLE_CONV_PROVIDER");
  bench::Reporter rep;
  for (const Case& c : cases) {
    const std::string label = c.label;
    if (!opt.filter.empty() && label.find(opt.filter) == std::string::npos &&
        opt.filter.find(label) == std::string::npos) {
      continue;
    }
    const bool resnet = label.rfind("resnet", 0) == 0;
    const int reps = opt.reps_or(resnet ? 10 : 30, resnet ? 3 : 5);
    const int warmup = opt.warmup_or(1, 1);
    const eagle::Tensor x = bench::shared_tensor({c.n, c.h, c.w, c.c}, 1);
    const eagle::Tensor f = bench::shared_tensor({c.k, c.k, c.c, c.o}, 2);
    const eagle::Tensor dy = bench::shared_tensor({c.n, c.h - c.k + 1, c.w - c.k + 1, c.o}, 3);
    const std::pair<const char*, std::function<eagle::Tensor()>> ops[] = {
        {"Conv2D", [&] { return eagle::nn::conv2d(x, f); }},
        {"Conv2DBackpropInput", [&] { return eagle::nn::conv2d_backprop_input(x.shape(), f, dy); }},
        {"Conv2DBackpropFilter",
         [&] { return eagle::nn::conv2d_backprop_filter(x, f.shape(), dy); }}};
    for (const auto& [op, run] : ops) {
      // The warm-up (primitive creation, the allocator) also gives the result to check.
      const std::string sample = bench::sample_json(run().to_vector<float>());
      const bench::Stats stats = bench::measure([&] { (void)run(); }, warmup - 1, reps);
      bench::Record r;
      r.set("case", "conv2d").set("impl", "eagle").set("label", label).set("op", op);
      r.set("provider", provider ? provider : "auto").set(stats).set("threads", threads);
      r.set("sample", bench::RawJson{sample});
      rep.emit(std::move(r));
    }
  }
  rep.table("conv2d, NHWC float32, microseconds per call", {{"case", "label", 24, 0},
                                                            {"op", "op", 21, 0},
                                                            {"median", "median_us", 10, 1},
                                                            {"min", "min_us", 10, 1},
                                                            {"max", "max_us", 10, 1}});
  return 0;
}
