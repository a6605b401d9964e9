// eagle::distribute::MirroredStrategy (docs/guide.md, "Distributed training: MirroredStrategy"):
// construction lines and errors, mirrored variables, run on one thread per replica, reduce, the
// batch split, the all-reduce in the optimizers, and equivalence with one device. Every TEST_CASE
// configures its devices in its own process (tests/fresh_runtime.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "equivalence_mlp.hpp"
#include "fresh_runtime.hpp"
#include "mirrored_components.hpp"

using eagle_test::LevelLog;

namespace {

using eagle::Tensor;
using eagle::Variable;
using eagle::distribute::MirroredStrategy;
using eagle::distribute::PerReplica;
using eagle::distribute::ReduceOp;
using eagle::distribute::ReplicaContext;

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kCpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
const std::string kGpu1 = "/job:localhost/replica:0/task:0/device:GPU:1";
const std::string kGpu2 = "/job:localhost/replica:0/task:0/device:GPU:2";
const std::string kGpu3 = "/job:localhost/replica:0/task:0/device:GPU:3";

// std::barrier is C++20: a reusable one for n threads.
class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t generation = generation_;
    if (++arrived_ == n_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation_ != generation; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int n_;
  int arrived_ = 0;
  std::uint64_t generation_ = 0;
};

// fn throws E whose message starts with `prefix`.
template <class E, class Fn>
void check_throws(Fn&& fn, const std::string& prefix) {
  try {
    fn();
    FAIL("no exception");
  } catch (const E& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith(prefix));
  }
}

std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

using eagle_test::components_identical;
using eagle_test::same_bits;

using eagle_test::Batch;
using eagle_test::kClasses;
using eagle_test::kInputs;
using eagle_test::make_batches;
using eagle_test::make_mlp;
using eagle_test::Mlp;
using eagle_test::per_example_loss;

enum class Opt { kSgd, kAdam };

std::unique_ptr<eagle::optimizers::Optimizer> make_optimizer(Opt opt) {
  if (opt == Opt::kSgd) {
    return std::make_unique<eagle::optimizers::SGD>(eagle::optimizers::SGDOptions{0.1, 0.9});
  }
  return std::make_unique<eagle::optimizers::Adam>(eagle::optimizers::AdamOptions{0.01});
}

constexpr int kSteps = 20;
constexpr std::int64_t kGlobalBatch = 18;  // uneven over 4 replicas: 5, 5, 5, 3

// One device, batch kGlobalBatch.
std::vector<std::vector<float>> train_single(const std::string& device, Opt opt,
                                             const std::vector<Batch>& batches) {
  auto scope = eagle::device(device);
  const Mlp m = make_mlp();
  auto optimizer = make_optimizer(opt);
  for (const Batch& b : batches) {
    eagle::GradientTape tape;
    const Tensor loss =
        eagle::nn::compute_average_loss(per_example_loss(m, b.x, b.labels), kGlobalBatch);
    const auto grads = tape.gradient(loss, {m.w1, m.b1, m.w2, m.b2});
    std::vector<eagle::optimizers::GradientAndVariable> pairs;
    for (std::size_t i = 0; i < 4; ++i) pairs.emplace_back(grads[i], m.variables()[i]);
    optimizer->apply_gradients(pairs);
  }
  std::vector<std::vector<float>> out;
  for (const Variable& v : m.variables()) out.push_back(values(v.read_value()));
  return out;
}

std::vector<std::vector<float>> train_mirrored(const MirroredStrategy& strategy, Opt opt,
                                               const std::vector<Batch>& batches) {
  Mlp m;
  std::unique_ptr<eagle::optimizers::Optimizer> optimizer;
  {
    auto scope = strategy.scope();
    m = make_mlp();
    optimizer = make_optimizer(opt);
  }
  for (const Variable& v : m.variables()) REQUIRE(v.is_mirrored());
  for (const Batch& b : batches) {
    strategy.run(
        [&](const Tensor& x, const Tensor& labels) {
          eagle::GradientTape tape;
          const Tensor loss =
              eagle::nn::compute_average_loss(per_example_loss(m, x, labels), kGlobalBatch);
          const auto grads = tape.gradient(loss, {m.w1, m.b1, m.w2, m.b2});
          std::vector<eagle::optimizers::GradientAndVariable> pairs;
          for (std::size_t i = 0; i < 4; ++i) pairs.emplace_back(grads[i], m.variables()[i]);
          optimizer->apply_gradients(pairs);
        },
        strategy.split_batch(b.x), strategy.split_batch(b.labels));
    for (const Variable& v : m.variables()) REQUIRE(components_identical(v));
  }
  CHECK(optimizer->iterations() == kSteps);
  // Each component lives on its replica's device.
  for (const Variable& v : m.variables()) {
    const std::vector<Variable> c = v.components();
    for (std::size_t i = 0; i < c.size(); ++i) CHECK(c[i].device() == strategy.devices()[i]);
  }
  std::vector<std::vector<float>> out;
  for (const Variable& v : m.variables()) out.push_back(values(v.read_value()));
  return out;
}

