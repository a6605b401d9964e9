// Case 2 of docs/performance.md ("Benchmark cases and targets"): eagle::add of two float32 tensors
// against a memcpy of the output's size and a plain C++ loop, in the same run, timed interleaved
// (plus, as a diagnostic, the loop with streaming stores).
//
// Bandwidth counts bytes moved: add (eagle and the loop) 3 * n * 4 (two reads, one write);
// memcpy 2 * n * 4 (one read, one write). pct_of_memcpy = 100 * add_GBps / memcpy_GBps.
// memcpy and the loop write into buffers touched beforehand and reused every repetition; eagle
// allocates its output per call (from its host block cache above 1 MiB), as an eager op does.
// Small sizes run several calls per timed repetition (field "inner"); times are per call.
//
// eagle's add and axpy are first timed each on its own, as bench/cpu_peers.py times the peers
// (their median_us): interleaved with the loops below, whose buffers take another 16 MiB, they
// found a colder last-level cache than the peers, each alone in its process (axpy 2^20 on a
// 32 MiB-L3 VM: 257-297 us interleaved, 160-170 us alone). The add is then timed again, interleaved
// with memcpy and the loops, for pct_of_memcpy and ratio_vs_loop (field "interleaved_us").
//
// Also axpy, alpha * x + y with a scalar alpha: two eager ops, as in every eager library.
// Inputs are the shared ones of bench/compare (Note [Shared benchmark inputs]); records carry
// the result's samples and the size label ("2^20") that bench/compare matches on.
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bench_inputs.hpp"
#include "bench_util.hpp"
#include "cpu/streaming_stores.hpp"
#include "eagle/eagle.hpp"

