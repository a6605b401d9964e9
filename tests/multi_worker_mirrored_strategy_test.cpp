// eagle::distribute::MultiWorkerMirroredStrategy (docs/guide.md, "Several processes:
// MultiWorkerMirroredStrategy"): run under mpiexec (-n 2 and -n 3, tests/CMakeLists.txt), every
// rank runs the same TEST_CASE. The construction log and the cluster, reduce and the batch split
// across workers, the initial broadcast, the mismatch errors, and training equivalence with one
// process (a custom loop and Keras fit), each rank computing the one-process reference itself.
// Built without MPI, the binary exits 77 ("Not Run").
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#ifdef EAGLE_TEST_WITH_MPI
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#endif

#include "captured_log.hpp"
#include "custom_train_step_model.hpp"
#include "eagle/eagle.hpp"
#include "equivalence_mlp.hpp"
#include "keras_test_support.hpp"
#include "mirrored_components.hpp"

namespace {

using eagle::Tensor;
using eagle::Variable;
using eagle::distribute::MultiWorkerMirroredStrategy;
using eagle::distribute::PerReplica;
using eagle::distribute::ReduceOp;
using eagle::distribute::ReplicaContext;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;

// The job's size and this process's rank, as mpiexec tells them (Open MPI's variables); a build
// without MPI skips the whole binary.
int launched_workers() {
#ifndef EAGLE_TEST_WITH_MPI
  std::puts("SKIP: eagle was built without MPI (EAGLE_MPI=OFF)");
  std::exit(77);
#endif
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  return size ? std::atoi(size) : 1;
}

std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

// Every worker's checksum of `bits` (FNV-1a of the bytes), gathered with MPI itself: the test's
// own witness that the workers hold the same bits.
std::vector<std::uint64_t> checksums_of_workers(const std::vector<std::vector<float>>& bits) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const auto& v : bits) {
    const auto* p = reinterpret_cast<const unsigned char*>(v.data());
    for (std::size_t i = 0; i < v.size() * sizeof(float); ++i)
      hash = (hash ^ p[i]) * 0x100000001b3ULL;
  }
#ifdef EAGLE_TEST_WITH_MPI
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
  MPI_Allgather(&hash, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  return all;
#else
  return {hash};
#endif
}

void check_same_on_every_worker(const std::vector<std::vector<float>>& bits) {
  const std::vector<std::uint64_t> all = checksums_of_workers(bits);
  for (std::size_t w = 1; w < all.size(); ++w) {
    INFO("worker " << w);
    CHECK(all[w] == all[0]);
  }
}

using eagle_test::Batch;
using eagle_test::kClasses;
using eagle_test::kInputs;
using eagle_test::make_mlp;
using eagle_test::Mlp;
using eagle_test::per_example_loss;
using eagle_test::random_values;
using eagle_test::relative_difference;

constexpr int kSteps = 20;
constexpr std::int64_t kGlobalBatch = 18;  // uneven over 4 replicas (5, 5, 5, 3), 3: 6 each

// The same batches on every worker (one seed).
std::vector<Batch> make_batches() { return eagle_test::make_batches(kSteps, kGlobalBatch); }

std::unique_ptr<eagle::optimizers::Optimizer> make_adam() {
  return std::make_unique<eagle::optimizers::Adam>(eagle::optimizers::AdamOptions{0.01});
}

std::vector<std::vector<float>> weights_of(const Mlp& m) {
  std::vector<std::vector<float>> out;
  for (const Variable& v : m.variables()) out.push_back(values(v.read_value()));
  return out;
}

// One process, no strategy, batch kGlobalBatch: the reference.
std::vector<std::vector<float>> train_single(const std::vector<Batch>& batches) {
  const Mlp m = make_mlp(7);
  auto optimizer = make_adam();
  for (const Batch& b : batches) {
    eagle::GradientTape tape;
    const Tensor loss =
        eagle::nn::compute_average_loss(per_example_loss(m, b.x, b.labels), kGlobalBatch);
    const auto grads = tape.gradient(loss, {m.w1, m.b1, m.w2, m.b2});
    std::vector<eagle::optimizers::GradientAndVariable> pairs;
    for (std::size_t i = 0; i < 4; ++i) pairs.emplace_back(grads[i], m.variables()[i]);
    optimizer->apply_gradients(pairs);
  }
  return weights_of(m);
}