// Relative to each variable's largest magnitude (elements near 0 would make an element-wise
// ratio measure the float32 summation order's noise, not the training).
void check_equivalent(const std::vector<std::vector<float>>& got,
                      const std::vector<std::vector<float>>& want) {
  REQUIRE(got.size() == want.size());
  double worst = 0;
  for (std::size_t v = 0; v < got.size(); ++v) {
    REQUIRE(got[v].size() == want[v].size());
    double scale = 0;
    double diff = 0;
    for (std::size_t i = 0; i < got[v].size(); ++i) {
      scale = std::max(scale, std::abs(static_cast<double>(want[v][i])));
      diff = std::max(diff, std::abs(static_cast<double>(got[v][i]) - want[v][i]));
    }
    worst = std::max(worst, diff / scale);
  }
  INFO("largest relative difference " << worst);
  CHECK(worst <= 1e-5);
}

void check_equivalence(const std::vector<std::string>& devices, const std::string& single) {
  const std::vector<Batch> batches = make_batches(kSteps, kGlobalBatch);
  MirroredStrategy strategy(devices);
  for (Opt opt : {Opt::kSgd, Opt::kAdam}) {
    INFO((opt == Opt::kSgd ? "SGD" : "Adam") << " on " << devices.size() << " replicas");
    check_equivalent(train_mirrored(strategy, opt, batches), train_single(single, opt, batches));
  }
}

}  // namespace

// ---- Construction ------------------------------------------------------------------------------

TEST_CASE("construction on two simulated GPUs: the NCCL reason then the devices, INFO when on") {
  EAGLE_FRESH_RUNTIME("2");
  {
    LevelLog log;
    const MirroredStrategy strategy;
    CHECK(log.take() ==
          std::vector<std::string>{
              "WARNING:eagle:Nccl kernel is not found, not using nccl allreduce.",
              "INFO:eagle:Using MirroredStrategy with devices ('" + kGpu0 + "', '" + kGpu1 + "')"});
    CHECK(strategy.num_replicas_in_sync() == 2);
    CHECK(strategy.devices() == std::vector<std::string>{kGpu0, kGpu1});
    CHECK(strategy.cross_device_ops().name() == "ReductionToOneDevice");
  }
  LevelLog warnings_only(false);
  const MirroredStrategy strategy({"/gpu:1"});
  CHECK(warnings_only.take() ==
        std::vector<std::string>{
            "WARNING:eagle:Nccl kernel is not found, not using nccl allreduce."});
  CHECK(strategy.devices() == std::vector<std::string>{kGpu1});
}

TEST_CASE("construction without a GPU: CPU:0, the non-GPU line and the one-tuple's comma") {
  EAGLE_FRESH_RUNTIME(nullptr);
  LevelLog log;
  const MirroredStrategy strategy;
  CHECK(log.take() ==
        std::vector<std::string>{
            "WARNING:eagle:There are non-GPU devices in `tf.distribute.Strategy`, not using nccl "
            "allreduce.",
            "INFO:eagle:Using MirroredStrategy with devices ('" + kCpu0 + "',)"});
  CHECK(strategy.devices() == std::vector<std::string>{kCpu0});
}

// Seed 003's MirroredStrategy on one GPU split in two (samples/fashion_mnist_cnn.cpp,
// --virtual-gpus 2 --strategy mirrored; the seeds: samples/README.md).
TEST_CASE("seed 003: one GPU split in two logical GPUs logs fallingback, two GPUs do not") {
  EAGLE_FRESH_RUNTIME("2");
  // Physical GPU 0 split in two (logical GPU:0 and GPU:1), physical GPU 1 whole (GPU:2).
  const auto gpus = eagle::config::list_physical_devices("GPU");
  eagle::config::set_logical_device_configuration(gpus.at(0), {{1024}, {1024}});
  LevelLog log;
  const MirroredStrategy split({"GPU:0", "GPU:1"});
  CHECK(log.take() ==
        std::vector<std::string>{
            "WARNING:eagle:NCCL is not supported when using virtual GPUs, "
            "fallingback to reduction to one device",
            "INFO:eagle:Using MirroredStrategy with devices ('" + kGpu0 + "', '" + kGpu1 + "')"});
  // A logical GPU of each physical one: no replicas share a GPU (tensorflow#44797).
  const MirroredStrategy distinct({"GPU:0", "GPU:2"});
  CHECK(log.take() ==
        std::vector<std::string>{
            "WARNING:eagle:Nccl kernel is not found, not using nccl allreduce.",
            "INFO:eagle:Using MirroredStrategy with devices ('" + kGpu0 + "', '" + kGpu2 + "')"});
  // A caller's cross-device ops: no selection, no warning.
  const MirroredStrategy chosen(
      {"GPU:0", "GPU:1"}, std::make_shared<eagle::distribute::ReductionToOneDevice>("/CPU:0"));
  CHECK(log.take() == std::vector<std::string>{"INFO:eagle:Using MirroredStrategy with devices ('" +
                                               kGpu0 + "', '" + kGpu1 + "')"});
}

