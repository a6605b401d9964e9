// Issue 18 §4 (case 12 of docs/performance.md): the seed CNN's training step (bench/seed_cnn.hpp,
// Adam, sparse softmax cross entropy scaled by the global batch) at a global batch of 128, five
// ways:
//
//   plain          one device (/CPU:0), no strategy, intra-op threads = --threads (all cores)
//   mirrored_1     the same step through MirroredStrategy({"CPU:0"}): strategy.run on its replica
//                  thread, the one-replica all-reduce in apply_gradients; threads as plain. The
//                  strategy's overhead is mirrored_1 / plain - 1 (target <= 10%).
//   mirrored_2     MirroredStrategy over two logical CPUs (CPU:0, CPU:1 from
//                  config::set_logical_device_configuration), 64 examples per replica, each
//                  replica's ops on one thread (intra-op threads 1): the data-parallel split of
//                  the cores. Its throughput against mirrored_1 is the target's speed-up (>= 1.6x).
//   mirrored_2_shared  the same two replicas with intra-op threads = --threads: each replica's ops
//                  also split over all cores (2 x 2 threads on 2 cores)
//   plain_1thread  plain on one thread: what intra-op threading gains on one replica
//   half_1thread   one device, batch 64, one thread: one replica's share of mirrored_2 alone, the
//                  bound its step time approaches when the two replicas do not slow each other
//
// Timing: rounds of every case in turn (set its thread count, one untimed step, then 5 timed
// steps), so drift on a shared machine hits every case alike; medians of the timed steps, and of
// the CPU time each step took over all the process's threads (cpu_median_us: on a machine that
// other processes keep busy, wall-clock time says how much of the cores this process got, CPU
// time how much work a step is). Each case's loss must fall. bench/strategy_peers.py is
// TensorFlow's MirroredStrategy on the same devices. Run with OMP_WAIT_POLICY=PASSIVE (oneDNN's
// libgomp threads; docs/guide.md).
#include <time.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench_util.hpp"
#include "eagle/eagle.hpp"
#include "seed_cnn.hpp"

namespace {

namespace dist = eagle::distribute;
using eagle::Tensor;

constexpr std::int64_t kGlobalBatch = 128;
constexpr int kStepsPerRound = 5;

// One training step of `model`, its loss scaled by `global_batch` (nn::compute_average_loss), so
// that summed replica gradients are the global batch's mean gradient.
Tensor train_step(const bench::SeedCnn& model, eagle::optimizers::Adam& adam, const Tensor& images,
                  const Tensor& labels, std::int64_t global_batch) {
  eagle::GradientTape tape;
  const Tensor loss = eagle::nn::compute_average_loss(
      eagle::nn::sparse_softmax_cross_entropy_with_logits(labels, model.logits(images)),
      global_batch);
  const std::vector<eagle::GradientSource> sources(model.vars.begin(), model.vars.end());
  const auto grads = tape.gradient(loss, sources);
  std::vector<eagle::optimizers::GradientAndVariable> pairs;
  for (std::size_t i = 0; i < model.vars.size(); ++i) pairs.emplace_back(grads[i], model.vars[i]);
  adam.apply_gradients(pairs);
  return loss;
}

// CPU time of the whole process (all threads), microseconds.
double process_cpu_us() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

// A case: how to run one step (returning its loss) and with how many intra-op threads.
struct Case {
  std::string impl;
  int replicas = 1;
  int threads = 1;
  std::int64_t batch = kGlobalBatch;
  std::function<double()> step;
  std::vector<double> us;      // the timed steps' wall-clock time
  std::vector<double> cpu_us;  // and the CPU time they took, every thread of the process

  Case(std::string name, int replica_count, int thread_count, std::int64_t batch_size,
       std::function<double()> fn)
      : impl(std::move(name)),
        replicas(replica_count),
        threads(thread_count),
        batch(batch_size),
        step(std::move(fn)) {}
  double first_loss = 0, last_loss = 0;
};

// A model and its optimizer on one device, stepping on one batch.
struct Plain {
  std::string device;
  std::unique_ptr<bench::SeedCnn> model;
  eagle::optimizers::Adam adam;
  Tensor images, labels;

  Plain(const std::string& dev, const Tensor& all_images, const Tensor& all_labels,
        std::int64_t batch)
      : device(dev) {
    auto scope = eagle::device(device);
    model = std::make_unique<bench::SeedCnn>();
    images = eagle::identity(all_images[eagle::Slice{0, batch}]);
    labels = eagle::identity(all_labels[eagle::Slice{0, batch}]);
  }
  double step() {
    auto scope = eagle::device(device);
    return train_step(*model, adam, images, labels, images.shape()[0]).item<float>();
  }
};

// A mirrored model and its optimizer, stepping on one global batch split over the replicas.
struct Mirrored {
  std::unique_ptr<dist::MirroredStrategy> strategy;
  std::unique_ptr<bench::SeedCnn> model;
  std::unique_ptr<eagle::optimizers::Adam> adam;
  dist::PerReplica<Tensor> images, labels;

