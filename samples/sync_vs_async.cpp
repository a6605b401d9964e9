// Seed 000 §9.2 (samples/README.md) trains one model on several devices two ways; here they run
// side by side: synchronous (every device reads the same weights, the gradients of all devices
// are combined, one update) with eagle::distribute::MirroredStrategy, and asynchronous (each
// device reads the latest
// weights and applies its own update, waiting for no one) with
// eagle::distribute::ParameterServerTraining. The same MLP learns the same data both ways on 2 and
// on 4 devices; the sample prints the loss against the step and the wall-clock time, the final
// loss and accuracy on held-out points, and the asynchronous updates' staleness.
//
//   sync_vs_async [--devices 2,4] [--steps 300] [--batch-size 64] [--learning-rate 0.05]
//                 [--log-frequency 25] [--csv FILE]
//
// --devices: a comma-separated list of device counts, one run of each mode per count (default
// 2,4); the devices are the first logical GPUs: without a CUDA GPU four simulated ones (or
// EAGLE_SIMULATED_GPUS of them); with fewer GPUs than the largest count, GPU 0 split in that
// many virtual GPUs (seed 003); with no GPU at all (EAGLE_SIMULATED_GPUS=0) logical CPUs.
// --batch-size is per device. A step is one global batch of devices x batch-size examples:
// synchronous, one update with the gradient of the whole global batch; asynchronous, one update
// per worker, each with the gradient of its own batch-size examples. So at any step both modes
// have seen as many examples (the same ones, but for workers running ahead of each other); the
// asynchronous one has made `devices` times as many updates.
// --csv writes every update (mode, devices, update, step, seconds, loss, staleness) for
// scripts/plot_sync_vs_async.py, which draws docs/sync_vs_async.png.
// The exit status is 1 when the loss of the last steps is not below the first steps' in a run.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <eagle/distribute/parameter_server_training.hpp>
#include <eagle/eagle.hpp>

#include "sample_support.hpp"

namespace {

namespace dist = eagle::distribute;
using eagle::Tensor;
using eagle::Variable;

struct Options {
  std::vector<int> devices = {2, 4};
  int steps = 300;
  std::int64_t batch_size = 64;
  double learning_rate = 0.05;
  int log_frequency = 25;
  std::string csv;
};

[[noreturn]] void usage_error(const std::string& message) {
  fmt::print(stderr, "{}\n", message);
  std::exit(2);
}

std::vector<int> parse_counts(const std::string& text) {
  std::vector<int> counts;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const int n = std::atoi(item.c_str());
    if (n < 1) usage_error("--devices takes positive counts, e.g. 2,4; got " + text);
    counts.push_back(n);
  }
  if (counts.empty()) usage_error("--devices needs a count");
  return counts;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage_error(a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--devices") {
      o.devices = parse_counts(v);
    } else if (a == "--steps") {
      o.steps = std::stoi(v);
    } else if (a == "--batch-size") {
      o.batch_size = std::stoll(v);
    } else if (a == "--learning-rate") {
      o.learning_rate = std::stod(v);
    } else if (a == "--log-frequency") {
      o.log_frequency = std::stoi(v);
    } else if (a == "--csv") {
      o.csv = v;
    } else {
      usage_error("unknown option " + a);
    }
  }
  if (o.steps < 2 || o.batch_size < 1 || o.log_frequency < 1) {
    usage_error("--steps must be at least 2, --batch-size and --log-frequency positive");
  }
  return o;
}

// ---- Data: three interleaved spirals in the plane ----------------------------------------------

constexpr std::int64_t kClasses = 3;
constexpr std::int64_t kHidden = 64;

struct Points {
  Tensor x;       // [n, 2] float32
  Tensor labels;  // [n] int32
};

// Class c's points lie along an arm r = t, angle 4t + 2 pi c / 3, t in [0.05, 1), with Gaussian
// noise; everything from `seed`, on the CPU.
Points spirals(std::int64_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> along(0.05f, 1.0f);
  std::normal_distribution<float> noise(0.0f, 0.04f);
  std::vector<float> xy;
  std::vector<std::int32_t> labels;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto c = static_cast<std::int32_t>(i % kClasses);
    const float t = along(rng);
    const float angle = 4.0f * t + 2.0f * 3.14159265f * static_cast<float>(c) / kClasses;
    xy.push_back(t * std::cos(angle) + noise(rng));
    xy.push_back(t * std::sin(angle) + noise(rng));
    labels.push_back(c);
  }
  auto cpu = eagle::device("/CPU:0");
  return {eagle::constant(xy, {n, 2}), eagle::constant(labels, {n})};
}

