// Cases 1-4 of docs/performance.md on a CUDA GPU: eagle's ops on GPU:0, timed with CUDA events
// recorded on the device's own stream (GPU time) and with the host clock around the same region,
// ending in a full sync (host time). bench/gpu_peers.py does the same cases the same way with
// PyTorch and CuPy; scripts/gpu_check.sh runs all three and prints one table (bench/gpu_table.py).
//
//   dispatch_chain  10,000 chained add/mul/relu (op i: add, mul, relu for i % 3 == 0, 1, 2) at
//                   1, 1K and 64K float32 elements, one sync at the end. median_us: the whole
//                   chain, host clock, sync included; host_us_per_op: submission only (host clock
//                   before the final sync); total_us_per_op, gpu_us_per_op likewise per op.
//   add             x + y at 2^12, 2^20, 2^28 float32 elements (2^26 with --quick). gbps counts
//                   3 arrays (2 reads, 1 write); pct_of_copy compares it with a device-to-device
//                   cudaMemcpyAsync on the same stream, same run, counting 2 arrays.
//   broadcast_add   [4096,4096] + [4096]
//   reduce_sum_axis0, reduce_sum_axis1   of [4096,4096]
//   softmax         last axis of [4096,4096]
//   matmul          [n,n] x [n,n] at n = 1024, 4096, 8192: float32 with TF32 off, float32 with
//                   TF32 on, bfloat16. tflops = 2 n^3 / time.
//
// For every case but the chain, median_us is the GPU time per op (CUDA events, median over the
// repetitions) and host_median_us the host time per op with the final sync. Small ops run
// several times per repetition (field "inner"): about 1 GiB moved per repetition, at most 4096.
//
// Every result is checked on the host in double precision (a sample of entries for matmul)
// against the tolerances of docs/performance.md: relative error (2-norm) 1e-5 for float32,
// 1e-3 for TF32, 1e-2 for bfloat16. Soft placement is off and every result must live on GPU:0,
// so an op without a CUDA kernel fails its case instead of timing the CPU. A failed case is
// reported and the others still run; the exit status is then 1. Without a CUDA GPU: exit 77.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_util.hpp"
#include "cuda_device.hpp"
#include "eagle/eagle.hpp"
#include "runtime/context.hpp"
#include "runtime/device.hpp"
#include "runtime/tensor_access.hpp"
#include "runtime/tensor_impl.hpp"

