// Issue 17 §5: one epoch of the seed CNN's `fit` on the real Fashion-MNIST, and the process's
// peak memory. eagle::keras::Sequential (Conv2D 32 -> MaxPool -> Conv2D 64 -> MaxPool -> Conv2D
// 64 -> Flatten -> Dense 64 -> Dense 10 softmax), compile(Adam, sparse_categorical_crossentropy,
// ["accuracy"]) as samples/fashion_mnist_cnn, then one fit(epochs = warm-up + timed, verbose 0,
// shuffle) whose epochs a callback times. bench/fit_peers.py does the same in Keras (TensorFlow-
// CPU), PyTorch and JAX; each runs in its own process so the peak RSS is its own.
//
//   bench_fit_epoch [--filter fit_epoch/32] [--quick] [--reps N] [--warmup N] [--threads N]
//                   [--train-size N]
//
// Epochs: --warmup (default 1) untimed, then --reps (default 3) timed; the median, min and max
// of the timed ones. --train-size (default 60000, the whole training set; 6000 with --quick)
// takes the first N images. One JSON line per batch size (32, 128) with:
//   median_us ...       seconds per epoch x 1e6
//   rss_before_fit_mb   resident set after the data is loaded and the model built (/proc)
//   max_rss_mb          the process's peak resident set so far (getrusage ru_maxrss); run one
//                       batch size per process (--filter) for a peak of that fit alone
//   first_loss, last_loss, last_accuracy   the first and last epoch's training metrics; the
//                       loss must fall (checked, exit 1 otherwise)
// eagle's CPU allocator keeps no statistics (config::get_memory_info("CPU:0") is
// InvalidArgumentError, as TensorFlow's), so the resident set is the one peak memory number.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "eagle/eagle.hpp"
#include "seed_cnn.hpp"

namespace {

namespace keras = eagle::keras;

double max_rss_mb() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

double current_rss_mb() {
  long pages = 0, resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / 1048576.0;
}

// Times each epoch of fit: the clock between on_epoch_begin and on_epoch_end.
class EpochTimer : public keras::callbacks::Callback {
 public:
  void on_epoch_begin(int /*epoch*/, const keras::Logs& /*logs*/) override {
    start_ = bench::Clock::now();
  }
  void on_epoch_end(int /*epoch*/, const keras::Logs& logs) override {
    seconds.push_back(std::chrono::duration<double>(bench::Clock::now() - start_).count());
    losses.push_back(logs.at("loss"));
    accuracies.push_back(logs.at("accuracy"));
  }
  std::vector<double> seconds, losses, accuracies;

 private:
  bench::Clock::time_point start_;
};

}  // namespace

int main(int argc, char** argv) {
  // --train-size is this program's own; the rest are bench_util's common options.
  std::int64_t train_size = 0;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--train-size") == 0 && i + 1 < argc) {
      train_size = std::atoll(argv[++i]);
    } else {
      args.push_back(argv[i]);
    }
  }
  const bench::Options opt = bench::parse_args(static_cast<int>(args.size()), args.data());
  if (train_size <= 0) train_size = opt.quick ? 6000 : 60000;
  const int threads = opt.threads_or_available();
  eagle::config::threading::set_intra_op_parallelism_threads(threads);
  const int warmup = opt.warmup > 0 ? opt.warmup : 1;
  const int reps = opt.reps > 0 ? opt.reps : 3;

  // The data as the sample prepares it: float32 images in [0, 1], int32 labels (EAGLE_DATA_DIR
  // or Debian's /usr/share/datasets/fashion-mnist).
  const auto [train, test] = eagle::data::fashion_mnist::load_data();
  const eagle::Tensor all_images = train.first.to_tensor(eagle::kFloat32, 255);
  const std::int64_t n = std::min(train_size, all_images.shape()[0]);
  const eagle::Tensor x = eagle::reshape(all_images[eagle::Slice{0, n}], {n, 28, 28, 1});
  const eagle::Tensor y = train.second.to_tensor(eagle::kInt32)[eagle::Slice{0, n}];

  bench::Reporter rep;
  for (const std::int64_t batch : {32LL, 128LL}) {
    if (!opt.selected("fit_epoch", batch)) continue;
    auto model = bench::keras_seed_cnn({"accuracy"});
    auto timer = std::make_shared<EpochTimer>();
    keras::FitOptions fit;
    fit.batch_size = batch;
    fit.epochs = warmup + reps;
    fit.verbose = 0;
    fit.seed = 1;
    fit.callbacks = {timer};
    const double rss_before = current_rss_mb();
    model->fit(x, y, fit);
    const double peak = max_rss_mb();

    const std::vector<double> timed(timer->seconds.begin() + warmup, timer->seconds.end());
    std::vector<double> us;
    for (const double s : timed) us.push_back(s * 1e6);
    const double first_loss = timer->losses.front();
    const double last_loss = timer->losses.back();
    bench::check(std::isfinite(last_loss) && last_loss < first_loss,
                 fmt::format("fit_epoch/{}: the loss did not fall ({} -> {})", batch, first_loss,
                             last_loss));
    bench::Record r;
    r.set("case", "fit_epoch").set("impl", "eagle").set("size", static_cast<long long>(batch));
    r.set(bench::summarize(us)).set("threads", threads);
    r.set("train_size", static_cast<long long>(n)).set("warmup_epochs", warmup);
    r.set("steps_per_epoch", static_cast<long long>((n + batch - 1) / batch));
    r.set("rss_before_fit_mb", rss_before).set("max_rss_mb", peak);
    r.set("first_loss", first_loss).set("last_loss", last_loss);
    r.set("last_accuracy", timer->accuracies.back());
    rep.emit(std::move(r));
  }
  rep.table("Seed CNN: one epoch of fit on Fashion-MNIST (Adam), microseconds per epoch",
            {{"impl", "impl", 6, 0},
             {"batch", "size", 6, 0},
             {"median", "median_us", 12, 0},
             {"min", "min_us", 12, 0},
             {"max", "max_us", 12, 0},
             {"maxrss MB", "max_rss_mb", 10, 1},
             {"loss", "last_loss", 8, 4},
             {"acc", "last_accuracy", 8, 4}});
  return 0;
}