// ---- The model: 2 -> 32 -> 32 -> 3, tanh
// ---------------------------------------------------------

// The initial weights, the same for every run (glorot_uniform kernels, zero biases).
std::vector<Tensor> initial_weights() {
  auto cpu = eagle::device("/CPU:0");
  std::vector<Tensor> w;
  std::uint64_t seed = 1;
  for (const eagle::Shape& shape : {eagle::Shape{2, kHidden}, eagle::Shape{kHidden, kHidden},
                                    eagle::Shape{kHidden, kClasses}}) {
    w.push_back(eagle::initializers::glorot_uniform(seed++)(shape, eagle::kFloat32));
    w.push_back(eagle::zeros({shape[1]}));
  }
  return w;
}

const char* const kNames[] = {"dense/kernel", "dense/bias",     "dense_1/kernel",
                              "dense_1/bias", "dense_2/kernel", "dense_2/bias"};

// The logits from the six weights (variables, or the values a worker read).
template <class Weights>
Tensor logits(const Weights& w, const Tensor& x) {
  Tensor h = eagle::tanh(eagle::matmul(x, w[0]) + w[1]);
  h = eagle::tanh(eagle::matmul(h, w[2]) + w[3]);
  return eagle::matmul(h, w[4]) + w[5];
}

template <class Weights>
Tensor per_example_loss(const Weights& w, const Tensor& x, const Tensor& labels) {
  return eagle::nn::sparse_softmax_cross_entropy_with_logits(labels, logits(w, x));
}

struct Evaluation {
  double loss = 0;
  double accuracy = 0;
};

Evaluation evaluate(const std::vector<Variable>& variables, const Points& test) {
  auto cpu = eagle::device("/CPU:0");
  std::vector<Tensor> w;
  for (const Variable& v : variables) w.push_back(v.read_value());
  const Tensor predicted = eagle::cast(eagle::argmax(logits(w, test.x), 1), eagle::kInt32);
  return {eagle::reduce_mean(per_example_loss(w, test.x, test.labels)).item<float>(),
          eagle::reduce_mean(eagle::cast(eagle::equal(predicted, test.labels), eagle::kFloat32))
              .item<float>()};
}

// ---- One run of each mode ----------------------------------------------------------------------

// One point of a curve: after `update` updates (from 1), at `step` global batches of examples,
// `seconds` after training started, the loss of the batch the update was computed from.
struct Point {
  std::int64_t update = 0;
  double step = 0;
  double seconds = 0;
  double loss = 0;
  std::int64_t staleness = 0;  // async: updates applied between this one's read and its write
};

struct RunResult {
  std::string mode;  // "sync" or "async"
  int devices = 0;
  std::vector<Point> curve;  // in the order the updates were applied
  double seconds = 0;
  Evaluation final;
  std::vector<std::int64_t> staleness;  // the asynchronous run's histogram
  double mean_staleness = 0;
};

// The global batch of every step: step s takes examples [s * global, (s + 1) * global) of the
// training set, cycling.
std::vector<Points> global_batches(const Points& train, int steps, std::int64_t global) {
  const std::int64_t n = train.x.shape()[0];
  const std::int64_t per_epoch = n / global;
  auto cpu = eagle::device("/CPU:0");
  std::vector<Points> batches;
  for (int s = 0; s < steps; ++s) {
    const std::int64_t first = (s % per_epoch) * global;
    const eagle::Slice rows{first, first + global};
    batches.push_back({train.x[rows], train.labels[rows]});
  }
  return batches;
}

