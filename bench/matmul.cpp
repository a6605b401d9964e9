// BENCHMARKS case 4 (CPU part): eagle::matmul float32 against a direct cblas_sgemm on the same
// inputs, in the same process (so the same OpenBLAS and the same thread count), timed
// interleaved. Square sizes 256, 1024 and 2048 (2048 skipped with --quick).
//
// GFLOP/s = 2 n^3 / time. ratio = cblas time / eagle time (higher is better for eagle).
// eagle allocates its output per call, as an eager op does; cblas writes a reused buffer.
// The eagle result must match cblas to a relative error (2-norm) under 1e-5.
#include <cblas.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "eagle/eagle.hpp"

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  const int reps = opt.reps_or(30, 10);
  const int warmup = opt.warmup_or(2, 1);
  eagle::debugging::set_log_device_placement(false);

  // eagle calls the same libopenblas as this program, so both run with this many threads.
  const char* env_threads = std::getenv("OPENBLAS_NUM_THREADS");
  const int threads = openblas_get_num_threads();

  std::vector<int> sizes{256, 1024};
  if (!opt.quick) sizes.push_back(2048);

  bench::Reporter rep;
  for (const int n : sizes) {
    if (!opt.selected("matmul_f32", n)) continue;
    const std::int64_t n64 = n;
    const auto nn = static_cast<std::size_t>(n64 * n64);
    // Small products run several times per timed repetition (field "inner"); times are per call.
    const int inner =
        static_cast<int>(std::max<std::int64_t>(1, (512 * 512 * 512) / (n64 * n64 * n64)));

    const eagle::Tensor a = eagle::random_uniform({n64, n64}, -1.0, 1.0, eagle::float32, 21);
    const eagle::Tensor b = eagle::random_uniform({n64, n64}, -1.0, 1.0, eagle::float32, 22);
    const std::vector<float> ha = a.to_vector<float>();
    const std::vector<float> hb = b.to_vector<float>();
    std::vector<float> hc(nn, 0.0f);

    auto sgemm = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, ha.data(), n, hb.data(),
                  n, 0.0f, hc.data(), n);
    };
    const auto stats = bench::measure_interleaved({[&] {
                                                     for (int k = 0; k < inner; ++k) {
                                                       const eagle::Tensor c = eagle::matmul(a, b);
                                                       bench::do_not_optimize(c.impl().get());
                                                     }
                                                   },
                                                   [&] {
                                                     for (int k = 0; k < inner; ++k) {
                                                       sgemm();
                                                       bench::clobber_memory();
                                                     }
                                                   }},
                                                  warmup, reps);

    // Check: eagle's product against the raw cblas product of the same inputs.
    sgemm();
    const eagle::Tensor c = eagle::matmul(a, b);
    const double err = bench::relative_error(c.to_vector<float>(), hc);
    bench::check(err < 1e-5, fmt::format("matmul {}: relative error {} vs cblas_sgemm", n, err));

    auto per_call = [&](bench::Stats s) {
      s.median_us /= inner;
      s.min_us /= inner;
      s.max_us /= inner;
      return s;
    };
    const bench::Stats se = per_call(stats[0]), sc = per_call(stats[1]);
    const double flops = 2.0 * static_cast<double>(n64 * n64 * n64);
    auto record = [&](const std::string& impl, const bench::Stats& s) {
      bench::Record r;
      r.set("case", "matmul_f32").set("impl", impl).set("size", n).set(s);
      r.set("threads", threads).set("openblas_num_threads_env", env_threads ? env_threads : "");
      r.set("inner", inner).set("gflops", flops / (s.median_us * 1e3));
      return r;
    };
    bench::Record re = record("eagle", se);
    re.set("ratio", sc.median_us / se.median_us);  // cblas time / eagle time
    re.set("rel_err", err);
    if (n >= 1024) re.set("target_ratio", 0.95);
    rep.emit(std::move(re));
    rep.emit(record("cblas_sgemm", sc));
  }

  rep.table(
      fmt::format("matmul float32 [n,n]x[n,n], OpenBLAS threads {} (OPENBLAS_NUM_THREADS={}), "
                  "{} reps; ratio = cblas time / eagle time",
                  threads, env_threads ? env_threads : "unset", reps),
      {{"impl", "impl", 12, 0},
       {"n", "size", 6, 0},
       {"median_us", "median_us", 11, 1},
       {"min_us", "min_us", 11, 1},
       {"max_us", "max_us", 11, 1},
       {"GFLOP/s", "gflops", 9, 1},
       {"ratio", "ratio", 7, 3},
       {"rel_err", "rel_err", 10, 0}});
  return 0;
}