TEST_CASE("construction on logical CPUs and from LogicalDevice objects") {
  EAGLE_FRESH_RUNTIME(nullptr);
  eagle::config::set_logical_device_configuration(eagle::config::list_physical_devices("CPU").at(0),
                                                  {{}, {}});
  LevelLog log;
  const MirroredStrategy strategy(eagle::config::list_logical_devices("CPU"));
  CHECK(log.take() ==
        std::vector<std::string>{
            "WARNING:eagle:There are non-GPU devices in `tf.distribute.Strategy`, not using nccl "
            "allreduce.",
            "INFO:eagle:Using MirroredStrategy with devices ('" + kCpu0 + "', '" + kCpu1 + "')"});
  CHECK(strategy.devices() == std::vector<std::string>{kCpu0, kCpu1});
  // ReductionToOneDevice's INFO line (TensorFlow logs its first 10).
  const Tensor sum =
      strategy.reduce(ReduceOp::kSum, strategy.split_batch(eagle::constant({1.0f, 2.0f})));
  CHECK(values(sum) == std::vector<float>{3});
  CHECK(log.take() == std::vector<std::string>{"INFO:eagle:Reduce to " + kCpu0 +
                                               " then broadcast to ('" + kCpu0 + "',)."});
  Variable w;
  eagle::optimizers::SGD sgd(eagle::optimizers::SGDOptions{1.0});
  {
    auto scope = strategy.scope();
    w = Variable(eagle::constant(1.0f), {"w"});
  }
  strategy.run([&] { sgd.apply_gradients({{eagle::constant(0.5f), w}}); });
  CHECK(w.read_value().item<float>() == 0.0f);
  CHECK(log.take() ==
        std::vector<std::string>{"INFO:eagle:Reduce to " + kCpu0 + " then broadcast to ('" + kCpu0 +
                                 "', '" + kCpu1 + "')."});
}

TEST_CASE("construction errors: duplicates, unknown devices, empty, remote, malformed") {
  EAGLE_FRESH_RUNTIME("2");
  LevelLog log;
  CHECK_THROWS_MATCHES(MirroredStrategy({"GPU:0", "/device:GPU:0"}), eagle::InvalidArgumentError,
                       Catch::Message("No duplicates allowed in `devices` argument: ('" + kGpu0 +
                                      "', '" + kGpu0 + "')"));
  CHECK_THROWS_MATCHES(
      MirroredStrategy({"GPU:0", "GPU:7"}), eagle::InvalidArgumentError,
      Catch::Message("MirroredStrategy: the device 'GPU:7' "
                     "(/job:localhost/replica:0/task:0/device:GPU:7) does not exist in this "
                     "process; its logical devices are " +
                     kCpu0 + ", " + kGpu0 + ", " + kGpu1));
  CHECK_THROWS_MATCHES(
      MirroredStrategy(std::vector<std::string>{}), eagle::InvalidArgumentError,
      Catch::Message("Got an empty `devices` list and unable to recognize any local devices."));
  CHECK_THROWS_MATCHES(MirroredStrategy({"/job:worker/task:1/device:GPU:0"}),
                       eagle::InvalidArgumentError,
                       Catch::Message("In-graph multi-worker training with `MirroredStrategy` is "
                                      "not supported in eager mode."));
  CHECK_THROWS_AS(MirroredStrategy({"GPU:zero"}), eagle::InvalidArgumentError);
  // A failed construction logs nothing.
  CHECK(log.take().empty());
}

// ---- Mirrored variables ------------------------------------------------------------------------