RunResult train_sync(const std::vector<std::string>& devices, const Options& o,
                     const std::vector<Points>& batches, const Points& test) {
  const std::int64_t global = o.batch_size * static_cast<std::int64_t>(devices.size());
  dist::MirroredStrategy strategy(devices);
  std::vector<Variable> w;
  std::unique_ptr<eagle::optimizers::SGD> sgd;
  {
    auto scope = strategy.scope();  // mirrored: one component per device
    const std::vector<Tensor> init = initial_weights();
    for (std::size_t i = 0; i < init.size(); ++i)
      w.emplace_back(init[i], eagle::VariableOptions{kNames[i]});
    sgd = std::make_unique<eagle::optimizers::SGD>(
        eagle::optimizers::SGDOptions{o.learning_rate, 0.9});
  }
  const std::vector<eagle::GradientSource> sources(w.begin(), w.end());
  // Every step's batch split and copied to the replicas' devices before the clock starts.
  std::vector<dist::PerReplica<Tensor>> xs, ys;
  for (const Points& b : batches) {
    xs.push_back(strategy.split_batch(b.x));
    ys.push_back(strategy.split_batch(b.labels));
  }

  // One forward pass on every replica first: the replicas' threads and the devices' memory are
  // set up before the clock starts (the asynchronous run finds them warm from this one).
  strategy.run([&](const Tensor& x, const Tensor& labels) { per_example_loss(w, x, labels); },
               xs[0], ys[0]);

  RunResult r{"sync", static_cast<int>(devices.size())};
  const auto start = std::chrono::steady_clock::now();
  for (int s = 0; s < o.steps; ++s) {
    const auto losses = strategy.run(
        [&](const Tensor& x, const Tensor& labels) {
          eagle::GradientTape tape;
          const Tensor loss =
              eagle::nn::compute_average_loss(per_example_loss(w, x, labels), global);
          const auto grads = tape.gradient(loss, sources);
          std::vector<eagle::optimizers::GradientAndVariable> pairs;
          for (std::size_t i = 0; i < w.size(); ++i) pairs.emplace_back(grads[i], w[i]);
          sgd->apply_gradients(pairs);  // all-reduce (sum), then the same update everywhere
          return loss;
        },
        xs[static_cast<std::size_t>(s)], ys[static_cast<std::size_t>(s)]);
    const double loss = strategy.reduce(dist::ReduceOp::kSum, losses).item<float>();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.curve.push_back({s + 1, static_cast<double>(s + 1), seconds, loss});
  }
  r.seconds = r.curve.back().seconds;
  r.final = evaluate(w, test);
  return r;
}

RunResult train_async(const std::vector<std::string>& devices, const Options& o,
                      const std::vector<Points>& batches, const Points& test) {
  const auto n = static_cast<std::int64_t>(devices.size());
  dist::ParameterServerTrainingOptions options;
  options.parameter_device = "/CPU:0";
  options.worker_devices = devices;
  // Four truly concurrent workers (16 cores) diverged at momentum 0.9 without it (Note
  // [Staleness-aware updates]).
  options.staleness_aware = true;
  dist::ParameterServerTraining ps(options);
  std::vector<Variable> w;
  const std::vector<Tensor> init = initial_weights();
  for (std::size_t i = 0; i < init.size(); ++i) {
    w.push_back(ps.create_variable(init[i], eagle::VariableOptions{kNames[i]}));
  }
  eagle::optimizers::SGD sgd({o.learning_rate, 0.9});
  // Worker k's batch at its step s: slice k of step s's global batch, on the worker's device.
  std::vector<std::vector<Points>> shards(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    auto scope = eagle::device(devices[static_cast<std::size_t>(k)]);
    const eagle::Slice rows{k * o.batch_size, (k + 1) * o.batch_size};
    for (const Points& b : batches) {
      shards[static_cast<std::size_t>(k)].push_back(
          {eagle::identity(b.x[rows]), eagle::identity(b.labels[rows])});
    }
  }

  const dist::AsyncTrainingResult result =
      ps.run(sgd, o.steps, [&](const dist::WorkerContext& ctx) {
        const Points& b =
            shards[static_cast<std::size_t>(ctx.worker())][static_cast<std::size_t>(ctx.step())];
        std::vector<Tensor> values;
        for (const Variable& v : w) values.push_back(ctx.value(v));
        return eagle::reduce_mean(per_example_loss(values, b.x, b.labels));
      });

  RunResult r{"async", static_cast<int>(n)};
  for (const dist::UpdateRecord& u : result.updates) {
    r.curve.push_back({u.version + 1, static_cast<double>(u.version + 1) / static_cast<double>(n),
                       u.seconds, u.loss, u.staleness});
  }
  r.seconds = result.seconds;
  r.final = evaluate(w, test);
  r.staleness = result.staleness_histogram();
  r.mean_staleness = result.mean_staleness();
  return r;
}