namespace {

constexpr int kChainOps = 10000;
constexpr double kTolF32 = 1e-5;
constexpr double kTolTf32 = 1e-3;
constexpr double kTolBf16 = 1e-2;

// ---- Failures: reported, counted, and the run goes on ------------------------------------------
int g_failures = 0;

void fail(const std::string& what) {
  std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
  std::fflush(stderr);
  ++g_failures;
}

struct CaseFailed : std::exception {
  const char* what() const noexcept override { return "case failed"; }
};

// Fails the case (throws) unless `ok`.
void require(bool ok, const std::string& what) {
  if (ok) return;
  fail(what);
  throw CaseFailed{};
}

void cuda_ok(cudaError_t e, const char* expr) {
  if (e == cudaSuccess) return;
  fail(fmt::format("{}: {} ({})", expr, cudaGetErrorName(e), cudaGetErrorString(e)));
  throw CaseFailed{};
}
#define CUDA_OK(expr) cuda_ok((expr), #expr)

void require_on_gpu(const eagle::Tensor& t, const std::string& what) {
  const std::string& d = t.device();
  const std::string want = "device:GPU:0";
  require(d.size() >= want.size() && d.compare(d.size() - want.size(), want.size(), want) == 0,
          what + " ran on " + d + ", not GPU:0");
}

void require_close(double err, double tol, const std::string& what) {
  require(err < tol, fmt::format("{}: relative error {:.3g} (tolerance {:g})", what, err, tol));
}

// ---- Timing ------------------------------------------------------------------------------------
using Clock = std::chrono::steady_clock;

double us_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

struct Sample {
  double gpu_us = 0;     // CUDA events around the region, on eagle's stream
  double host_us = 0;    // host clock, final sync included
  double submit_us = 0;  // host clock before the final sync
};

// One region: `inner` calls of f, between two events on `stream`, then a full sync. Times are
// per call.
class GpuTimer {
 public:
  explicit GpuTimer(cudaStream_t stream) : stream_(stream) {
    CUDA_OK(cudaEventCreate(&start_));
    CUDA_OK(cudaEventCreate(&stop_));
  }
  ~GpuTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  template <class F>
  Sample time(F&& f, int inner) {
    eagle::sync_devices();  // start from an idle device
    CUDA_OK(cudaStreamSynchronize(stream_));
    const auto t0 = Clock::now();
    CUDA_OK(cudaEventRecord(start_, stream_));
    for (int k = 0; k < inner; ++k) f();
    CUDA_OK(cudaEventRecord(stop_, stream_));
    const auto t1 = Clock::now();
    eagle::sync_devices();
    CUDA_OK(cudaEventSynchronize(stop_));
    const auto t2 = Clock::now();
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, start_, stop_));
    Sample s;
    s.gpu_us = 1e3 * static_cast<double>(ms) / inner;
    s.submit_us = us_between(t0, t1) / inner;
    s.host_us = us_between(t0, t2) / inner;
    return s;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

struct Timings {
  bench::Stats gpu, host, submit;
};

Timings summarize(const std::vector<Sample>& samples) {
  std::vector<double> g, h, s;
  for (const Sample& x : samples) {
    g.push_back(x.gpu_us);
    h.push_back(x.host_us);
    s.push_back(x.submit_us);
  }
  return {bench::summarize(g), bench::summarize(h), bench::summarize(s)};
}

// Side by side: each repetition times every function once, in turn (bench::measure_interleaved).
std::vector<Timings> measure(GpuTimer& timer, const std::vector<std::function<void()>>& fns,
                             int inner, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) {
    for (const auto& f : fns) timer.time(f, inner);
  }
  std::vector<std::vector<Sample>> samples(fns.size());
  for (int r = 0; r < reps; ++r) {
    for (std::size_t k = 0; k < fns.size(); ++k) samples[k].push_back(timer.time(fns[k], inner));
  }
  std::vector<Timings> out;
  for (const auto& v : samples) out.push_back(summarize(v));
  return out;
}

// About 1 GiB moved per repetition, at least one call, at most 4096.
int inner_for_bytes(double bytes) {
  return static_cast<int>(std::clamp(std::floor(double(1 << 30) / bytes), 1.0, 4096.0));
}

double gbps(double bytes, double us) { return bytes / (us * 1e3); }

// ---- Host references ---------------------------------------------------------------------------
std::vector<float> to_host_f32(const eagle::Tensor& t) { return t.to_vector<float>(); }

std::vector<float> to_host_bf16_as_f32(const eagle::Tensor& t) {
  const std::vector<eagle::bfloat16> v = t.to_vector<eagle::bfloat16>();
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<float>(v[i]);
  return out;
}

// ---- The run -----------------------------------------------------------------------------------
struct Env {
  bench::Options opt;
  int reps = 30;
  int warmup = 2;
  std::string gpu_name;
  cudaStream_t stream = nullptr;
  bench::Reporter* rep = nullptr;
};

bench::Record base_record(const std::string& name, long long size, const std::string& dtype) {
  bench::Record r;
  r.set("case", name).set("impl", "eagle").set("size", size).set("dtype", dtype);
  return r;
}

void add_timings(bench::Record& r, const Timings& t, int inner) {
  r.set(t.gpu);  // median_us, min_us, max_us, reps: GPU time per op
  r.set("host_median_us", t.host.median_us).set("inner", inner);
}

// Runs one case; a failure (a check, a CUDA error, an eagle exception) is reported and counted.
template <class F>
void run_case(const std::string& name, F&& body) {
  try {
    body();
  } catch (const CaseFailed&) {
    std::fprintf(stderr, "case %s: FAILED\n", name.c_str());
  } catch (const std::exception& e) {
    fail(fmt::format("case {}: exception: {}", name, e.what()));
  }
  std::fflush(stdout);
}