void check_equivalence_with_one_process(const std::vector<std::string>& local_devices) {
  const int workers = launched_workers();
  const std::vector<Batch> batches = make_batches();
  const std::vector<std::vector<float>> want = train_single(batches);

  MultiWorkerMirroredStrategy strategy(local_devices);
  REQUIRE(strategy.num_workers() == workers);
  REQUIRE(strategy.num_replicas_in_sync() == workers * static_cast<int>(local_devices.size()));
  Mlp m;
  std::unique_ptr<eagle::optimizers::Optimizer> optimizer;
  {
    auto scope = strategy.scope();
    // Worker 0 draws the reference's initial weights, the others their own: the broadcast makes
    // every worker start from worker 0's.
    m = make_mlp(strategy.task_id() == 0 ? 7 : 100 + static_cast<unsigned>(strategy.task_id()));
    optimizer = make_adam();
  }
  // The same global batches on every worker, through experimental_distribute_dataset.
  std::vector<Tensor> xs;
  std::vector<Tensor> labels;
  for (const Batch& b : batches) {
    xs.push_back(b.x);
    labels.push_back(b.labels);
  }
  const auto dataset =
      eagle::data::Dataset::from_tensor_slices({eagle::concat(xs, 0), eagle::concat(labels, 0)})
          .batch(kGlobalBatch);
  for (const PerReplica<eagle::data::Element>& element :
       strategy.experimental_distribute_dataset(dataset)) {
    strategy.run(
        [&](const eagle::data::Element& e) {
          eagle::GradientTape tape;
          const Tensor loss =
              eagle::nn::compute_average_loss(per_example_loss(m, e[0], e[1]), kGlobalBatch);
          const auto grads = tape.gradient(loss, {m.w1, m.b1, m.w2, m.b2});
          std::vector<eagle::optimizers::GradientAndVariable> pairs;
          for (std::size_t i = 0; i < 4; ++i) pairs.emplace_back(grads[i], m.variables()[i]);
          optimizer->apply_gradients(pairs);
        },
        element);
    for (const Variable& v : m.variables()) REQUIRE(eagle_test::components_identical(v));
  }
  CHECK(optimizer->iterations() == kSteps);
  const std::vector<std::vector<float>> got = weights_of(m);
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("variable " << i << " on worker " << strategy.task_id());
    CHECK(relative_difference(got[i], want[i]) <= 1e-5);
  }
  check_same_on_every_worker(got);
}

}  // namespace

TEST_CASE("multi-worker construction logs TensorFlow's lines with the cluster's device names") {
  const int workers = launched_workers();
  eagle_test::LevelLog log;
  eagle::debugging::set_log_level(eagle::debugging::LogLevel::kInfo);
  const MultiWorkerMirroredStrategy strategy;
  eagle::debugging::set_log_level(eagle::debugging::LogLevel::kWarning);
  const int task = strategy.task_id();
  CHECK(strategy.num_workers() == workers);
  CHECK(strategy.cluster_resolver().task_type == "worker");
  CHECK(strategy.cluster_resolver().num_workers() == workers);
  CHECK(strategy.is_chief() == (task == 0));
  CHECK(strategy.num_replicas_in_sync() == workers);
  CHECK(strategy.devices() ==
        std::vector<std::string>{"/job:localhost/replica:0/task:0/device:CPU:0"});
  CHECK(strategy.cross_device_ops().name() == "CollectiveAllReduce");
  const std::string cpu = fmt::format("/job:worker/replica:0/task:{}/device:CPU:0", task);
  if (workers == 1) {
    CHECK(strategy.worker_devices() == strategy.devices());
    return;
  }
  CHECK(strategy.worker_devices() == std::vector<std::string>{cpu});
  std::string hosts;
  for (std::size_t w = 0; w < strategy.cluster_resolver().workers.size(); ++w) {
    hosts += fmt::format("{}'{}'", w ? ", " : "", strategy.cluster_resolver().workers[w]);
  }
  CHECK(log.take() ==
        std::vector<std::string>{
            fmt::format("INFO:eagle:Using MirroredStrategy with devices ('{}',)", cpu),
            fmt::format("INFO:eagle:MultiWorkerMirroredStrategy with cluster_spec = {{'worker': "
                        "[{}]}}, task_type = 'worker', task_id = {}, num_workers = {}, "
                        "local_devices = ('/job:worker/task:{}/device:CPU:0',), communication = "
                        "CommunicationImplementation.AUTO",
                        hosts, task, workers, task)});
}