// ---- Printing ----------------------------------------------------------------------------------

// The mean loss and the time at the end of each global step: for the asynchronous run, the mean of
// updates k * devices + 1 ... (k + 1) * devices in the order applied, as many examples as the
// synchronous step k.
struct StepRow {
  double loss = 0;
  double seconds = 0;
};

std::vector<StepRow> per_step(const RunResult& r, int steps) {
  std::vector<StepRow> rows(static_cast<std::size_t>(steps));
  std::vector<int> counts(static_cast<std::size_t>(steps), 0);
  for (const Point& p : r.curve) {
    const auto s = static_cast<std::size_t>(std::ceil(p.step - 1e-9)) - 1;
    rows[s].loss += p.loss;
    rows[s].seconds = std::max(rows[s].seconds, p.seconds);
    ++counts[s];
  }
  for (std::size_t s = 0; s < rows.size(); ++s) rows[s].loss /= std::max(counts[s], 1);
  return rows;
}

// The mean loss of the first and of the last `window` steps.
std::pair<double, double> head_and_tail(const std::vector<StepRow>& rows, std::size_t window) {
  double head = 0, tail = 0;
  for (std::size_t i = 0; i < window; ++i) {
    head += rows[i].loss / static_cast<double>(window);
    tail += rows[rows.size() - 1 - i].loss / static_cast<double>(window);
  }
  return {head, tail};
}

// The staleness histogram in buckets 0, 1, 2, 3, 4-7, 8-15, ... (empty ones left out), each with
// its share of the updates and a bar.
void print_staleness(const RunResult& async) {
  const std::vector<std::int64_t>& histogram = async.staleness;
  const auto updates = static_cast<double>(async.curve.size());
  fmt::print(
      "async staleness (updates by other workers between a worker's read and its write), "
      "{} updates, mean {:.2f}, max {}:\n",
      async.curve.size(), async.mean_staleness, histogram.empty() ? 0 : histogram.size() - 1);
  for (std::size_t low = 0; low < histogram.size(); low = low < 4 ? low + 1 : low * 2) {
    const std::size_t high = std::min(histogram.size(), low < 4 ? low + 1 : low * 2);
    std::int64_t count = 0;
    for (std::size_t s = low; s < high; ++s) count += histogram[s];
    if (count == 0) continue;
    const double share = static_cast<double>(count) / updates;
    const std::string label =
        high - low == 1 ? fmt::format("{}", low) : fmt::format("{}-{}", low, high - 1);
    fmt::print("  {:>9} {:6d} {:5.1f}% {}\n", label, count, 100 * share,
               std::string(static_cast<std::size_t>(std::ceil(share * 40)), '#'));
  }
}

bool report(const RunResult& sync, const RunResult& async, const Options& o) {
  const std::vector<StepRow> s = per_step(sync, o.steps);
  const std::vector<StepRow> a = per_step(async, o.steps);
  fmt::print("  step | sync loss   time s | async loss  time s\n");
  for (int i = 0; i < o.steps; ++i) {
    if (i % o.log_frequency != 0 && i != o.steps - 1) continue;
    const auto k = static_cast<std::size_t>(i);
    fmt::print("{:6d} | {:9.4f} {:8.3f} | {:10.4f} {:7.3f}\n", i + 1, s[k].loss, s[k].seconds,
               a[k].loss, a[k].seconds);
  }
  bool fell = true;
  const std::size_t window = std::max<std::size_t>(1, std::min<std::size_t>(10, s.size() / 4));
  for (const auto& [r, rows] : {std::pair{&sync, &s}, std::pair{&async, &a}}) {
    const auto [head, tail] = head_and_tail(*rows, window);
    const bool ok = tail < head;
    fell = fell && ok;
    fmt::print(
        "{:5}: {} updates in {:.3f} s ({:.0f} updates/s); mean loss of the first {} steps {:.4f}, "
        "of the last {} {:.4f}: {}; test loss {:.4f}, test accuracy {:.3f}\n",
        r->mode, r->curve.size(), r->seconds, static_cast<double>(r->curve.size()) / r->seconds,
        window, head, window, tail, ok ? "the loss fell" : "the loss did NOT fall", r->final.loss,
        r->final.accuracy);
  }
  print_staleness(async);
  return fell;
}