// ---- Case 1: dispatch chain --------------------------------------------------------------------
void dispatch_chain(Env& env, GpuTimer& timer) {
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{1024}, std::int64_t{65536}}) {
    if (!env.opt.selected("dispatch_chain", n)) continue;
    run_case(fmt::format("dispatch_chain/{}", n), [&] {
      const eagle::Shape shape{n};
      const eagle::Tensor x0 = eagle::random_uniform(shape, 0.0, 1.0, eagle::float32, 1);
      const eagle::Tensor y = eagle::random_uniform(shape, -0.25, 0.75, eagle::float32, 2);
      const eagle::Tensor z = eagle::random_uniform(shape, 0.9, 1.0, eagle::float32, 3);
      eagle::Tensor result;
      auto chain = [&] {
        eagle::Tensor x = x0;
        for (int i = 0; i < kChainOps; ++i) {
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
        result = x;
      };
      const Timings t = measure(timer, {chain}, 1, env.warmup, env.reps)[0];

      // Check: the same chain on the host, in float32, op by op.
      const std::vector<float> hx = to_host_f32(x0), hy = to_host_f32(y), hz = to_host_f32(z);
      std::vector<float> want(hx.size());
      for (std::size_t e = 0; e < want.size(); ++e) {
        float x = hx[e];
        for (int i = 0; i < kChainOps; ++i) {
          switch (i % 3) {
            case 0:
              x = x + hy[e];
              break;
            case 1:
              x = x * hz[e];
              break;
            default:
              x = x < 0.0f ? 0.0f : x;
              break;
          }
        }
        want[e] = x;
      }
      require_on_gpu(result, "dispatch chain");
      const double err = bench::relative_error(to_host_f32(result), want);
      require_close(err, kTolF32, fmt::format("dispatch chain, {} elements", n));

      bench::Record r = base_record("dispatch_chain", n, "float32");
      r.set(t.host);  // median_us etc.: the whole chain, host clock, final sync included
      r.set("ops", kChainOps);
      r.set("host_us_per_op", t.submit.median_us / kChainOps);
      r.set("total_us_per_op", t.host.median_us / kChainOps);
      r.set("gpu_us_per_op", t.gpu.median_us / kChainOps);
      r.set("target_host_us_per_op", 3.0);
      r.set("rel_err", err).set("gpu", env.gpu_name);
      env.rep->emit(std::move(r));
    });
  }
}

// ---- Case 2: elementwise add against a device-to-device copy -----------------------------------
void add(Env& env, GpuTimer& timer) {
  for (const int log2n : {12, 20, env.opt.quick ? 26 : 28}) {
    const std::int64_t n = std::int64_t{1} << log2n;
    if (!env.opt.selected("add", n)) continue;
    run_case(fmt::format("add/{}", n), [&] {
      const eagle::Tensor a = eagle::random_uniform({n}, -1.0, 1.0, eagle::float32, 11);
      const eagle::Tensor b = eagle::random_uniform({n}, -1.0, 1.0, eagle::float32, 12);
      // The copy's destination: a tensor of this program's own, overwritten by the copies.
      const eagle::Tensor scratch = eagle::random_uniform({n}, -1.0, 1.0, eagle::float32, 13);
      require_on_gpu(a, "random_uniform");
      require_on_gpu(scratch, "random_uniform");
      const auto bytes = static_cast<std::size_t>(n) * sizeof(float);
      const float* src = eagle::runtime::impl_of(a)->data<const float>();
      float* dst = eagle::runtime::impl_of(scratch)->data<float>();

      const double add_bytes = 3.0 * static_cast<double>(bytes);
      const double copy_bytes = 2.0 * static_cast<double>(bytes);
      const int inner = inner_for_bytes(add_bytes);
      eagle::Tensor z;
      auto run_add = [&] { z = eagle::add(a, b); };
      auto run_copy = [&] {
        CUDA_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, env.stream));
      };
      const std::vector<Timings> t =
          measure(timer, {run_add, run_copy}, inner, env.warmup, env.reps);

      require_on_gpu(z, "add");
      const std::vector<float> ha = to_host_f32(a), hb = to_host_f32(b);
      std::vector<double> want(ha.size());
      for (std::size_t i = 0; i < want.size(); ++i) want[i] = double(ha[i]) + double(hb[i]);
      const double err = bench::relative_error(to_host_f32(z), want);
      require_close(err, kTolF32, fmt::format("add 2^{}", log2n));
      require(to_host_f32(scratch) == ha, "the device-to-device copy's result");

      const double copy_gbps = gbps(copy_bytes, t[1].gpu.median_us);
      bench::Record r = base_record("add", n, "float32");
      add_timings(r, t[0], inner);
      r.set("bytes", add_bytes).set("gbps", gbps(add_bytes, t[0].gpu.median_us));
      r.set("copy_median_us", t[1].gpu.median_us).set("copy_gbps", copy_gbps);
      r.set("pct_of_copy", 100.0 * gbps(add_bytes, t[0].gpu.median_us) / copy_gbps);
      if (log2n >= 26) r.set("target_pct", 90.0);
      r.set("rel_err", err).set("gpu", env.gpu_name);
      env.rep->emit(std::move(r));
    });
  }
}