TEST_CASE("multi-worker replicas: global ids and the batch split and reduce over every worker") {
  const int workers = launched_workers();
  ::setenv("EAGLE_SIMULATED_GPUS", "2", 1);
  const MultiWorkerMirroredStrategy strategy;  // two simulated GPUs per worker
  const int task = strategy.task_id();
  const int replicas = 2 * workers;
  REQUIRE(strategy.num_replicas_in_sync() == replicas);
  REQUIRE(strategy.devices().size() == 2);
  // Replica functions run on the strategy's threads, where Catch2's assertions are not safe:
  // they record what they saw, and the checks run here.
  std::atomic<int> mismatched_counts{0};
  const PerReplica<Tensor> ids = strategy.run([&](const ReplicaContext& ctx) {
    if (ctx.num_replicas_in_sync() != ctx.strategy().num_replicas_in_sync()) ++mismatched_counts;
    return eagle::constant(static_cast<float>(ctx.replica_id_in_sync_group() + 1));
  });
  CHECK(mismatched_counts == 0);
  CHECK(values(ids[0]) == std::vector<float>{static_cast<float>(2 * task + 1)});
  CHECK(values(ids[1]) == std::vector<float>{static_cast<float>(2 * task + 2)});
  const float total = static_cast<float>(replicas * (replicas + 1) / 2);
  CHECK(strategy.reduce(ReduceOp::kSum, ids).item<float>() == total);
  CHECK(strategy.reduce(ReduceOp::kMean, ids).item<float>() == total / replicas);
  // With an axis: MEAN over every worker's elements (replica r sends r + 1 copies of r).
  const PerReplica<Tensor> rows = strategy.run([](const ReplicaContext& ctx) {
    const int r = ctx.replica_id_in_sync_group();
    return eagle::fill({r + 1}, r);
  });
  double numerator = 0;
  double denominator = 0;
  for (int r = 0; r < replicas; ++r) {
    numerator += static_cast<double>(r) * (r + 1);
    denominator += r + 1;
  }
  CHECK(strategy.reduce(ReduceOp::kSum, rows, 0).item<float>() == static_cast<float>(numerator));
  CHECK(strategy.reduce(ReduceOp::kMean, rows, 0).item<float>() ==
        Approx(numerator / denominator).epsilon(1e-6));
  // The global batch split by TensorFlow's rule: ceil(B / replicas) per global replica.
  const std::int64_t batch = 3 * replicas - 1;
  const std::int64_t per = (batch + replicas - 1) / replicas;
  const PerReplica<Tensor> split =
      strategy.split_batch(eagle::range(0.0, static_cast<double>(batch)));
  for (int i = 0; i < 2; ++i) {
    const std::int64_t g = 2 * task + i;
    const std::int64_t begin = std::min(g * per, batch);
    const std::int64_t end = std::min(begin + per, batch);
    std::vector<float> want;
    for (std::int64_t k = begin; k < end; ++k) want.push_back(static_cast<float>(k));
    CHECK(values(split[static_cast<std::size_t>(i)]) == want);
    CHECK(split[static_cast<std::size_t>(i)].device() ==
          strategy.devices()[static_cast<std::size_t>(i)]);
  }
  // Workers that reduce different shapes: the same error on every worker, no hang.
  const PerReplica<Tensor> uneven =
      strategy.run([&](const ReplicaContext&) { return eagle::zeros({task == 0 ? 2 : 3}); });
  std::string listing;
  for (int w = 0; w < workers; ++w) {
    listing +=
        fmt::format("{}worker {} has a sum of float32 ({},)", w ? ", " : "", w, w == 0 ? 2 : 3);
  }
  if (workers > 1) {
    CHECK_THROWS_MATCHES(
        strategy.reduce(ReduceOp::kSum, uneven), eagle::InvalidArgumentError,
        Catch::Message("MultiWorkerMirroredStrategy: the workers differ in the values they "
                       "all-reduce: " +
                       listing));
  }
}

TEST_CASE("multi-worker variables start as worker 0's and differing ones raise") {
  const int workers = launched_workers();
  const MultiWorkerMirroredStrategy strategy;
  const int task = strategy.task_id();
  Variable v;
  {
    auto scope = strategy.scope();
    v = Variable(eagle::fill({3}, task + 1), {"v"});
  }
  CHECK(v.is_mirrored());
  CHECK(values(v.read_value()) == std::vector<float>{1, 1, 1});
  check_same_on_every_worker({values(v.read_value())});
  if (workers == 1) return;
  auto scope = strategy.scope();
  std::string listing;
  for (int w = 0; w < workers; ++w) {
    listing += fmt::format("{}worker {} has variable 'w' float32 ({},)", w ? ", " : "", w, w + 1);
  }
  CHECK_THROWS_MATCHES(
      Variable(eagle::zeros({task + 1}), {"w"}), eagle::InvalidArgumentError,
      Catch::Message("MultiWorkerMirroredStrategy: the workers differ in the variables they "
                     "create in the strategy's scope: " +
                     listing));
}

