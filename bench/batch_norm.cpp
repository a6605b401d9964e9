// FusedBatchNormV3 training, forward and backward (issue 17, "batch norm on oneDNN"): the
// reference kernels (cpu/batch_norm_reference.*, one thread) and oneDNN's
// (cpu/onednn/onednn_batch_norm.*, an OpenMP team of up to the intra-op thread count), called
// directly on the same preallocated NHWC float32 buffers in one process, timed interleaved, on 1
// and 2 intra-op threads (--threads N: only N).
//
//   bench_batch_norm [--quick] [--reps N] [--warmup N] [--threads N] [--filter TEXT]
//
// Shapes: the seed CNN's first feature map (128x26x26x32) and a ResNet-style 128x56x56x64.
// One JSON line per shape, provider, thread count and op (forward, backward, and "step": forward
// then backward, each repetition's sum): median, min and max over the repetitions (20, or 5 with
// --quick) after one warm-up, and the largest difference of oneDNN's y and dx from the reference's
// relative to their largest magnitude. Inputs: the shared ones (Note [Shared benchmark inputs]),
// x seed 1 and dy seed 3 uniform in [-1, 1); scale 1, offset 0. Run with OMP_WAIT_POLICY=PASSIVE
// (as bench/compare does) on a shared machine.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench_inputs.hpp"
#include "bench_util.hpp"
#include "cpu/batch_norm_reference.hpp"
#include "cpu/intra_op_pool.hpp"
#include "cpu/onednn/onednn_batch_norm.hpp"

namespace {

using std::int64_t;

struct Buffers {
  std::vector<float> y, batch_mean, batch_variance, mean, variance, dx, dscale, doffset;
  explicit Buffers(int64_t size, int64_t c)
      : y(size),
        batch_mean(c),
        batch_variance(c),
        mean(c),
        variance(c),
        dx(size),
        dscale(c),
        doffset(c) {}
};

double max_relative_difference(const std::vector<float>& got, const std::vector<float>& want) {
  double scale = 0, diff = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, static_cast<double>(std::fabs(want[i])));
    diff = std::max(diff, static_cast<double>(std::fabs(got[i] - want[i])));
  }
  return scale == 0 ? diff : diff / scale;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  const std::vector<int> thread_counts =
      opt.threads > 0 ? std::vector<int>{opt.threads} : std::vector<int>{1, 2};
  struct Shape {
    const char* label;
    int64_t n, h, w, c;
  };
  const Shape shapes[] = {{"128x26x26x32", 128, 26, 26, 32}, {"128x56x56x64", 128, 56, 56, 64}};
  const eagle::opdefs::FusedBatchNormAttrs attrs{1e-3, 1.0, true};
  bench::Reporter rep;
  for (const Shape& s : shapes) {
    if (!opt.filter.empty() && std::string(s.label).find(opt.filter) == std::string::npos) {
      continue;
    }
    const int64_t rows = s.n * s.h * s.w, size = rows * s.c;
    const std::vector<float> x = bench::shared_inputs(size, 1, -1.0, 1.0);
    const std::vector<float> dy = bench::shared_inputs(size, 3, -1.0, 1.0);
    const std::vector<float> scale(s.c, 1.0f), offset(s.c, 0.0f);
    Buffers ref(size, s.c), dnn(size, s.c);
    const float* no_statistics = nullptr;  // training at factor 1 reads none
    auto ref_forward = [&] {
      eagle::cpu::reference::fused_batch_norm<float>(
          attrs, rows, s.c, x.data(), scale.data(), offset.data(), no_statistics, no_statistics,
          ref.y.data(), ref.batch_mean.data(), ref.batch_variance.data(), ref.mean.data(),
          ref.variance.data());
    };
    auto ref_backward = [&] {
      eagle::cpu::reference::fused_batch_norm_grad<float>(
          attrs, rows, s.c, dy.data(), x.data(), scale.data(), ref.mean.data(), ref.variance.data(),
          ref.dx.data(), ref.dscale.data(), ref.doffset.data());
    };
    const eagle::cpu::onednn::BatchNormShape shape{s.n, s.h, s.w, s.c};
    auto dnn_forward = [&] {
      eagle::cpu::onednn::fused_batch_norm(attrs, shape, x.data(), scale.data(), offset.data(),
                                           no_statistics, no_statistics, dnn.y.data(),
                                           dnn.batch_mean.data(), dnn.batch_variance.data(),
                                           dnn.mean.data(), dnn.variance.data());
    };
    auto dnn_backward = [&] {
      eagle::cpu::onednn::fused_batch_norm_grad(attrs, shape, dy.data(), x.data(), scale.data(),
                                                dnn.mean.data(), dnn.variance.data(), dnn.dx.data(),
                                                dnn.dscale.data(), dnn.doffset.data());
    };
    for (int threads : thread_counts) {
      eagle::cpu::set_intra_op_threads(threads);
      const std::string impl = eagle::cpu::onednn::batch_norm_implementation(attrs, shape);
      const int reps = opt.reps_or(20, 5);
      const int warmup = opt.warmup_or(1, 1);
      const std::vector<std::function<void()>> fns = {ref_forward, ref_backward, dnn_forward,
                                                      dnn_backward};
      for (int i = 0; i < warmup; ++i) {
        for (const auto& f : fns) f();
      }
      std::vector<std::vector<double>> us(fns.size() + 2);
      for (int r = 0; r < reps; ++r) {
        for (std::size_t k = 0; k < fns.size(); ++k) us[k].push_back(bench::time_once_us(fns[k]));
        us[4].push_back(us[0].back() + us[1].back());  // the reference's step
        us[5].push_back(us[2].back() + us[3].back());  // oneDNN's step
      }
      const double y_diff = max_relative_difference(dnn.y, ref.y);
      const double dx_diff = max_relative_difference(dnn.dx, ref.dx);
      struct Row {
        const char* provider;
        const char* op;
        std::size_t index;
      };
      const Row rows_out[] = {{"reference", "forward", 0}, {"reference", "backward", 1},
                              {"reference", "step", 4},    {"onednn", "forward", 2},
                              {"onednn", "backward", 3},   {"onednn", "step", 5}};
      for (const Row& row : rows_out) {
        bench::Record r;
        r.set("case", "batch_norm").set("impl", "eagle").set("label", s.label);
        r.set("provider", row.provider).set("op", row.op);
        r.set(bench::summarize(us[row.index])).set("threads", threads);
        if (std::string(row.provider) == "onednn") {
          r.set("implementation", impl).set("y_max_rel_diff", y_diff);
          r.set("dx_max_rel_diff", dx_diff);
        }
        rep.emit(std::move(r));
      }
    }
  }
  rep.table("FusedBatchNormV3 training, NHWC float32, microseconds per call",
            {{"shape", "label", 14, 0},
             {"provider", "provider", 10, 0},
             {"op", "op", 9, 0},
             {"threads", "threads", 8, 0},
             {"median", "median_us", 10, 1},
             {"min", "min_us", 10, 1},
             {"max", "max_us", 10, 1}});
  return 0;
}