TEST_CASE("variables created in scope() are mirrored: names, devices, printing, assign") {
  EAGLE_FRESH_RUNTIME("2");
  const MirroredStrategy strategy;
  Variable plain(eagle::constant({1.0f, 2.0f}), {"plain"});
  Variable w;
  {
    auto scope = strategy.scope();
    w = Variable(eagle::constant({1.0f, 2.0f}), {"w"});
  }
  Variable after(eagle::constant(0.0f), {"after"});
  CHECK_FALSE(plain.is_mirrored());
  CHECK_FALSE(after.is_mirrored());
  REQUIRE(w.is_mirrored());
  CHECK(w.name() == "w:0");
  const std::vector<Variable> c = w.components();
  REQUIRE(c.size() == 2);
  CHECK(c[0].name() == "w:0");
  CHECK(c[1].name() == "w/replica_1:0");
  CHECK(c[0].device() == kGpu0);
  CHECK(c[1].device() == kGpu1);
  CHECK(w.device() == kGpu0);  // component 0 outside a replica function
  CHECK(w.id() == c[0].id());
  CHECK(eagle::to_string(w) ==
        "MirroredVariable:{\n"
        "  0: <eagle.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], "
        "dtype=float32)>,\n"
        "  1: <eagle.Variable 'w/replica_1:0' shape=(2,) dtype=float32, numpy=array([1., 2.], "
        "dtype=float32)>\n"
        "}");
  w.assign_add(eagle::constant({1.0f, 1.0f}));
  CHECK(values(c[0].read_value()) == std::vector<float>{2, 3});
  CHECK(values(c[1].read_value()) == std::vector<float>{2, 3});
  w.assign(eagle::constant({5.0f, 6.0f}));
  CHECK(components_identical(w));
  CHECK_THROWS_AS(w.assign(eagle::constant({1.0f})), eagle::InvalidArgumentError);
  CHECK(values(c[1].read_value()) == std::vector<float>{5, 6});  // a failed update changes nothing

  // In replica i, the variable is component i. (Catch2's assertions are for the main thread:
  // replica functions return what they saw.)
  struct Seen {
    std::string device;
    std::string value_device;
    std::uint64_t id;
    std::string assign_error;
  };
  const auto seen = strategy.run([&](const ReplicaContext&) {
    Seen out{w.device(), w.read_value().device(), w.id(), ""};
    try {
      w.assign(eagle::constant({0.0f, 0.0f}));
    } catch (const eagle::InvalidArgumentError& e) {
      out.assign_error = e.what();
    }
    return out;
  });
  for (std::size_t r = 0; r < 2; ++r) {
    CHECK(seen[r].device == strategy.devices()[r]);
    CHECK(seen[r].value_device == strategy.devices()[r]);
    CHECK_THAT(seen[r].assign_error,
               Catch::StartsWith("You must specify an aggregation method to update a "
                                 "MirroredVariable in Replica Context"));
  }
  CHECK(seen[0].id == c[0].id());
  CHECK(seen[1].id == c[1].id());
  CHECK(components_identical(w));
}

// ---- run
// -----------------------------------------------------------------------------------------

TEST_CASE("run: one thread per replica, concurrently, each under its device and its own tape") {
  EAGLE_FRESH_RUNTIME("4");
  const MirroredStrategy strategy;
  REQUIRE(strategy.num_replicas_in_sync() == 4);
  Barrier all_inside(4);  // deadlocks unless the four replicas run at the same time
  std::mutex mutex;
  std::set<std::thread::id> threads;
  const auto main_thread = std::this_thread::get_id();
  Variable w;
  {
    auto scope = strategy.scope();
    w = Variable(eagle::constant(3.0f), {"w"});
  }
  for (int step = 0; step < 3; ++step) {
    std::atomic<int> wrong{0};
    const PerReplica<Tensor> grads = strategy.run([&](const ReplicaContext& ctx) {
      all_inside.arrive_and_wait();
      {
        std::lock_guard<std::mutex> lock(mutex);
        threads.insert(std::this_thread::get_id());
      }
      if (std::this_thread::get_id() == main_thread) ++wrong;
      if (eagle::distribute::get_replica_context() != &ctx) ++wrong;
      if (ctx.num_replicas_in_sync() != 4) ++wrong;
      eagle::GradientTape tape;
      const Tensor y = w * eagle::constant(static_cast<float>(ctx.replica_id_in_sync_group()));
      if (y.device() != ctx.device()) ++wrong;
      all_inside.arrive_and_wait();  // every tape records at once, each only its own thread's ops
      return *tape.gradient(y, {w})[0];
    });
    CHECK(wrong == 0);
    CHECK(to_string(grads).rfind("PerReplica:{\n  0: eagle.Tensor(0.0, shape=(), dtype=float32, "
                                 "device=" +
                                     kGpu0 + "),\n  1: eagle.Tensor(1.0,",
                                 0) == 0);
    for (std::size_t r = 0; r < 4; ++r) {
      CHECK(grads[r].device() == strategy.devices()[r]);
      CHECK(grads[r].item<float>() == static_cast<float>(r));
    }
  }
  CHECK(threads.size() == 4);  // a persistent pool: the same four threads every step
  // Back on the caller: the default strategy's replica context (tests/strategy_test.cpp).
  REQUIRE(eagle::distribute::get_replica_context() != nullptr);
  CHECK(eagle::distribute::get_replica_context()->num_replicas_in_sync() == 1);
}