// ---- Case 3: broadcast add, reductions, softmax on [4096,4096] ---------------------------------
void row_ops(Env& env, GpuTimer& timer) {
  constexpr std::int64_t kN = 4096;
  constexpr std::size_t kNN = static_cast<std::size_t>(kN * kN);
  const double mat_bytes = 4.0 * static_cast<double>(kNN);
  const double row_bytes = 4.0 * static_cast<double>(kN);
  const bool any = env.opt.selected("broadcast_add", kNN) ||
                   env.opt.selected("reduce_sum_axis0", kNN) ||
                   env.opt.selected("reduce_sum_axis1", kNN) || env.opt.selected("softmax", kNN);
  if (!any) return;

  eagle::Tensor x, v;
  std::vector<float> hx, hv;
  run_case("row_ops inputs", [&] {
    x = eagle::random_uniform({kN, kN}, -1.0, 1.0, eagle::float32, 31);
    v = eagle::random_uniform({kN}, -1.0, 1.0, eagle::float32, 32);
    require_on_gpu(x, "random_uniform");
    hx = to_host_f32(x);
    hv = to_host_f32(v);
  });
  if (hx.empty()) return;

  struct Op {
    std::string name;
    std::string shape;
    double bytes;  // the least traffic: every input read once, the output written once
    std::function<eagle::Tensor()> run;
    std::function<std::vector<double>()> reference;
  };
  const std::vector<Op> ops = {
      {"broadcast_add", "[4096,4096]+[4096]", 2 * mat_bytes + row_bytes, [&] { return x + v; },
       [&] {
         std::vector<double> w(kNN);
         for (std::size_t i = 0; i < kNN; ++i) w[i] = double(hx[i]) + double(hv[i % kN]);
         return w;
       }},
      {"reduce_sum_axis0", "[4096,4096]", mat_bytes + row_bytes,
       [&] { return eagle::reduce_sum(x, {0}); },
       [&] {
         std::vector<double> w(kN, 0.0);
         for (std::size_t i = 0; i < kNN; ++i) w[i % kN] += hx[i];
         return w;
       }},
      {"reduce_sum_axis1", "[4096,4096]", mat_bytes + row_bytes,
       [&] { return eagle::reduce_sum(x, {1}); },
       [&] {
         std::vector<double> w(kN, 0.0);
         for (std::size_t i = 0; i < kNN; ++i) w[i / kN] += hx[i];
         return w;
       }},
      {"softmax", "[4096,4096]", 2 * mat_bytes, [&] { return eagle::softmax(x); },
       [&] {
         std::vector<double> w(kNN);
         for (std::size_t r = 0; r < static_cast<std::size_t>(kN); ++r) {
           const float* row = hx.data() + r * kN;
           double m = row[0];
           for (std::int64_t j = 1; j < kN; ++j) m = std::max(m, double(row[j]));
           double sum = 0;
           for (std::int64_t j = 0; j < kN; ++j) sum += std::exp(double(row[j]) - m);
           for (std::int64_t j = 0; j < kN; ++j) w[r * kN + j] = std::exp(double(row[j]) - m) / sum;
         }
         return w;
       }},
  };
  for (const Op& op : ops) {
    if (!env.opt.selected(op.name, kNN)) continue;
    run_case(op.name, [&] {
      const int inner = inner_for_bytes(op.bytes);
      eagle::Tensor out;
      const Timings t = measure(timer, {[&] { out = op.run(); }}, inner, env.warmup, env.reps)[0];
      require_on_gpu(out, op.name);
      const double err = bench::relative_error(to_host_f32(out), op.reference());
      require_close(err, kTolF32, op.name);
      bench::Record r = base_record(op.name, static_cast<long long>(kNN), "float32");
      r.set("shape", op.shape);
      add_timings(r, t, inner);
      r.set("bytes", op.bytes).set("gbps", gbps(op.bytes, t.gpu.median_us));
      r.set("rel_err", err).set("gpu", env.gpu_name);
      env.rep->emit(std::move(r));
    });
  }
}