TEST_CASE("multi-worker apply_gradients: workers updating different variables raise") {
  const int workers = launched_workers();
  const MultiWorkerMirroredStrategy strategy;
  if (workers == 1) return;
  Variable a;
  Variable b;
  eagle::optimizers::SGD sgd;
  {
    auto scope = strategy.scope();
    a = Variable(eagle::zeros({2}), {"a"});
    b = Variable(eagle::zeros({5}), {"b"});
  }
  const int task = strategy.task_id();
  try {
    strategy.run([&] {
      std::vector<eagle::optimizers::GradientAndVariable> pairs{{eagle::ones({2}), a}};
      if (task == 0) pairs.emplace_back(eagle::ones({5}), b);
      sgd.apply_gradients(pairs);
    });
    FAIL("no exception");
  } catch (const eagle::InvalidArgumentError& e) {
    std::string listing;
    for (int w = 0; w < workers; ++w) {
      listing +=
          fmt::format("{}worker {} has a sum of float32 ({},)", w ? ", " : "", w, w == 0 ? 7 : 2);
    }
    CHECK(std::string(e.what()) ==
          "in replica 0 on /job:localhost/replica:0/task:0/device:CPU:0: "
          "MultiWorkerMirroredStrategy: the workers differ in the values they all-reduce: " +
              listing);
  }
  // Every worker is past the failed collective: the next one works.
  CHECK(
      strategy.reduce(ReduceOp::kSum, PerReplica<Tensor>({eagle::constant(1.0f)})).item<float>() ==
      static_cast<float>(workers));
}

TEST_CASE("multi-worker training equals one process: an MLP 20 steps with 1 replica per worker") {
  check_equivalence_with_one_process({"CPU:0"});
}

TEST_CASE("multi-worker training equals one process: an MLP 20 steps with 2 replicas per worker") {
  ::setenv("EAGLE_SIMULATED_GPUS", "2", 1);
  check_equivalence_with_one_process({"GPU:0", "GPU:1"});
}

namespace {

std::shared_ptr<keras::Sequential> dense_model() {
  layers::DenseOptions first;
  first.input_shape = keras::TensorShape{kInputs};
  return std::make_shared<keras::Sequential>(std::vector<std::shared_ptr<keras::Layer>>{
      std::make_shared<layers::Dense>(16, "relu", first),
      std::make_shared<layers::Dense>(kClasses, "softmax")});
}

struct FitRun {
  std::vector<std::vector<float>> weights;
  keras::callbacks::History history;
  std::string fit_text;
  std::vector<double> evaluated;
  Tensor predicted;
};

FitRun fit(keras::Sequential& model, const Tensor& x, const Tensor& y) {
  FitRun run;
  eagle_test::KerasPrintCapture out;
  keras::FitOptions options;
  options.batch_size = 10;
  options.epochs = 2;
  options.seed = 3;
  run.history = model.fit(x, y, options);
  run.fit_text = out.text();
  run.evaluated = model.evaluate(x, y, {10, 0});
  run.predicted = model.predict(x, {10, 0});
  for (const Tensor& w : model.get_weights()) run.weights.push_back(values(w));
  return run;
}

// 40 samples of kInputs features and their labels, drawn from `rng`.
struct FitData {
  Tensor x;
  Tensor y;
};
FitData fit_data(std::mt19937& rng) {
  const std::int64_t n = 40;
  FitData data;
  data.x = eagle::constant(random_values(static_cast<std::size_t>(n * kInputs), rng, 1.0f),
                           {n, kInputs});
  std::uniform_int_distribution<int> cls(0, static_cast<int>(kClasses) - 1);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (auto& l : labels) l = cls(rng);
  data.y = eagle::constant(labels);
  return data;
}

std::shared_ptr<eagle::optimizers::Optimizer> adam() {
  return std::make_shared<eagle::optimizers::Adam>(eagle::optimizers::AdamOptions{0.01});
}

// The same initial weights on every worker, drawn from `rng`, set on `model` (Keras's unseeded
// initializers differ per process; set_weights, unlike creation in the scope, is not broadcast),
// which is then compiled and fit in this process alone: what the workers must reproduce.
std::vector<Tensor> set_initial_weights(keras::Sequential& model, std::mt19937& rng) {
  std::vector<Tensor> initial;
  for (const Tensor& w : model.get_weights()) {
    initial.push_back(eagle::constant(
        random_values(static_cast<std::size_t>(w.shape().num_elements()), rng, 0.3f), w.shape()));
  }
  model.set_weights(initial);
  return initial;
}

}  // namespace