TEST_CASE(
    "ReplicaContext all_reduce: SUM and MEAN, identical copies, its gradient the replicas' sum") {
  EAGLE_FRESH_RUNTIME("4");
  const MirroredStrategy strategy;
  REQUIRE(strategy.num_replicas_in_sync() == 4);
  const PerReplica<Tensor> x = strategy.split_batch(eagle::constant({1.0f, 2.0f, 3.0f, 4.0f}));
  struct Out {
    Tensor sum, mean, grad, ints;
  };
  std::vector<Out> outs(4);
  strategy.run(
      [&](const ReplicaContext& ctx, const Tensor& xr) {
        const float r = static_cast<float>(ctx.replica_id_in_sync_group());
        eagle::GradientTape tape;
        tape.watch(xr);
        // Two dtypes: one pack each, one collective.
        const std::vector<Tensor> reduced = ctx.all_reduce(
            ReduceOp::kSum, {xr * xr, eagle::constant(std::vector<std::int32_t>{1, 2})});
        const Tensor mean = ctx.all_reduce(ReduceOp::kMean, xr);
        // loss_r = (r + 1) * sum_j x_j^2 + mean: d loss_total / d x_i = 2 x_i * sum_r (r + 1) + 1.
        const Tensor loss = reduced[0] * (r + 1.0f) + mean;
        Out& o = outs[static_cast<std::size_t>(ctx.replica_id_in_sync_group())];
        o.grad = *tape.gradient(loss, {xr})[0];
        o.sum = reduced[0];
        o.ints = reduced[1];
        o.mean = mean;
      },
      x);
  for (std::size_t r = 0; r < 4; ++r) {
    INFO("replica " << r);
    CHECK(outs[r].sum.device() == strategy.devices()[r]);
    CHECK(values(outs[r].sum) == std::vector<float>{30.0f});
    CHECK(outs[r].ints.to_vector<std::int32_t>() == std::vector<std::int32_t>{4, 8});
    CHECK(values(outs[r].mean) == std::vector<float>{2.5f});
    const float xi = static_cast<float>(r + 1);
    CHECK(values(outs[r].grad) == std::vector<float>{2 * xi * 10.0f + 1.0f});
  }
}

TEST_CASE("ReplicaContext all_reduce outside its replica's thread is an error") {
  EAGLE_FRESH_RUNTIME("2");
  const MirroredStrategy strategy;
  // Another thread, while the replica runs: refused, and the replicas go on.
  std::string refused;
  strategy.run([&](const ReplicaContext& ctx) {
    if (ctx.replica_id_in_sync_group() != 0) return;
    std::thread other([&] {
      try {
        ctx.all_reduce(ReduceOp::kSum, eagle::constant(1.0f));
      } catch (const eagle::FailedPreconditionError& e) {
        refused = e.what();
      }
    });
    other.join();
  });
  CHECK(refused ==
        "ReplicaContext::all_reduce of replica 0 must run on that replica's own thread, inside "
        "MirroredStrategy::run");
  // A replica whose peers never join the collective is released, not left waiting.
  check_throws<eagle::CancelledError>(
      [&] {
        strategy.run([&](const ReplicaContext& ctx) {
          if (ctx.replica_id_in_sync_group() == 1) {
            ctx.all_reduce(ReduceOp::kSum, eagle::constant(1.0f));
          }
        });
      },
      "in replica 1 on " + kGpu1 + ": replica 0 on " + kGpu0 +
          " left its function without joining collective #1");
}

TEST_CASE("run passes PerReplica arguments by component and others as they are") {
  EAGLE_FRESH_RUNTIME("2");
  const MirroredStrategy strategy;
  const PerReplica<Tensor> x = strategy.split_batch(eagle::constant({1.0f, 2.0f, 3.0f, 4.0f}));
  const float scale = 10;
  const PerReplica<Tensor> out =
      strategy.run([](const Tensor& part, float s) { return part * s; }, x, scale);
  CHECK(values(out[0]) == std::vector<float>{10, 20});
  CHECK(values(out[1]) == std::vector<float>{30, 40});
  CHECK(out[1].device() == kGpu1);
  CHECK(to_string(out) ==
        "PerReplica:{\n"
        "  0: eagle.Tensor([10. 20.], shape=(2,), dtype=float32, device=" +
            kGpu0 +
            "),\n"
            "  1: eagle.Tensor([30. 40.], shape=(2,), dtype=float32, device=" +
            kGpu1 +
            ")\n"
            "}");
}