// ---- Case 4: matmul ----------------------------------------------------------------------------
void matmul(Env& env, GpuTimer& timer) {
  struct Variant {
    std::string dtype;
    bool tf32;
    double tol;
  };
  const std::vector<Variant> variants = {
      {"float32", false, kTolF32}, {"float32", true, kTolTf32}, {"bfloat16", false, kTolBf16}};
  for (const int n : {1024, 4096, 8192}) {
    if (!env.opt.selected("matmul", n)) continue;
    const std::int64_t n64 = n;
    eagle::Tensor a, b;
    run_case(fmt::format("matmul/{} inputs", n), [&] {
      a = eagle::random_uniform({n64, n64}, -1.0, 1.0, eagle::float32, 41);
      b = eagle::random_uniform({n64, n64}, -1.0, 1.0, eagle::float32, 42);
      require_on_gpu(a, "random_uniform");
    });
    if (!a.defined()) continue;

    // The checked entries: 256 spread over the output, the corners among them.
    std::vector<std::pair<std::int64_t, std::int64_t>> picks = {
        {0, 0}, {0, n64 - 1}, {n64 - 1, 0}, {n64 - 1, n64 - 1}};
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::int64_t> pick(0, n64 - 1);
    while (picks.size() < 256) picks.emplace_back(pick(rng), pick(rng));

    for (const Variant& var : variants) {
      const std::string label =
          fmt::format("matmul/{} {}{}", n, var.dtype,
                      var.dtype == "float32" ? (var.tf32 ? " tf32 on" : " tf32 off") : "");
      run_case(label, [&] {
        const bool bf16 = var.dtype == "bfloat16";
        const eagle::Tensor xa = bf16 ? eagle::cast(a, eagle::kBFloat16) : a;
        const eagle::Tensor xb = bf16 ? eagle::cast(b, eagle::kBFloat16) : b;
        eagle::config::enable_tensor_float_32_execution(var.tf32);
        const int inner =
            static_cast<int>(std::max<std::int64_t>(1, (2048LL * 2048 * 2048) / (n64 * n64 * n64)));
        eagle::Tensor c;
        const Timings t =
            measure(timer, {[&] { c = eagle::matmul(xa, xb); }}, inner, env.warmup, env.reps)[0];
        require_on_gpu(c, label);

        // Check sampled entries against the product of the inputs as the GPU saw them (bf16
        // inputs rounded), in double.
        const std::vector<float> ha = bf16 ? to_host_bf16_as_f32(xa) : to_host_f32(xa);
        const std::vector<float> hb = bf16 ? to_host_bf16_as_f32(xb) : to_host_f32(xb);
        const std::vector<float> hc = bf16 ? to_host_bf16_as_f32(c) : to_host_f32(c);
        std::vector<double> got, want;
        for (const auto& [i, j] : picks) {
          double s = 0;
          for (std::int64_t k = 0; k < n64; ++k) {
            s += double(ha[static_cast<std::size_t>(i * n64 + k)]) *
                 double(hb[static_cast<std::size_t>(k * n64 + j)]);
          }
          want.push_back(s);
          got.push_back(hc[static_cast<std::size_t>(i * n64 + j)]);
        }
        const double err = bench::relative_error(got, want);
        require_close(err, var.tol, label);

        const double flops = 2.0 * static_cast<double>(n64 * n64 * n64);
        bench::Record r = base_record("matmul", n, var.dtype);
        if (!bf16) r.set("tf32", var.tf32);
        add_timings(r, t, inner);
        r.set("tflops", flops / (t.gpu.median_us * 1e6));
        r.set("rel_err", err).set("tolerance", var.tol).set("checked_entries", 256);
        r.set("gpu", env.gpu_name);
        env.rep->emit(std::move(r));
      });
    }
    eagle::config::enable_tensor_float_32_execution(true);  // eagle's default
  }
}

}  // namespace

