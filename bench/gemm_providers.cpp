// GEMM providers on this CPU (issue 17): OpenBLAS's cblas_sgemm, oneDNN's dnnl_sgemm and a cached
// oneDNN matmul primitive, and eagle::matmul (whichever provider EAGLE_MATMUL_PROVIDER picks), on
// the same inputs in one process, each timed in a phase of its own (Note [OpenBLAS's spinning
// threads] in bench_util.hpp), on 1 and 2 threads (--threads N: only N).
//
// Shapes: the MLP of bench/mlp_step.cpp (784-256-256-10) at batch 1, 32 and 512, each layer's
// forward product X W and its two backward products dY W^T (A B^T) and X^T dY (A^T B), then
// square n x n for n = 256, 512, 1024, 2048, 4096 (and 8192 unless --quick).
// Repetitions: 30 (10 with --quick), 10 above 10^11 flops, 5 above 10^12; small products run
// several times per timed repetition ("inner") and times are per call. Medians.
//
// GFLOP/s = 2 m n k / time. Every provider's result must match cblas_sgemm's to a relative error
// (2-norm) under 1e-5. Run with OMP_WAIT_POLICY=PASSIVE (as bench/compare does): libgomp's
// spinning workers (oneDNN) would otherwise steal the two cores from OpenBLAS's threads.
// bench/gemm_peers.py times the same shapes in NumPy, TensorFlow and JAX.
#include <cblas.h>
#include <omp.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <dnnl.hpp>

#include "bench_inputs.hpp"
#include "bench_util.hpp"
#include "eagle/eagle.hpp"

extern "C" char* openblas_get_corename(void);

namespace {

using std::int64_t;

// C[m, n] = op(A) op(B); A stored [k, m] when ta, B stored [n, k] when tb (row-major).
struct Gemm {
  std::string label;
  bool ta, tb;
  int64_t m, n, k;
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * k; }
};