TEST_CASE("multi-worker keras fit equals one process and prints on the chief only") {
  const int workers = launched_workers();
  std::mt19937 rng(5);
  const auto [x, y] = fit_data(rng);

  keras::backend::clear_session();
  const auto one = dense_model();
  const std::vector<Tensor> initial = set_initial_weights(*one, rng);
  one->compile(adam(), "sparse_categorical_crossentropy", {"accuracy"});
  const FitRun want = fit(*one, x, y);

  const MultiWorkerMirroredStrategy strategy;
  std::shared_ptr<keras::Sequential> model;
  {
    auto scope = strategy.scope();
    model = dense_model();
    model->compile(adam(), "sparse_categorical_crossentropy", {"accuracy"});
  }
  CHECK(model->distribute_strategy() == &strategy);
  model->set_weights(initial);
  const FitRun got = fit(*model, x, y);
  INFO("worker " << strategy.task_id() << " of " << workers);
  REQUIRE(got.weights.size() == want.weights.size());
  for (std::size_t i = 0; i < got.weights.size(); ++i) {
    INFO("weight " << i);
    CHECK(relative_difference(got.weights[i], want.weights[i]) <= 1e-5);
  }
  check_same_on_every_worker(got.weights);
  const auto& h = got.history.history;
  const auto& w = want.history.history;
  for (std::size_t e = 0; e < 2; ++e) {
    CHECK(std::abs(h.at("loss")[e] - w.at("loss")[e]) <= 1e-5 * std::abs(w.at("loss")[e]));
    CHECK(h.at("accuracy")[e] == w.at("accuracy")[e]);
  }
  CHECK_THAT(want.fit_text, Catch::StartsWith("Epoch 1/2\n"));
  CHECK(got.fit_text == (strategy.is_chief() ? want.fit_text : std::string()));
  REQUIRE(got.evaluated.size() == 2);
  CHECK(std::abs(got.evaluated[0] - want.evaluated[0]) <= 1e-5 * std::abs(want.evaluated[0]));
  CHECK(got.evaluated[1] == want.evaluated[1]);
  CHECK(got.predicted.shape() == want.predicted.shape());
  CHECK(relative_difference(values(got.predicted), values(want.predicted)) <= 1e-5);
}

TEST_CASE("multi-worker custom train_step equals one process") {
  launched_workers();
  std::mt19937 rng(7);
  const auto [x, y] = fit_data(rng);
  const auto make = [] {
    layers::DenseOptions first;
    first.input_shape = keras::TensorShape{kInputs};
    return std::make_shared<eagle_test::ClippedL2Sequential>(
        std::vector<std::shared_ptr<keras::Layer>>{
            std::make_shared<layers::Dense>(16, "relu", first),
            std::make_shared<layers::Dense>(kClasses, "softmax")},
        /*l2=*/0.01f, /*clip=*/0.02f);
  };
  keras::backend::clear_session();
  const auto one = make();
  const std::vector<Tensor> initial = set_initial_weights(*one, rng);
  one->compile(adam(), "sparse_categorical_crossentropy", {"accuracy"});
  const FitRun want = fit(*one, x, y);

  const MultiWorkerMirroredStrategy strategy;
  std::shared_ptr<eagle_test::ClippedL2Sequential> model;
  {
    auto scope = strategy.scope();
    model = make();
    model->compile(adam(), "sparse_categorical_crossentropy", {"accuracy"});
  }
  model->set_weights(initial);
  const FitRun got = fit(*model, x, y);
  INFO("worker " << strategy.task_id());
  REQUIRE(got.weights.size() == want.weights.size());
  for (std::size_t i = 0; i < got.weights.size(); ++i) {
    INFO("weight " << i);
    CHECK(relative_difference(got.weights[i], want.weights[i]) <= 1e-5);
  }
  check_same_on_every_worker(got.weights);
  const auto& h = got.history.history;
  const auto& w = want.history.history;
  for (std::size_t e = 0; e < 2; ++e) {
    CHECK(std::abs(h.at("loss")[e] - w.at("loss")[e]) <= 1e-5 * std::abs(w.at("loss")[e]));
  }
}
