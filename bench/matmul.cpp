// Case 4 of docs/performance.md (CPU part): eagle::matmul float32 against a direct cblas_sgemm on
// the same inputs, in the same process (so the same OpenBLAS and the same thread count), timed one
// after the other (Note [OpenBLAS's spinning threads] in bench_util.hpp). Square sizes 256, 1024,
// 4096, 8192 and a batch of 16 x [4096, 4096] (cblas: one sgemm per matrix); --quick runs 256
// and 1024.
// Repetitions as bench/cpu_cases.py: 30 (10 with
// --quick), but 10 above 10^11 flops and 5 above 10^12, where one product takes seconds here.
//
// GFLOP/s = 2 b n^3 / time. ratio = cblas time / eagle time (higher is better for eagle).
// eagle allocates its output per call, as an eager op does; cblas writes a reused buffer.
// eagle's float32 products run on oneDNN when built (Note [Matmul providers]): then the ratio
// compares the providers; EAGLE_MATMUL_PROVIDER=openblas measures eagle's own overhead.
// The eagle result must match cblas to a relative error (2-norm) under 1e-5. Inputs are the
// shared ones of bench/compare (Note [Shared benchmark inputs]).
#include <cblas.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_inputs.hpp"
#include "bench_util.hpp"
#include "eagle/eagle.hpp"

namespace {

struct Size {
  std::int64_t batch;
  std::int64_t n;
  std::string label() const {
    return batch == 1 ? std::to_string(n) : fmt::format("{}x{}x{}", batch, n, n);
  }
  double flops() const { return 2.0 * static_cast<double>(batch * n * n * n); }
};

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  const int warmup = opt.warmup_or(2, 1);
  eagle::debugging::set_log_device_placement(false);

  // eagle calls the same libopenblas as this program, so both run with this many threads.
  const char* env_threads = std::getenv("OPENBLAS_NUM_THREADS");
  const int threads = openblas_get_num_threads();

  std::vector<Size> sizes{{1, 256}, {1, 1024}};
  if (!opt.quick) sizes.insert(sizes.end(), {{1, 4096}, {1, 8192}, {16, 4096}});

  bench::Reporter rep;
  for (const Size& size : sizes) {
    const std::int64_t n = size.n, batch = size.batch;
    if (!opt.selected("matmul_f32", n) && !opt.selected("matmul_f32/" + size.label(), 0)) continue;
    const int reps = opt.reps > 0          ? opt.reps
                     : size.flops() > 1e12 ? 5
                     : size.flops() > 1e11 ? 10
                                           : opt.reps_or(30, 10);
    const auto nn = static_cast<std::size_t>(n * n);
    // Small products run several times per timed repetition (field "inner"); times are per call.
    const int inner =
        static_cast<int>(std::max<std::int64_t>(1, (512 * 512 * 512) / (batch * n * n * n)));

    const std::vector<float> ha = bench::shared_inputs(batch * n * n, 1, -1.0, 1.0);
    const std::vector<float> hb = bench::shared_inputs(batch * n * n, 2, -1.0, 1.0);
    const eagle::Shape shape = batch == 1 ? eagle::Shape{n, n} : eagle::Shape{batch, n, n};
    const eagle::Tensor a = eagle::constant(ha, shape);
    const eagle::Tensor b = eagle::constant(hb, shape);
    std::vector<float> hc(static_cast<std::size_t>(batch) * nn, 0.0f);

    const int ni = static_cast<int>(n);
    auto sgemm = [&] {
      for (std::int64_t k = 0; k < batch; ++k) {
        const std::size_t off = static_cast<std::size_t>(k) * nn;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0f, ha.data() + off,
                    ni, hb.data() + off, ni, 0.0f, hc.data() + off, ni);
      }
    };
    auto eagle_calls = [&] {
      for (int k = 0; k < inner; ++k) {
        const eagle::Tensor c = eagle::matmul(a, b);
        bench::do_not_optimize(&c);
      }
    };
    auto cblas_calls = [&] {
      for (int k = 0; k < inner; ++k) {
        sgemm();
        bench::clobber_memory();
      }
    };
    // eagle first, then cblas in a phase of its own (Note [OpenBLAS's spinning threads]).
    const std::vector<bench::Stats> stats = {bench::measure(eagle_calls, warmup, reps),
                                             bench::measure(cblas_calls, warmup, reps)};

    // Check: eagle's product against the raw cblas product of the same inputs.
    sgemm();
    const std::vector<float> got = eagle::matmul(a, b).to_vector<float>();
    const double err = bench::relative_error(got, hc);
    bench::check(err < 1e-5,
                 fmt::format("matmul {}: relative error {} vs cblas_sgemm", size.label(), err));
    bench::let_openblas_threads_sleep();

    auto per_call = [&](bench::Stats s) {
      s.median_us /= inner;
      s.min_us /= inner;
      s.max_us /= inner;
      return s;
    };
    const bench::Stats se = per_call(stats[0]), sc = per_call(stats[1]);
    auto record = [&](const std::string& impl, const bench::Stats& s) {
      bench::Record r;
      r.set("case", "matmul_f32").set("impl", impl).set("label", size.label());
      r.set("size", static_cast<long long>(n)).set("batch", static_cast<long long>(batch)).set(s);
      r.set("threads", threads).set("openblas_num_threads_env", env_threads ? env_threads : "");
      r.set("inner", inner).set("gflops", size.flops() / (s.median_us * 1e3));
      return r;
    };
    bench::Record re = record("eagle", se);
    re.set("ratio", sc.median_us / se.median_us);  // cblas time / eagle time
    re.set("rel_err", err);
    if (n >= 1024) re.set("target_ratio", 0.95);
    re.set("sample", bench::RawJson{bench::sample_json(got)});
    rep.emit(std::move(re));
    rep.emit(record("cblas_sgemm", sc));
  }

  rep.table(
      fmt::format("matmul float32 [b,n,n]x[b,n,n], OpenBLAS threads {} (OPENBLAS_NUM_THREADS={}); "
                  "ratio = cblas time / eagle time",
                  threads, env_threads ? env_threads : "unset"),
      {{"impl", "impl", 12, 0},
       {"size", "label", 13, 0},
       {"reps", "reps", 5, 0},
       {"median_us", "median_us", 12, 1},
       {"min_us", "min_us", 12, 1},
       {"max_us", "max_us", 12, 1},
       {"GFLOP/s", "gflops", 9, 1},
       {"ratio", "ratio", 7, 3},
       {"rel_err", "rel_err", 10, 0}});
  return 0;
}