void write_csv(const std::string& path, const std::vector<RunResult>& runs) {
  std::ofstream out(path);
  if (!out) usage_error("cannot write " + path);
  out << "mode,devices,update,step,seconds,loss,staleness\n";
  for (const RunResult& r : runs) {
    for (const Point& p : r.curve) {
      out << fmt::format("{},{},{},{:.4f},{:.6f},{:.6f},{}\n", r.mode, r.devices, p.update, p.step,
                         p.seconds, p.loss, p.staleness);
    }
  }
}

// The first `count` logical GPUs, else the first `count` logical CPUs.
std::vector<std::string> devices_for(int count) {
  const auto gpus = eagle::config::list_logical_devices("GPU");
  std::vector<std::string> devices;
  if (gpus.empty()) {
    const auto cpus = eagle::config::list_logical_devices("CPU");
    if (count > static_cast<int>(cpus.size())) {
      usage_error(fmt::format("--devices {}: no GPU and {} logical CPU{}", count, cpus.size(),
                              cpus.size() == 1 ? "" : "s"));
    }
    for (int i = 0; i < count; ++i) devices.push_back(fmt::format("/CPU:{}", i));
    return devices;
  }
  if (count > static_cast<int>(gpus.size())) {
    usage_error(fmt::format("--devices {}: this machine has {} logical GPU{}", count, gpus.size(),
                            gpus.size() == 1 ? "" : "s"));
  }
  for (int i = 0; i < count; ++i) devices.push_back(fmt::format("/GPU:{}", i));
  return devices;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const int most = *std::max_element(o.devices.begin(), o.devices.end());
  eagle_samples::start(std::max(4, most));
  const auto gpus = eagle::config::list_physical_devices("GPU");
  if (gpus.empty()) {
    // No GPU at all (EAGLE_SIMULATED_GPUS=0 without CUDA): the CPU split in logical CPUs.
    eagle::config::set_logical_device_configuration(
        eagle::config::list_physical_devices("CPU").at(0),
        std::vector<eagle::config::LogicalDeviceConfiguration>(static_cast<std::size_t>(most)));
  } else if (static_cast<int>(gpus.size()) < most) {
    // Fewer GPUs than devices asked for: GPU 0 split in that many virtual GPUs of 1 GiB (seed 003).
    eagle::config::set_logical_device_configuration(
        gpus[0],
        std::vector<eagle::config::LogicalDeviceConfiguration>(
            static_cast<std::size_t>(most), eagle::config::LogicalDeviceConfiguration{1024}));
    fmt::print("GPU 0 split in {} virtual GPUs of 1 GiB each (seed 003)\n", most);
  }

  const Points train = spirals(4096, 1);
  const Points test = spirals(1024, 2);
  fmt::print(
      "Three spirals: {} training and {} test points; MLP 2-{}-{}-{} (tanh), SGD (learning rate "
      "{}, momentum 0.9), batch {} per device\n",
      train.x.shape()[0], test.x.shape()[0], kHidden, kHidden, kClasses, o.learning_rate,
      o.batch_size);
  fmt::print(
      "A step is one global batch (devices x {} examples): sync makes one update of the whole "
      "batch's gradient, async one update per worker\n",
      o.batch_size);

  bool fell = true;
  std::vector<RunResult> runs;
  for (const int count : o.devices) {
    const std::vector<std::string> devices = devices_for(count);
    const std::int64_t global = o.batch_size * count;
    if (global > train.x.shape()[0]) usage_error("--batch-size x devices exceeds the data");
    fmt::print("\n== {} devices ({}) ==\n", count, fmt::join(devices, ", "));
    fmt::print(
        "sync:  MirroredStrategy, gradients all-reduced, one update on every replica\n"
        "async: ParameterServerTraining, variables on /CPU:0, one worker per device, no barrier, "
        "each gradient divided by its staleness above 1\n");
    const std::vector<Points> batches = global_batches(train, o.steps, global);
    runs.push_back(train_sync(devices, o, batches, test));
    runs.push_back(train_async(devices, o, batches, test));
    fell = report(runs[runs.size() - 2], runs.back(), o) && fell;
  }
  if (!o.csv.empty()) {
    write_csv(o.csv, runs);
    fmt::print("\nCurves written to {}\n", o.csv);
  }
  return fell ? 0 : 1;
}