TEST_CASE("a replica's error reaches the caller as its class, naming the replica") {
  EAGLE_FRESH_RUNTIME("2");
  const MirroredStrategy strategy;
  std::atomic<int> finished{0};
  CHECK_THROWS_MATCHES(strategy.run([&](const ReplicaContext& ctx) {
    if (ctx.replica_id_in_sync_group() == 1) throw eagle::NotFoundError("no such file");
    ++finished;
  }),
                       eagle::NotFoundError,
                       Catch::Message("in replica 1 on " + kGpu1 + ": no such file"));
  CHECK(finished == 1);
  // An op's own error from inside a replica.
  check_throws<eagle::InvalidArgumentError>(
      [&] {
        strategy.run([](const ReplicaContext&) {
          return eagle::matmul(eagle::ones({2, 3}), eagle::ones({2, 3}));
        });
      },
      "in replica 0 on " + kGpu0 + ": ");
  // The strategy still works afterwards.
  const auto ids =
      strategy.run([](const ReplicaContext& ctx) { return ctx.replica_id_in_sync_group(); });
  CHECK(ids.values() == std::vector<int>{0, 1});
  // run inside a replica function is refused, not a deadlock.
  CHECK_THROWS_AS(strategy.run([&](const ReplicaContext&) { strategy.run([] {}); }),
                  eagle::FailedPreconditionError);
}

// ---- reduce and the batch split
// ------------------------------------------------------------------

TEST_CASE(
    "reduce: SUM and MEAN across replicas, with an axis sum over sum, on the scope's device") {
  EAGLE_FRESH_RUNTIME("2");
  const MirroredStrategy strategy;
  // An uneven global batch of 3: replica 0 takes 2 rows, replica 1 one.
  const PerReplica<Tensor> v =
      strategy.split_batch(eagle::constant({{1.0f, 2.0f}, {3.0f, 4.0f}, {5.0f, 6.0f}}));
  CHECK(v[0].shape() == eagle::Shape{2, 2});
  CHECK(v[1].shape() == eagle::Shape{1, 2});
  const Tensor sum_axis = strategy.reduce(ReduceOp::kSum, v, 0);
  CHECK(values(sum_axis) == std::vector<float>{9, 12});
  CHECK(sum_axis.device() == kCpu0);
  const Tensor mean_axis = strategy.reduce(ReduceOp::kMean, v, 0);
  CHECK(values(mean_axis) == std::vector<float>{3, 4});  // /3, not the mean of means (2.5, 3.5)

  const PerReplica<Tensor> same = strategy.run([](const ReplicaContext& ctx) {
    return eagle::fill({2}, ctx.replica_id_in_sync_group() + 1);
  });
  CHECK(values(strategy.reduce(ReduceOp::kSum, same)) == std::vector<float>{3, 3});
  CHECK(values(strategy.reduce(ReduceOp::kMean, same)) == std::vector<float>{1.5f, 1.5f});
  CHECK(strategy.reduce(ReduceOp::kSum, same, 0).item<float>() == 6.0f);
  CHECK(strategy.reduce(ReduceOp::kMean, same, -1).item<float>() == 1.5f);
  {
    auto scope = eagle::device("/GPU:1");
    CHECK(strategy.reduce(ReduceOp::kSum, same).device() == kGpu1);
  }
  CHECK_THROWS_AS(strategy.reduce(ReduceOp::kSum, v), eagle::InvalidArgumentError);  // shapes
  CHECK_THROWS_AS(strategy.reduce(ReduceOp::kSum, v, 2), eagle::InvalidArgumentError);
  CHECK_THROWS_AS(strategy.reduce(ReduceOp::kSum, PerReplica<Tensor>({v[0]})),
                  eagle::InvalidArgumentError);
}

