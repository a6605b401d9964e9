// Issue 16's tape overhead: the 1-element mixed chain (add, mul, relu; 3,000 ops) untaped, with
// a GradientTape recording it, and the backward pass over what was recorded, timed interleaved
// (bench_util's measure_interleaved) and reported per op. Target: a recorded op costs at most 2x
// an untaped one. The gradient is checked against the chain's derivative computed on floats.
#include <cmath>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "eagle/eagle.hpp"

namespace {

constexpr int kOps = 3000;

eagle::Tensor chain(const eagle::Tensor& x0, const eagle::Tensor& y, const eagle::Tensor& z) {
  eagle::Tensor x = x0;
  for (int i = 0; i < kOps; ++i) {
    switch (i % 3) {
      case 0:
        x = x + y;
        break;
      case 1:
        x = x * z;
        break;
      default:
        x = eagle::relu(x);
        break;
    }
  }
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  eagle::config::threading::set_intra_op_parallelism_threads(opt.threads_or_available());
  const int reps = opt.reps_or(30, 3);
  const int warmup = opt.warmup_or(2, 1);
  auto cpu = eagle::device("/CPU:0");
  const eagle::Tensor x0 = eagle::constant({0.5f});
  const eagle::Tensor y = eagle::constant({0.001f});
  const eagle::Tensor z = eagle::constant({0.9999f});

  eagle::Tensor untaped_result, taped_result;
  std::optional<eagle::Tensor> gradient;
  std::unique_ptr<eagle::GradientTape> tape;
  eagle::Tensor recorded;
  const auto stats = bench::measure_interleaved(
      {[&] { untaped_result = chain(x0, y, z); },
       [&] {
         tape = std::make_unique<eagle::GradientTape>();
         tape->watch(x0);
         taped_result = chain(x0, y, z);
         tape->stop();
       },
       [&] {  // the backward pass of the chain the previous function recorded
         gradient = tape->gradient(taped_result, {x0})[0];
         tape.reset();
       }},
      warmup, reps);

  // d/dx of the chain: each mul multiplies by z, relu passes 1 while x > 0 (it stays positive).
  const double want = std::pow(0.9999, kOps / 3);
  bench::check(gradient.has_value(), "no gradient");
  const double got = gradient->item<float>();
  bench::check(std::fabs(got - want) <= 1e-4 * want,
               fmt::format("gradient {} vs the chain's derivative {}", got, want));
  bench::check(untaped_result.item<float>() == taped_result.item<float>(), "taped result differs");

  bench::Reporter rep;
  const char* impls[] = {"untaped", "taped", "backward"};
  for (int k = 0; k < 3; ++k) {
    bench::Record r;
    r.set("case", "tape_overhead")
        .set("impl", impls[k])
        .set("size", 1LL)
        .set(stats[static_cast<std::size_t>(k)]);
    r.set("ops", kOps).set("us_per_op", stats[static_cast<std::size_t>(k)].median_us / kOps);
    if (k == 1) {
      const double ratio = stats[1].median_us / stats[0].median_us;
      r.set("ratio_to_untaped", ratio).set("target_ratio", 2.0).set("meets_target", ratio <= 2.0);
    }
    rep.emit(std::move(r));
  }
  return 0;
}