  Mirrored(const std::vector<std::string>& devices, const Tensor& all_images,
           const Tensor& all_labels) {
    strategy = std::make_unique<dist::MirroredStrategy>(devices);
    {
      auto scope = strategy->scope();
      model = std::make_unique<bench::SeedCnn>();
      adam = std::make_unique<eagle::optimizers::Adam>();
    }
    images = strategy->split_batch(all_images);
    labels = strategy->split_batch(all_labels);
  }
  double step() {
    const auto losses = strategy->run(
        [this](const Tensor& x, const Tensor& y) {
          return train_step(*model, *adam, x, y, kGlobalBatch);
        },
        images, labels);
    return strategy->reduce(dist::ReduceOp::kSum, losses).item<float>();
  }
};

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  const int threads = opt.threads_or_available();
  // Two logical CPUs for the two-replica cases (before the runtime starts).
  eagle::config::set_logical_device_configuration(eagle::config::list_physical_devices("CPU").at(0),
                                                  {{}, {}});
  eagle::debugging::set_log_level(eagle::debugging::LogLevel::kWarning);
  eagle::debugging::set_log_sink([](eagle::debugging::LogLevel, std::string_view) {});

  Tensor images, labels;
  {
    auto cpu = eagle::device("/CPU:0");
    images = eagle::random_uniform({kGlobalBatch, 28, 28, 1}, 0, 1, eagle::kFloat32, 428);
    labels = eagle::cast(
        eagle::floor(eagle::random_uniform({kGlobalBatch}, 0, 10, eagle::kFloat32, 528)),
        eagle::kInt32);
  }
  Plain plain("/CPU:0", images, labels, kGlobalBatch);
  Plain plain_1thread("/CPU:0", images, labels, kGlobalBatch);
  Plain half("/CPU:0", images, labels, kGlobalBatch / 2);
  Mirrored one({"/CPU:0"}, images, labels);
  Mirrored two({"/CPU:0", "/CPU:1"}, images, labels);
  Mirrored two_shared({"/CPU:0", "/CPU:1"}, images, labels);

  std::vector<Case> cases = {
      {"plain", 1, threads, kGlobalBatch, [&] { return plain.step(); }},
      {"mirrored_1", 1, threads, kGlobalBatch, [&] { return one.step(); }},
      {"mirrored_2", 2, 1, kGlobalBatch, [&] { return two.step(); }},
      {"mirrored_2_shared", 2, threads, kGlobalBatch, [&] { return two_shared.step(); }},
      {"plain_1thread", 1, 1, kGlobalBatch, [&] { return plain_1thread.step(); }},
      {"half_1thread", 1, 1, kGlobalBatch / 2, [&] { return half.step(); }},
  };
  std::vector<Case*> chosen;
  for (Case& c : cases) {
    if (opt.selected("strategy_step", kGlobalBatch) || opt.selected(c.impl, kGlobalBatch)) {
      chosen.push_back(&c);
    }
  }

  const int reps = opt.reps_or(30, 10);
  const int rounds = (reps + kStepsPerRound - 1) / kStepsPerRound;
  for (Case* c : chosen) {
    eagle::config::threading::set_intra_op_parallelism_threads(c->threads);
    c->first_loss = c->step();
  }
  for (int round = 0; round < rounds; ++round) {
    for (Case* c : chosen) {
      eagle::config::threading::set_intra_op_parallelism_threads(c->threads);
      c->step();  // untimed: the new thread count's pools start
      for (int s = 0; s < kStepsPerRound; ++s) {
        const double cpu_start = process_cpu_us();
        c->us.push_back(bench::time_once_us([&] { c->step(); }));
        c->cpu_us.push_back(process_cpu_us() - cpu_start);
      }
    }
  }

  bench::Reporter rep;
  for (Case* c : chosen) {
    eagle::config::threading::set_intra_op_parallelism_threads(c->threads);
    c->last_loss = c->step();
    bench::check(std::isfinite(c->last_loss) && c->last_loss < c->first_loss,
                 fmt::format("strategy_step/{}: the loss did not fall ({} -> {})", c->impl,
                             c->first_loss, c->last_loss));
    const bench::Stats stats = bench::summarize(c->us);
    bench::Record r;
    r.set("case", "strategy_step")
        .set("impl", c->impl)
        .set("size", static_cast<long long>(kGlobalBatch));
    r.set(stats).set("threads", c->threads).set("replicas", c->replicas);
    r.set("batch", static_cast<long long>(c->batch));
    r.set("steps_per_s", 1e6 / stats.median_us);
    r.set("cpu_median_us", bench::summarize(c->cpu_us).median_us);
    r.set("first_loss", c->first_loss).set("last_loss", c->last_loss);
    rep.emit(std::move(r));
  }
  rep.table(fmt::format("Seed CNN step through MirroredStrategy, global batch {} (Adam), "
                        "microseconds per step; threads = intra-op threads per replica",
                        kGlobalBatch),
            {{"impl", "impl", 18, 0},
             {"replicas", "replicas", 8, 0},
             {"threads", "threads", 7, 0},
             {"batch", "batch", 5, 0},
             {"median", "median_us", 10, 1},
             {"min", "min_us", 10, 1},
             {"max", "max_us", 10, 1},
             {"steps/s", "steps_per_s", 8, 2},
             {"cpu", "cpu_median_us", 10, 1}});
  auto median = [&](const char* impl) {
    for (const Case* c : chosen) {
      if (c->impl == impl) return bench::summarize(c->us).median_us;
    }
    return 0.0;
  };
  if (median("plain") > 0 && median("mirrored_1") > 0) {
    std::printf("MirroredStrategy overhead at 1 replica: %+.1f%% (target <= 10%%)\n",
                100 * (median("mirrored_1") / median("plain") - 1));
  }
  if (median("mirrored_1") > 0 && median("mirrored_2") > 0) {
    std::printf(
        "2 replicas x 1 thread against 1 replica x %d threads: %.2fx throughput "
        "(target >= 1.6x)\n",
        threads, median("mirrored_1") / median("mirrored_2"));
  }
  return 0;
}