TEST_CASE("split_batch and experimental_distribute_dataset follow TensorFlow's split rule") {
  EAGLE_FRESH_RUNTIME("4");
  const MirroredStrategy four;
  const MirroredStrategy three({"GPU:0", "GPU:1", "GPU:2"});
  const MirroredStrategy two({"GPU:0", "GPU:1"});
  const auto ints = [](const PerReplica<Tensor>& p) {
    std::vector<std::vector<float>> out;
    for (const Tensor& t : p) out.push_back(values(t));
    return out;
  };
  // input.ipynb: range(8).batch(4) over 3 replicas: [0,1] [2,3] [].
  CHECK(ints(three.split_batch(eagle::range(0.0, 4.0))) ==
        std::vector<std::vector<float>>{{0, 1}, {2, 3}, {}});
  // range(4).batch(4) over 4 replicas: one each.
  CHECK(ints(four.split_batch(eagle::range(0.0, 4.0))) ==
        std::vector<std::vector<float>>{{0}, {1}, {2}, {3}});
  CHECK(ints(four.split_batch(eagle::range(0.0, 18.0)))[3].size() == 3);  // 5, 5, 5, 3
  // range(6).batch(4) over 2 replicas: [0,1] [2,3], then [4] [5].
  const auto ds = eagle::data::Dataset::from_tensor_slices({eagle::range(0.0, 6.0)}).batch(4);
  std::vector<std::vector<std::vector<float>>> seen;
  for (const PerReplica<eagle::data::Element>& batch : two.experimental_distribute_dataset(ds)) {
    CHECK(batch[1][0].device() == kGpu1);
    seen.push_back({values(batch[0][0]), values(batch[1][0])});
  }
  CHECK(seen == std::vector<std::vector<std::vector<float>>>{{{0, 1}, {2, 3}}, {{4}, {5}}});
  CHECK_THROWS_AS(two.split_batch(eagle::constant(1.0f)), eagle::InvalidArgumentError);
}

TEST_CASE("compute_average_loss divides by the global batch") {
  EAGLE_FRESH_RUNTIME("2");
  const Tensor losses = eagle::constant({1.0f, 2.0f, 3.0f});
  CHECK(eagle::nn::compute_average_loss(losses, 6).item<float>() == 1.0f);
  CHECK(eagle::nn::compute_average_loss(losses).item<float>() == 2.0f);
  CHECK_THROWS_MATCHES(eagle::nn::compute_average_loss(eagle::constant(1.0f), 2),
                       eagle::InvalidArgumentError,
                       Catch::Message("Invalid value passed for `per_example_loss`. Expected a "
                                      "tensor with at least rank 1."));
  CHECK_THROWS_MATCHES(eagle::nn::compute_average_loss(losses, 0), eagle::InvalidArgumentError,
                       Catch::Message("global_batch_size must be positive."));
  // In a replica function the default is the per-replica batch times the replicas: 3 * 2.
  const MirroredStrategy strategy;
  const auto per_replica = strategy.run(
      [&](const ReplicaContext&) { return eagle::nn::compute_average_loss(losses).item<float>(); });
  CHECK(per_replica.values() == std::vector<float>{1.0f, 1.0f});
  // An empty per-replica batch gives 0.
  CHECK(eagle::nn::compute_average_loss(eagle::zeros({0}), 4).item<float>() == 0.0f);
}

// ---- The all-reduce in apply_gradients
// -----------------------------------------------------------

TEST_CASE("apply_gradients in replicas sums the gradients once, iterations grow by one") {
  EAGLE_FRESH_RUNTIME("2");
  const MirroredStrategy strategy;
  Variable w, b;
  std::unique_ptr<eagle::optimizers::SGD> sgd;
  {
    auto scope = strategy.scope();
    w = Variable(eagle::constant({1.0f, 1.0f}), {"w"});
    b = Variable(eagle::constant(0.0, eagle::kFloat64), {"b"});  // a second dtype: a second pack
    sgd = std::make_unique<eagle::optimizers::SGD>(eagle::optimizers::SGDOptions{1.0, 0.5});
  }
  strategy.run([&](const ReplicaContext& ctx) {
    const float r = static_cast<float>(ctx.replica_id_in_sync_group());
    sgd->apply_gradients({{eagle::constant({r + 1, 2 * r}), w},
                          {eagle::constant(static_cast<double>(r) + 0.5, eagle::kFloat64), b}});
  });
  // Summed gradients: (1 + 2, 0 + 2) and 0.5 + 1.5.
  CHECK(values(w.read_value()) == std::vector<float>{-2, -1});
  CHECK(b.read_value().item<double>() == -2.0);
  CHECK(components_identical(w));
  CHECK(sgd->iterations() == 1);
  // The momentum slot is mirrored with its variable.
  const Variable momentum = sgd->get_slot(w, "momentum");
  REQUIRE(momentum.is_mirrored());
  CHECK(momentum.components()[1].name() == "SGD/w/momentum/replica_1:0");
  CHECK(momentum.components()[1].device() == kGpu1);
  CHECK(components_identical(momentum));
  // Outside a replica function: the same update on every component.
  sgd->apply_gradients({{eagle::constant({1.0f, 1.0f}), w}});
  CHECK(components_identical(w));
  CHECK(components_identical(momentum));
  CHECK(sgd->iterations() == 2);
}