namespace {

__attribute__((noinline)) void plain_add(const float* __restrict a, const float* __restrict b,
                                         float* __restrict out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// Diagnostic, not a peer: the same loop with non-temporal (streaming) stores, which skip the
// read-for-ownership of the destination that a plain store costs once the data leaves the
// caches (glibc's memcpy switches to such stores for large sizes).
__attribute__((noinline)) void plain_add_stream(const float* __restrict a,
                                                const float* __restrict b, float* __restrict out,
                                                std::int64_t n) {
  std::int64_t i = 0;
  for (; i < n && (reinterpret_cast<std::uintptr_t>(out + i) & 15) != 0; ++i) out[i] = a[i] + b[i];
  for (; i + 4 <= n; i += 4) {
    _mm_stream_ps(out + i, _mm_add_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
  }
  for (; i < n; ++i) out[i] = a[i] + b[i];
  _mm_sfence();
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  const int threads = opt.threads_or_available();
  eagle::config::threading::set_intra_op_parallelism_threads(threads);
  const int reps = opt.reps_or(30, 10);
  const int warmup = opt.warmup_or(2, 1);
  eagle::debugging::set_log_device_placement(false);

  bench::Reporter rep;
  {
    // The host's caches and the streaming-store threshold this process chose (Note [Streaming
    // stores]): decided here, before any timing, and printed by bench/compare with every run.
    const eagle::cpu::CacheSizes caches = eagle::cpu::host_cache_sizes();
    bench::Record r;
    r.set("case", "streaming_threshold").set("impl", "host");
    r.set("threshold_bytes", static_cast<long long>(eagle::cpu::streaming_threshold_bytes()));
    r.set("origin", eagle::cpu::streaming_threshold_origin());
    r.set("l1d_bytes", static_cast<long long>(caches.l1d));
    r.set("l2_bytes", static_cast<long long>(caches.l2)).set("l2_shared_by", caches.l2_shared);
    r.set("l3_bytes", static_cast<long long>(caches.l3)).set("l3_shared_by", caches.l3_shared);
    rep.emit(std::move(r));
  }
  constexpr float kAlpha = 0.5f;  // AXPY_ALPHA in bench/cpu_cases.py
  for (const int log2n : {12, 20, 24, 26}) {
    const std::int64_t n = std::int64_t{1} << log2n;
    if (!opt.selected("elementwise_add", n) || (opt.quick && log2n > 20)) continue;
    const auto un = static_cast<std::size_t>(n);
    // At least ~4M elements' worth of work per timed repetition, so tiny sizes are measurable.
    const int inner = static_cast<int>(std::max<std::int64_t>(1, (std::int64_t{1} << 22) / n));

    const std::vector<float> ha = bench::shared_inputs(n, 1, -1.0, 1.0);
    const std::vector<float> hb = bench::shared_inputs(n, 2, -1.0, 1.0);
    const eagle::Tensor a = eagle::constant(ha);
    const eagle::Tensor b = eagle::constant(hb);
    const eagle::Tensor alpha = eagle::constant(kAlpha);
    std::vector<float> loop_out(un, 1.0f);  // touched: value-initialized
    std::vector<float> copy_dst(un, 1.0f);
    std::vector<float> stream_out(un, 1.0f);

    // References and checks (outside the timed region).
    std::vector<float> want(un), want_axpy(un);
    for (std::size_t i = 0; i < un; ++i) {
      want[i] = ha[i] + hb[i];
      want_axpy[i] = kAlpha * ha[i] + hb[i];
    }
    const eagle::Tensor sum = eagle::add(a, b);
    const std::vector<float> got = sum.to_vector<float>();
    const double err = bench::relative_error(got, want);
    bench::check(err < 1e-5, fmt::format("eagle::add 2^{}: relative error {}", log2n, err));
    const std::vector<float> got_axpy = (alpha * a + b).to_vector<float>();
    const double err_axpy = bench::relative_error(got_axpy, want_axpy);
    bench::check(err_axpy < 1e-5, fmt::format("axpy 2^{}: relative error {}", log2n, err_axpy));

    auto run_eagle = [&] {
      for (int k = 0; k < inner; ++k) {
        const eagle::Tensor z = eagle::add(a, b);
        bench::do_not_optimize(&z);
      }
    };
    auto run_memcpy = [&] {
      for (int k = 0; k < inner; ++k) {
        std::memcpy(copy_dst.data(), ha.data(), un * sizeof(float));
        bench::clobber_memory();
      }
    };
    auto run_loop = [&] {
      for (int k = 0; k < inner; ++k) {
        plain_add(ha.data(), hb.data(), loop_out.data(), n);
        bench::clobber_memory();
      }
    };
    auto run_stream = [&] {
      for (int k = 0; k < inner; ++k) {
        plain_add_stream(ha.data(), hb.data(), stream_out.data(), n);
        bench::clobber_memory();
      }
    };
    auto run_axpy = [&] {
      for (int k = 0; k < inner; ++k) {
        const eagle::Tensor z = alpha * a + b;
        bench::do_not_optimize(&z);
      }
    };
    const bench::Stats alone_add = bench::measure(run_eagle, warmup, reps);
    const bench::Stats alone_axpy = bench::measure(run_axpy, warmup, reps);
    const auto stats =
        bench::measure_interleaved({run_eagle, run_memcpy, run_loop, run_stream}, warmup, reps);
    bench::check(bench::relative_error(loop_out, want) < 1e-5, "plain loop result");
    bench::check(bench::relative_error(stream_out, want) < 1e-5, "streaming loop result");
    bench::check(std::memcmp(copy_dst.data(), ha.data(), un * sizeof(float)) == 0, "memcpy result");

    auto per_call = [&](bench::Stats s) {
      s.median_us /= inner;
      s.min_us /= inner;
      s.max_us /= inner;
      return s;
    };
    const bench::Stats se = per_call(stats[0]), sm = per_call(stats[1]), sl = per_call(stats[2]),
                       ss = per_call(stats[3]), sa = per_call(alone_axpy),
                       se_alone = per_call(alone_add);
    const double add_bytes = 3.0 * 4.0 * static_cast<double>(n);
    const double copy_bytes = 2.0 * 4.0 * static_cast<double>(n);
    auto gbps = [](double bytes, double us) { return bytes / (us * 1e3); };
    const double memcpy_gbps = gbps(copy_bytes, sm.median_us);

    auto record = [&](const std::string& impl, const bench::Stats& s, double bytes,
                      const char* name = "elementwise_add") {
      bench::Record r;
      r.set("case", name).set("impl", impl).set("label", fmt::format("2^{}", log2n));
      r.set("size", static_cast<long long>(n));
      r.set(s).set("threads", threads).set("inner", inner).set("bytes", bytes);
      r.set("gbps", gbps(bytes, s.median_us));
      return r;
    };
    bench::Record re = record("eagle", se_alone, add_bytes);
    re.set("interleaved_us", se.median_us);
    re.set("pct_of_memcpy", 100.0 * gbps(add_bytes, se.median_us) / memcpy_gbps);
    re.set("ratio_vs_loop", sl.median_us / se.median_us);  // loop time / eagle time
    re.set("pct_of_memcpy_is", "100 * add_GBps(3*n*4 B) / memcpy_GBps(2*n*4 B)");
    if (log2n >= 24) re.set("target_pct", 90.0);
    re.set("sample", bench::RawJson{bench::sample_json(got)});
    rep.emit(std::move(re));
    rep.emit(record("memcpy", sm, copy_bytes));
    bench::Record rl = record("cpp_loop", sl, add_bytes);
    rl.set("pct_of_memcpy", 100.0 * gbps(add_bytes, sl.median_us) / memcpy_gbps);
    rep.emit(std::move(rl));
    bench::Record rs = record("cpp_loop_stream", ss, add_bytes);
    rs.set("pct_of_memcpy", 100.0 * gbps(add_bytes, ss.median_us) / memcpy_gbps);
    rs.set("note", "diagnostic: non-temporal stores");
    rep.emit(std::move(rs));
    // axpy moves the same bytes as an add at best (two reads, one write), though it runs as two
    // eager ops with an intermediate.
    bench::Record ra = record("eagle", sa, add_bytes, "axpy");
    ra.set("pct_of_memcpy", 100.0 * gbps(add_bytes, sa.median_us) / memcpy_gbps);
    ra.set("sample", bench::RawJson{bench::sample_json(got_axpy)});
    rep.emit(std::move(ra));
  }

  rep.table(fmt::format("elementwise add, float32, {} threads, {} reps; GB/s counts add 3*n*4 B, "
                        "memcpy (1 thread) 2*n*4 B; pct_of_memcpy = add_GBps / memcpy_GBps",
                        threads, reps),
            {{"case", "case", 16, 0},
             {"impl", "impl", 15, 0},
             {"size", "size", 9, 0},
             {"median_us", "median_us", 11, 2},
             {"min_us", "min_us", 10, 2},
             {"max_us", "max_us", 10, 2},
             {"GB/s", "gbps", 8, 1},
             {"%memcpy", "pct_of_memcpy", 8, 1},
             {"loop/eagle", "ratio_vs_loop", 10, 2}});
  return 0;
}