int main(int argc, char** argv) {
  Env env;
  env.opt = bench::parse_args(argc, argv);
  env.reps = env.opt.reps_or(30, 10);
  env.warmup = env.opt.warmup_or(2, 1);

  // A CUDA GPU or nothing: exit 77 ("skipped") on machines without one, simulated GPUs included.
  if (!eagle::is_built_with_cuda()) {
    std::puts("SKIP: eagle was built without the CUDA backend");
    return 77;
  }
  const auto gpus = eagle::config::list_physical_devices("GPU");
  if (gpus.empty()) {
    std::puts(
        "SKIP: no CUDA GPU is visible (eagle::config::list_physical_devices(\"GPU\") is empty)");
    return 77;
  }
  const eagle::config::DeviceDetails details = eagle::config::get_device_details(gpus.front());
  if (!details.compute_capability) {
    std::printf("SKIP: GPU:0 is not a CUDA GPU (%s)\n", details.device_name.c_str());
    return 77;
  }
  env.gpu_name = details.device_name;

  eagle::debugging::set_log_device_placement(false);
  // An op without a GPU kernel must fail its case, not run on the CPU.
  eagle::config::set_soft_device_placement(false);
  auto scope = eagle::device("/GPU:0");

  eagle::cuda::CudaDevice* gpu = nullptr;
  for (eagle::runtime::Device* d : eagle::runtime::Context::get().devices()) {
    if (d->type() == eagle::runtime::DeviceType::kGPU && d->id() == 0) {
      gpu = dynamic_cast<eagle::cuda::CudaDevice*>(d);
    }
  }
  if (gpu == nullptr) {
    std::fprintf(stderr, "FAIL: GPU:0 is not an eagle::cuda::CudaDevice\n");
    return 1;
  }
  env.stream = gpu->stream();
  if (cudaSetDevice(gpu->ordinal()) != cudaSuccess) {
    std::fprintf(stderr, "FAIL: cudaSetDevice(%d)\n", gpu->ordinal());
    return 1;
  }
  std::printf("# eagle GPU benchmark on %s (compute capability %d.%d), %d reps, warm-up %d%s\n",
              env.gpu_name.c_str(), details.compute_capability->first,
              details.compute_capability->second, env.reps, env.warmup,
              env.opt.quick ? ", --quick" : "");
  std::fflush(stdout);

  bench::Reporter rep;
  env.rep = &rep;
  try {
    GpuTimer timer(env.stream);
    dispatch_chain(env, timer);
    add(env, timer);
    row_ops(env, timer);
    matmul(env, timer);
  } catch (const CaseFailed&) {
    std::fprintf(stderr, "FAIL: could not set up the CUDA timer\n");
  }

  rep.table(fmt::format("eagle on {}: median of {} reps; us = GPU time per op (CUDA events), "
                        "host = host time per op with the sync; dispatch_chain: us = whole chain",
                        env.gpu_name, env.reps),
            {{"case", "case", 17, 0},
             {"size", "size", 10, 0},
             {"dtype", "dtype", 9, 0},
             {"tf32", "tf32", 5, 0},
             {"median_us", "median_us", 11, 2},
             {"host_us", "host_median_us", 10, 2},
             {"GB/s", "gbps", 8, 1},
             {"%copy", "pct_of_copy", 6, 1},
             {"TFLOP/s", "tflops", 8, 1},
             {"submit/op", "host_us_per_op", 9, 2},
             {"total/op", "total_us_per_op", 9, 2}});
  if (g_failures > 0) {
    std::fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  return 0;
}
