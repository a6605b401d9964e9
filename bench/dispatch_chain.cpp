// Cases 1 and 7 of docs/performance.md ("Benchmark cases and targets"): per-op overhead of the
// eager path.
//
// Case 1: a chain of 10,000 dependent ops on float32 tensors of 1, 1K and 64K elements, logging
// off, (i) x = x + y only, (ii) add / mul / relu in turn. Reported per op.
// Case 7: the 1-element add chain inside `auto s = eagle::device("/CPU:0")` versus no scope at
// all, timed interleaved; the difference per op in ns is the cost of the scope and placement.
//
// Every chain's result is checked against the same chain run on plain floats. Inputs are the
// shared ones of bench/compare (Note [Shared benchmark inputs]), and each record carries the
// result's samples for its check there.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_inputs.hpp"
#include "bench_util.hpp"
#include "eagle/eagle.hpp"

namespace {

constexpr int kOps = 10000;

struct Inputs {
  eagle::Tensor x0, y, z;
  std::vector<float> hx0, hy, hz;
};

Inputs make_inputs(std::int64_t n) {
  Inputs in;
  // The ranges of CHAIN_INPUTS in bench/cpu_cases.py.
  in.hx0 = bench::shared_inputs(n, 1, 0.0, 1.0);
  in.hy = bench::shared_inputs(n, 2, -0.25, 0.75);
  in.hz = bench::shared_inputs(n, 3, 0.9, 1.0);
  in.x0 = eagle::constant(in.hx0);
  in.y = eagle::constant(in.hy);
  in.z = eagle::constant(in.hz);
  return in;
}

// The chains. Op i of the mixed chain is add, mul, relu for i % 3 == 0, 1, 2.
eagle::Tensor add_chain(const Inputs& in) {
  eagle::Tensor x = in.x0;
  for (int i = 0; i < kOps; ++i) x = x + in.y;
  return x;
}

eagle::Tensor mixed_chain(const Inputs& in) {
  eagle::Tensor x = in.x0;
  for (int i = 0; i < kOps; ++i) {
    switch (i % 3) {
      case 0:
        x = x + in.y;
        break;
      case 1:
        x = x * in.z;
        break;
      default:
        x = eagle::relu(x);
        break;
    }
  }
  return x;
}

// The same chains on plain floats, element by element (same operations in the same order).
std::vector<float> add_reference(const Inputs& in) {
  std::vector<float> out(in.hx0.size());
  for (std::size_t e = 0; e < out.size(); ++e) {
    float x = in.hx0[e];
    const float y = in.hy[e];
    for (int i = 0; i < kOps; ++i) x = x + y;
    out[e] = x;
  }
  return out;
}

std::vector<float> mixed_reference(const Inputs& in) {
  std::vector<float> out(in.hx0.size());
  for (std::size_t e = 0; e < out.size(); ++e) {
    float x = in.hx0[e];
    const float y = in.hy[e], z = in.hz[e];
    for (int i = 0; i < kOps; ++i) {
      switch (i % 3) {
        case 0:
          x = x + y;
          break;
        case 1:
          x = x * z;
          break;
        default:
          x = x < 0.0f ? 0.0f : x;
          break;
      }
    }
    out[e] = x;
  }
  return out;
}

void check_result(const eagle::Tensor& got, const std::vector<float>& want,
                  const std::string& what) {
  const double err = bench::relative_error(got.to_vector<float>(), want);
  bench::check(err < 1e-5, fmt::format("{}: relative error {} vs the plain C++ chain", what, err));
}

// The size labels of bench/cpu_cases.py: "1", "1K", "64K".
std::string chain_label(std::int64_t n) {
  return n < 1024 ? std::to_string(n) : std::to_string(n / 1024) + "K";
}

bench::Record chain_record(const std::string& name, const std::string& impl, std::int64_t n,
                           const bench::Stats& s, int threads) {
  bench::Record r;
  r.set("case", name).set("impl", impl).set("label", chain_label(n));
  r.set("size", static_cast<long long>(n)).set(s);
  r.set("threads", threads).set("ops", kOps).set("us_per_op", s.median_us / kOps);
  r.set("min_us_per_op", s.min_us / kOps).set("max_us_per_op", s.max_us / kOps);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  const int threads = opt.threads_or_available();
  eagle::config::threading::set_intra_op_parallelism_threads(threads);
  const int reps = opt.reps_or(30, 3);  // 3 with --quick, as bench/cpu_cases.py
  const int warmup = opt.warmup_or(2, 1);
  eagle::debugging::set_log_device_placement(false);

  bench::Reporter rep;
  const std::vector<std::int64_t> sizes{1, 1024, 65536};

  // ---- Case 1 ----
  for (const std::int64_t n : sizes) {
    if (!opt.selected("dispatch_chain_add", n)) continue;
    const Inputs in = make_inputs(n);
    eagle::Tensor result;
    const bench::Stats s = bench::measure([&] { result = add_chain(in); }, warmup, reps);
    check_result(result, add_reference(in), fmt::format("add chain, {} elements", n));
    bench::Record r = chain_record("dispatch_chain_add", "eagle", n, s, threads);
    r.set("sample", bench::RawJson{bench::sample_json(result.to_vector<float>())});
    if (n == 1) {
      r.set("target_us_per_op", 0.5).set("meets_target", s.median_us / kOps <= 0.5);
    }
    rep.emit(std::move(r));
  }
  for (const std::int64_t n : sizes) {
    if (!opt.selected("dispatch_chain_mixed", n)) continue;
    const Inputs in = make_inputs(n);
    eagle::Tensor result;
    const bench::Stats s = bench::measure([&] { result = mixed_chain(in); }, warmup, reps);
    check_result(result, mixed_reference(in), fmt::format("mixed chain, {} elements", n));
    bench::Record r = chain_record("dispatch_chain_mixed", "eagle", n, s, threads);
    r.set("sample", bench::RawJson{bench::sample_json(result.to_vector<float>())});
    if (n == 1) {
      r.set("target_us_per_op", 0.5).set("meets_target", s.median_us / kOps <= 0.5);
    }
    rep.emit(std::move(r));
  }

  // ---- Case 7: a CPU:0 scope around the 1-element add chain vs no scope, interleaved ----
  if (opt.selected("scope_overhead", 1)) {
    const Inputs in = make_inputs(1);
    const std::vector<float> want = add_reference(in);
    eagle::Tensor plain, scoped;
    const auto stats = bench::measure_interleaved({[&] { plain = add_chain(in); },
                                                   [&] {
                                                     auto s = eagle::device("/CPU:0");
                                                     scoped = add_chain(in);
                                                   }},
                                                  warmup, reps);
    check_result(plain, want, "add chain without scope");
    check_result(scoped, want, "add chain in a CPU:0 scope");
    bench::check(scoped.device() == "/job:localhost/replica:0/task:0/device:CPU:0",
                 "scoped chain ran on " + scoped.device());
    const double overhead_ns = (stats[1].median_us - stats[0].median_us) * 1000.0 / kOps;
    bench::Record a = chain_record("scope_overhead", "eagle_no_scope", 1, stats[0], threads);
    rep.emit(std::move(a));
    bench::Record b = chain_record("scope_overhead", "eagle_cpu0_scope", 1, stats[1], threads);
    b.set("overhead_ns_per_op", overhead_ns);
    b.set("ratio", stats[0].median_us / stats[1].median_us);  // no-scope time / scope time
    b.set("target_ns_per_op", 50.0).set("meets_target", overhead_ns <= 50.0);
    rep.emit(std::move(b));
  }

  rep.table(fmt::format("dispatch chain: {} ops per chain, {} threads, {} reps, logging off", kOps,
                        threads, reps),
            {{"case", "case", 22, 0},
             {"impl", "impl", 17, 0},
             {"size", "size", 7, 0},
             {"median_us", "median_us", 11, 1},
             {"us/op", "us_per_op", 9, 3},
             {"min us/op", "min_us_per_op", 10, 3},
             {"max us/op", "max_us_per_op", 10, 3},
             {"ovh ns/op", "overhead_ns_per_op", 10, 1}});
  return 0;
}
