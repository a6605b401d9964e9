// Case 3 of docs/performance.md (CPU part): on a [4096, 4096] float32 tensor, the broadcast add
// [4096, 4096] + [4096], reduce_sum over axis 0 and over axis 1, and softmax over the last axis.
//
// GB/s counts the bytes each op must move: broadcast add and softmax read and write the matrix
// (2 * 4 * rows * cols), a reduction reads it (4 * rows * cols). Inputs are the shared ones of
// bench/compare (Note [Shared benchmark inputs]); each result is checked at its sampled outputs
// against a double-precision reference computed here, and the samples go out for bench/compare.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench_inputs.hpp"
#include "bench_util.hpp"
#include "eagle/eagle.hpp"

namespace {

constexpr std::int64_t kRows = 4096;
constexpr std::int64_t kCols = 4096;

struct Case {
  std::string name;
  std::string label;
  double bytes;
  std::function<eagle::Tensor()> run;
  // The reference value of the output at a flat index.
  std::function<double(std::int64_t)> reference;
};

double row_sum(const std::vector<float>& a, std::int64_t r) {
  double s = 0;
  for (std::int64_t c = 0; c < kCols; ++c) s += a[static_cast<std::size_t>(r * kCols + c)];
  return s;
}

double softmax_at(const std::vector<float>& a, std::int64_t flat) {
  const std::int64_t r = flat / kCols;
  const float* row = a.data() + r * kCols;
  double max = row[0];
  for (std::int64_t c = 1; c < kCols; ++c) max = std::fmax(max, row[c]);
  double sum = 0;
  for (std::int64_t c = 0; c < kCols; ++c) sum += std::exp(row[c] - max);
  return std::exp(row[flat % kCols] - max) / sum;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  const int threads = opt.threads_or_available();
  eagle::config::threading::set_intra_op_parallelism_threads(threads);
  const int reps = opt.reps_or(30, 10);
  const int warmup = opt.warmup_or(2, 1);
  eagle::debugging::set_log_device_placement(false);

  const std::vector<float> ha = bench::shared_inputs(kRows * kCols, 1, -1.0, 1.0);
  const std::vector<float> hb = bench::shared_inputs(kCols, 2, -1.0, 1.0);
  const eagle::Tensor a = eagle::constant(ha, eagle::Shape{kRows, kCols});
  const eagle::Tensor b = eagle::constant(hb);
  const double matrix_bytes = 4.0 * static_cast<double>(kRows * kCols);
  const std::string square = fmt::format("{}x{}", kRows, kCols);

  const std::vector<Case> cases{
      {"broadcast_add", square + fmt::format("+{}", kCols), 2 * matrix_bytes, [&] { return a + b; },
       [&](std::int64_t i) {
         return double{ha[static_cast<std::size_t>(i)]} + hb[static_cast<std::size_t>(i % kCols)];
       }},
      {"reduce_sum_axis0", square, matrix_bytes, [&] { return eagle::reduce_sum(a, 0); },
       [&](std::int64_t c) {
         double s = 0;
         for (std::int64_t r = 0; r < kRows; ++r) s += ha[static_cast<std::size_t>(r * kCols + c)];
         return s;
       }},
      {"reduce_sum_axis1", square, matrix_bytes, [&] { return eagle::reduce_sum(a, 1); },
       [&](std::int64_t r) { return row_sum(ha, r); }},
      {"softmax", square, 2 * matrix_bytes, [&] { return eagle::softmax(a); },
       [&](std::int64_t i) { return softmax_at(ha, i); }},
  };

  bench::Reporter rep;
  for (const Case& c : cases) {
    if (!opt.selected(c.name, kRows)) continue;
    eagle::Tensor result;
    const bench::Stats s = bench::measure([&] { result = c.run(); }, warmup, reps);
    const std::vector<float> got = result.to_vector<float>();
    std::vector<float> got_samples;
    std::vector<double> want;
    for (const std::int64_t i : bench::sample_indices(static_cast<std::int64_t>(got.size()))) {
      got_samples.push_back(got[static_cast<std::size_t>(i)]);
      want.push_back(c.reference(i));
    }
    const double err = bench::relative_error(got_samples, want);
    bench::check(err < 1e-5, fmt::format("{}: relative error {} at the samples", c.name, err));

    bench::Record r;
    r.set("case", c.name).set("impl", "eagle").set("label", c.label);
    r.set("size", static_cast<long long>(kRows * kCols)).set(s).set("threads", threads);
    r.set("gbps", c.bytes / (s.median_us * 1e3)).set("rel_err", err);
    r.set("sample", bench::RawJson{bench::sample_json(got)});
    rep.emit(std::move(r));
  }

  rep.table(fmt::format("[{}, {}] float32, {} threads, {} reps; GB/s counts the bytes an op must "
                        "move (matrix read, plus written for broadcast add and softmax)",
                        kRows, kCols, threads, reps),
            {{"case", "case", 17, 0},
             {"size", "label", 15, 0},
             {"median_us", "median_us", 11, 1},
             {"min_us", "min_us", 10, 1},
             {"max_us", "max_us", 10, 1},
             {"GB/s", "gbps", 7, 1},
             {"rel_err", "rel_err", 10, 0}});
  return 0;
}