std::vector<Gemm> shapes(bool quick) {
  std::vector<Gemm> g;
  const int64_t widths[] = {784, 256, 256, 10};
  for (int64_t batch : {1, 32, 512}) {
    for (int layer = 0; layer < 3; ++layer) {
      const int64_t in = widths[layer], out = widths[layer + 1];
      const std::string l = fmt::format("mlp_b{}_l{}", batch, layer);
      g.push_back({l + "_fwd", false, false, batch, out, in});  // X W
      g.push_back({l + "_dx", false, true, batch, in, out});    // dY W^T
      g.push_back({l + "_dw", true, false, in, out, batch});    // X^T dY
    }
  }
  std::vector<int64_t> sq{256, 512, 1024, 2048, 4096};
  if (!quick) sq.push_back(8192);
  for (int64_t n : sq) g.push_back({fmt::format("square_{}", n), false, false, n, n, n});
  return g;
}

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// A oneDNN matmul primitive for one shape, made once (as eagle's cache does).
struct DnnlMatmul {
  dnnl::memory::desc a, b, c;
  dnnl::matmul primitive;
  std::string impl;
  explicit DnnlMatmul(const Gemm& g) {
    using dt = dnnl::memory::data_type;
    a = dnnl::memory::desc({g.m, g.k}, dt::f32,
                           g.ta ? dnnl::memory::dims{1, g.m} : dnnl::memory::dims{g.k, 1});
    b = dnnl::memory::desc({g.k, g.n}, dt::f32,
                           g.tb ? dnnl::memory::dims{1, g.k} : dnnl::memory::dims{g.n, 1});
    c = dnnl::memory::desc({g.m, g.n}, dt::f32, dnnl::memory::dims{g.n, 1});
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), engine());
    primitive = dnnl::matmul(pd);
    impl = pd.impl_info_str();
  }
  void run(const float* pa, const float* pb, float* pc) const {
    dnnl::stream s(engine());
    primitive.execute(s, {{DNNL_ARG_SRC, dnnl::memory(a, engine(), const_cast<float*>(pa))},
                          {DNNL_ARG_WEIGHTS, dnnl::memory(b, engine(), const_cast<float*>(pb))},
                          {DNNL_ARG_DST, dnnl::memory(c, engine(), pc)}});
    s.wait();
  }
};

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  const int warmup = opt.warmup_or(2, 1);
  eagle::debugging::set_log_device_placement(false);
  const char* provider_env = std::getenv("EAGLE_MATMUL_PROVIDER");
  const char* wait_env = std::getenv("OMP_WAIT_POLICY");
  const std::vector<int> thread_counts =
      opt.threads > 0 ? std::vector<int>{opt.threads} : std::vector<int>{1, 2};

  bench::Reporter rep;
  for (const int threads : thread_counts) {
    openblas_set_num_threads(threads);
    omp_set_num_threads(threads);
    eagle::config::threading::set_intra_op_parallelism_threads(threads);
    for (const Gemm& g : shapes(opt.quick)) {
      if (!opt.selected(g.label, 0)) continue;
      const int reps = opt.reps > 0       ? opt.reps
                       : g.flops() > 1e12 ? 5
                       : g.flops() > 1e11 ? 10
                                          : opt.reps_or(30, 10);
      const int inner = static_cast<int>(std::max(1.0, 2.0 * 256 * 256 * 256 / g.flops()));
      const std::vector<float> ha = bench::shared_inputs(g.m * g.k, 1, -1.0, 1.0);
      const std::vector<float> hb = bench::shared_inputs(g.k * g.n, 2, -1.0, 1.0);
      std::vector<float> c_blas(static_cast<std::size_t>(g.m * g.n));
      std::vector<float> c_sgemm(c_blas.size()), c_matmul(c_blas.size());
      const eagle::Tensor ta =
          eagle::constant(ha, g.ta ? eagle::Shape{g.k, g.m} : eagle::Shape{g.m, g.k});
      const eagle::Tensor tb =
          eagle::constant(hb, g.tb ? eagle::Shape{g.n, g.k} : eagle::Shape{g.k, g.n});
      const int64_t lda = g.ta ? g.m : g.k, ldb = g.tb ? g.k : g.n;
      const DnnlMatmul dm(g);

      auto blas = [&] {
        cblas_sgemm(CblasRowMajor, g.ta ? CblasTrans : CblasNoTrans,
                    g.tb ? CblasTrans : CblasNoTrans, g.m, g.n, g.k, 1.0f, ha.data(), lda,
                    hb.data(), ldb, 0.0f, c_blas.data(), g.n);
      };
      // eagle's calls set this thread's OpenMP team size too: set it back before each oneDNN call.
      auto sgemm = [&] {
        omp_set_num_threads(threads);
        dnnl_sgemm(g.ta ? 'T' : 'N', g.tb ? 'T' : 'N', g.m, g.n, g.k, 1.0f, ha.data(), lda,
                   hb.data(), ldb, 0.0f, c_sgemm.data(), g.n);
      };
      auto matmul = [&] {
        omp_set_num_threads(threads);
        dm.run(ha.data(), hb.data(), c_matmul.data());
      };
      auto repeat = [inner](auto f) {
        return [inner, f] {
          for (int i = 0; i < inner; ++i) {
            f();
            bench::clobber_memory();
          }
        };
      };
      // Each provider in a phase of its own, the OpenBLAS ones followed by a pause (Note
      // [OpenBLAS's spinning threads]): oneDNN first, OpenBLAS's cblas_sgemm last.
      const bool eagle_on_openblas =
          provider_env != nullptr && std::string(provider_env) == "openblas";
      std::vector<bench::Stats> stats(4);
      stats[1] = bench::measure(repeat(sgemm), warmup, reps);
      stats[2] = bench::measure(repeat(matmul), warmup, reps);
      stats[3] = bench::measure(repeat([&] {
                                  const eagle::Tensor c = eagle::matmul(ta, tb, g.ta, g.tb);
                                  bench::do_not_optimize(&c);
                                }),
                                warmup, reps);
      if (eagle_on_openblas) bench::let_openblas_threads_sleep();
      stats[0] = bench::measure(repeat(blas), warmup, reps);

      blas();
      sgemm();
      matmul();
      const std::vector<float> c_eagle = eagle::matmul(ta, tb, g.ta, g.tb).to_vector<float>();
      bench::let_openblas_threads_sleep();
      const char* names[] = {"openblas", "dnnl_sgemm", "dnnl_matmul", "eagle"};
      const std::vector<float>* results[] = {&c_blas, &c_sgemm, &c_matmul, &c_eagle};
      for (int i = 0; i < 4; ++i) {
        const double err = bench::relative_error(*results[i], c_blas);
        bench::check(err < 1e-5, fmt::format("{} {}: relative error {}", names[i], g.label, err));
        bench::Stats s = stats[static_cast<std::size_t>(i)];
        s.median_us /= inner;
        s.min_us /= inner;
        s.max_us /= inner;
        bench::Record r;
        r.set("case", "gemm_f32").set("impl", names[i]).set("label", g.label);
        r.set("m", static_cast<long long>(g.m)).set("n", static_cast<long long>(g.n));
        r.set("k", static_cast<long long>(g.k)).set("transpose_a", g.ta).set("transpose_b", g.tb);
        r.set(s).set("threads", threads).set("inner", inner);
        r.set("gflops", g.flops() / (s.median_us * 1e3));
        r.set("ratio", stats[0].median_us / stats[static_cast<std::size_t>(i)].median_us);
        r.set("rel_err", err);
        if (i == 0) r.set("openblas_core", openblas_get_corename());
        if (i == 2) r.set("dnnl_impl", dm.impl);
        if (i == 3) r.set("eagle_matmul_provider_env", provider_env ? provider_env : "");
        r.set("omp_wait_policy", wait_env ? wait_env : "");
        rep.emit(std::move(r));
      }
    }
  }
  rep.table(fmt::format("GEMM float32 providers, OpenBLAS core {}, OMP_WAIT_POLICY={}, "
                        "EAGLE_MATMUL_PROVIDER={}; ratio = openblas time / this time",
                        openblas_get_corename(), wait_env ? wait_env : "unset",
                        provider_env ? provider_env : "unset"),
            {{"impl", "impl", 12, 0},
             {"shape", "label", 16, 0},
             {"thr", "threads", 4, 0},
             {"median_us", "median_us", 11, 1},
             {"GFLOP/s", "gflops", 9, 1},
             {"ratio", "ratio", 7, 3}});
  return 0;
}