TEST_CASE(
    "apply_gradients errors in replicas: different gradients, a replica failing in the all-reduce, "
    "unmirrored variables") {
  EAGLE_FRESH_RUNTIME("2");
  const MirroredStrategy strategy;
  Variable w, v;
  eagle::optimizers::SGD sgd;
  {
    auto scope = strategy.scope();
    w = Variable(eagle::constant({1.0f, 1.0f}), {"w"});
    v = Variable(eagle::constant(1.0f), {"v"});
  }
  Variable outside(eagle::constant(1.0f), {"outside"});

  // Replica 1 passes another variable list: both replicas fail, naming both lists.
  CHECK_THROWS_MATCHES(
      strategy.run([&](const ReplicaContext& ctx) {
        if (ctx.replica_id_in_sync_group() == 0) {
          sgd.apply_gradients({{eagle::constant({1.0f, 1.0f}), w}});
        } else {
          sgd.apply_gradients({{eagle::constant({1.0f, 1.0f}), w}, {eagle::constant(1.0f), v}});
        }
      }),
      eagle::InvalidArgumentError,
      Catch::Message("in replica 0 on " + kGpu0 +
                     ": The replicas passed different gradients to apply_gradients: replica 0 on " +
                     kGpu0 + " has ['w:0' (2,) float32], replica 1 on " + kGpu1 +
                     " has ['w:0' (2,) float32, 'v:0' () float32]"));
  CHECK(values(w.read_value()) == std::vector<float>{1, 1});
  CHECK(components_identical(w));
  CHECK(sgd.iterations() == 0);

  // Replica 1 fails while replica 0 waits in the all-reduce: replica 0 is released, the caller
  // sees replica 1's own error, and no component changed.
  Barrier sync(2);
  CHECK_THROWS_MATCHES(strategy.run([&](const ReplicaContext& ctx) {
    if (ctx.replica_id_in_sync_group() == 1) {
      sync.arrive_and_wait();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      throw eagle::ResourceExhaustedError("out of memory");
    }
    sync.arrive_and_wait();
    sgd.apply_gradients({{eagle::constant({1.0f, 1.0f}), w}});
  }),
                       eagle::ResourceExhaustedError,
                       Catch::Message("in replica 1 on " + kGpu1 + ": out of memory"));
  CHECK(values(w.read_value()) == std::vector<float>{1, 1});
  CHECK(components_identical(w));

  // Replica 1 returns without apply_gradients: replica 0 is released with CancelledError.
  CHECK_THROWS_MATCHES(
      strategy.run([&](const ReplicaContext& ctx) {
        if (ctx.replica_id_in_sync_group() == 0) {
          sgd.apply_gradients({{eagle::constant({1.0f, 1.0f}), w}});
        }
      }),
      eagle::CancelledError,
      Catch::Message("in replica 0 on " + kGpu0 + ": replica 1 on " + kGpu1 +
                     " left its function without joining collective #1 (an all-reduce of "
                     "apply_gradients, ReplicaContext::all_reduce or BatchNormalization) that "
                     "this replica waited in (it raised an error, or the replicas joined "
                     "different numbers of them)"));

  // A variable created outside the scope cannot be updated in sync.
  check_throws<eagle::InvalidArgumentError>(
      [&] {
        strategy.run([&](const ReplicaContext&) {
          sgd.apply_gradients({{eagle::constant(1.0f), outside}});
        });
      },
      "in replica 0 on " + kGpu0 + ": apply_gradients in replica 0 on " + kGpu0 +
          ": variable 'outside:0' was not created under this MirroredStrategy's scope()");
  // ... but it can be read there (TensorFlow allows it too).
  const auto read = strategy.run([&](const ReplicaContext&) { return outside.read_value(); });
  CHECK(read[1].item<float>() == 1.0f);
  CHECK(sgd.iterations() == 0);
  // And the strategy trains normally afterwards.
  strategy.run([&](const ReplicaContext&) {
    sgd.apply_gradients({{eagle::constant({1.0f, 1.0f}), w}});
  });
  CHECK(components_identical(w));
  CHECK(sgd.iterations() == 1);
}

// ---- Equivalence with one device ---------------------------------------------------------------

TEST_CASE("equivalence: 2 and 4 simulated GPUs train as one device with the global batch") {
  EAGLE_FRESH_RUNTIME("4");
  check_equivalence({"GPU:0", "GPU:1"}, "/GPU:0");
  check_equivalence({"GPU:0", "GPU:1", "GPU:2", "GPU:3"}, "/GPU:0");
}

TEST_CASE("equivalence: 2 and 4 logical CPUs train as one CPU with the global batch") {
  EAGLE_FRESH_RUNTIME(nullptr);
  eagle::config::set_logical_device_configuration(eagle::config::list_physical_devices("CPU").at(0),
                                                  {{}, {}, {}, {}});
  check_equivalence({"CPU:0", "CPU:1"}, "/CPU:0");
  check_equivalence({"CPU:0", "CPU:1", "CPU:2", "CPU:3"}, "/CPU:0");
}
