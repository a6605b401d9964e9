// eagle::distribute::ParameterServerTraining (asynchronous training; docs/guide.md, "Towers and
// asynchronous training"): exact staleness in the deterministic schedule, every update counted,
// the loss falling on simulated GPUs and on the CPU, variables and updates on the parameter
// device, consistent reads under concurrency, a failing worker reaching the caller without a
// hang, and bad input.
#include <catch2/catch.hpp>

#include <cmath>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "captured_log.hpp"
#include "eagle/distribute/parameter_server_training.hpp"
#include "eagle/eagle.hpp"

namespace {

using eagle::Tensor;
using eagle::Variable;
using eagle::distribute::AsyncTrainingResult;
using eagle::distribute::ParameterServerTraining;
using eagle::distribute::ParameterServerTrainingOptions;
using eagle::distribute::WorkerContext;

const std::string kCpu = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
const std::string kGpu1 = "/job:localhost/replica:0/task:0/device:GPU:1";

// y = x w + b with w = (2, -3, 0.5), b = 1; each worker step its own batch of 16, seeded by
// worker and step, made on the worker's device.
struct LinearRegression {
  Variable w, b;
  explicit LinearRegression(ParameterServerTraining& ps)
      : w(ps.create_variable(eagle::zeros({3, 1}), {"w"})),
        b(ps.create_variable(eagle::zeros({1}), {"b"})) {}

  Tensor loss(const WorkerContext& ctx) const {
    const auto seed = static_cast<std::uint64_t>(1 + ctx.worker() * 10007 + ctx.step());
    const Tensor x = eagle::random_normal({16, 3}, 0, 1, eagle::kFloat32, seed);
    const Tensor y = eagle::matmul(x, eagle::constant({2.0f, -3.0f, 0.5f}, eagle::Shape{3, 1})) +
                     eagle::constant(1.0f);
    const Tensor prediction = eagle::matmul(x, ctx.value(w)) + ctx.value(b);
    return eagle::reduce_mean(eagle::square(prediction - y));
  }
};

std::vector<std::int64_t> staleness_of(const AsyncTrainingResult& r) {
  std::vector<std::int64_t> out;
  for (const auto& u : r.updates) out.push_back(u.staleness);
  return out;
}

std::vector<int> workers_of(const AsyncTrainingResult& r) {
  std::vector<int> out;
  for (const auto& u : r.updates) out.push_back(u.worker);
  return out;
}

// The mean loss of the first and of the last `n` updates.
std::pair<double, double> first_and_last_loss(const AsyncTrainingResult& r, std::size_t n) {
  double first = 0, last = 0;
  for (std::size_t i = 0; i < n; ++i) {
    first += r.updates[i].loss / static_cast<double>(n);
    last += r.updates[r.updates.size() - 1 - i].loss / static_cast<double>(n);
  }
  return {first, last};
}

}  // namespace

TEST_CASE("parameter server: devices default to every logical GPU, variables to the CPU") {
  ParameterServerTraining ps;
  CHECK(ps.parameter_device() == kCpu);
  CHECK(ps.worker_devices() == std::vector<std::string>{kGpu0, kGpu1});
  CHECK(ps.num_workers() == 2);
  ParameterServerTraining named({"/gpu:1", {"/CPU:0", "/device:GPU:0", "/CPU:0"}});
  CHECK(named.parameter_device() == kGpu1);
  CHECK(named.worker_devices() == std::vector<std::string>{kCpu, kGpu0, kCpu});
  const Variable v = named.create_variable(eagle::ones({2}), {"v"});
  CHECK(v.device() == kGpu1);
  CHECK(named.variables().size() == 1);
  CHECK(named.version() == 0);
}

TEST_CASE("parameter server: a Strategy whose scope places variables on the parameter device") {
  ParameterServerTraining ps({"/GPU:1", {"/GPU:0"}});
  const eagle::distribute::Strategy& strategy = ps;
  CHECK(strategy.num_replicas_in_sync() == 1);
  CHECK(strategy.devices() == std::vector<std::string>{kGpu1});
  Variable w;
  {
    auto scope = strategy.scope();
    CHECK(&eagle::distribute::get_strategy() == &strategy);
    CHECK(eagle::distribute::in_cross_replica_context());
    w = Variable(eagle::constant({1.0f, 2.0f, 3.0f}, {3, 1}), {"w"});
  }
  // On the parameter device, one of the training's variables, and trained by run().
  CHECK(w.device() == kGpu1);
  REQUIRE(ps.variables().size() == 1);
  CHECK(ps.variables()[0].id() == w.id());
  CHECK(strategy.extended().variable_created_in_scope(w));
  // Strategy::run: once, on this thread, in a replica context of one replica.
  const auto out = strategy.run([&](const eagle::distribute::ReplicaContext& ctx) {
    CHECK(ctx.num_replicas_in_sync() == 1);
    CHECK(&ctx.strategy() == &strategy);
    return eagle::reduce_sum(w.read_value());
  });
  REQUIRE(out.size() == 1);
  CHECK(strategy.reduce(eagle::distribute::ReduceOp::kSum, out).item<float>() == 6.0f);
  eagle::optimizers::SGD sgd({0.5});
  ps.run(sgd, 1, [&](const WorkerContext& ctx) { return eagle::reduce_sum(ctx.value(w)); });
  CHECK(w.read_value().to_vector<float>() == std::vector<float>{0.5f, 1.5f, 2.5f});
}

TEST_CASE("parameter server: two workers round robin have staleness 1 after the first update") {
  ParameterServerTraining ps({"/CPU:0", {"/GPU:0", "/GPU:1"}, /*deterministic=*/true});
  LinearRegression model(ps);
  eagle::optimizers::SGD sgd({0.1});
  const AsyncTrainingResult r =
      ps.run(sgd, 5, [&](const WorkerContext& ctx) { return model.loss(ctx); });
  REQUIRE(r.updates.size() == 10);
  CHECK(workers_of(r) == std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1, 0, 1});
  CHECK(staleness_of(r) == std::vector<std::int64_t>{0, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  for (std::size_t i = 0; i < r.updates.size(); ++i) {
    const auto& u = r.updates[i];
    CHECK(u.version == static_cast<std::int64_t>(i));
    CHECK(u.step == static_cast<std::int64_t>(i / 2));
    CHECK(u.staleness == u.version - u.read_version);
    CHECK(u.seconds >= 0);
    if (i > 0) CHECK(u.seconds >= r.updates[i - 1].seconds);
  }
  CHECK(r.staleness_histogram() == std::vector<std::int64_t>{1, 9});
  CHECK(r.mean_staleness() == Approx(0.9));
  CHECK(r.max_staleness() == 1);
  CHECK(r.staleness_report() == "staleness of 10 updates: mean 0.90, max 1\n  0: 1\n  1: 9\n");
  CHECK(ps.version() == 10);
  CHECK(sgd.iterations() == 10);
}

TEST_CASE(
    "parameter server: with N workers round robin the first updates have staleness 0 to N-1") {
  ParameterServerTraining ps({"/CPU:0", {"/GPU:0", "/GPU:1", "/CPU:0"}, true});
  LinearRegression model(ps);
  eagle::optimizers::SGD sgd({0.05});
  const AsyncTrainingResult r =
      ps.run(sgd, 4, [&](const WorkerContext& ctx) { return model.loss(ctx); });
  CHECK(workers_of(r) == std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2});
  CHECK(staleness_of(r) == std::vector<std::int64_t>{0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2});
  CHECK(r.staleness_histogram() == std::vector<std::int64_t>{1, 1, 10});
  // A second run goes on from the version the first reached.
  const AsyncTrainingResult again =
      ps.run(sgd, 1, [&](const WorkerContext& ctx) { return model.loss(ctx); });
  REQUIRE(again.updates.size() == 3);
  CHECK(again.updates[0].read_version == 12);
  CHECK(again.updates[2].version == 14);
  CHECK(staleness_of(again) == std::vector<std::int64_t>{0, 1, 2});
}

TEST_CASE("parameter server: staleness-aware updates divide each gradient by its staleness") {
  // Three workers round robin: staleness 0, 1, then 2 for every later update. The loss 2 w has
  // gradient 2; plain SGD at learning rate 1 subtracts it, divided by the staleness above 1
  // (Note [Staleness-aware updates]).
  for (const bool aware : {false, true}) {
    INFO("staleness_aware " << aware);
    ParameterServerTrainingOptions options{"/CPU:0", {"/GPU:0", "/GPU:1", "/CPU:0"}, true};
    options.staleness_aware = aware;
    ParameterServerTraining ps(options);
    const Variable w = ps.create_variable(eagle::constant(0.0f), {"w"});
    eagle::optimizers::SGD sgd({1.0});
    const AsyncTrainingResult r =
        ps.run(sgd, 4, [&](const WorkerContext& ctx) { return ctx.value(w) * 2.0; });
    REQUIRE(staleness_of(r) == std::vector<std::int64_t>{0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2});
    std::vector<double> scales;
    for (const auto& u : r.updates) scales.push_back(u.gradient_scale);
    std::vector<double> expected(12, aware ? 0.5 : 1.0);
    expected[0] = expected[1] = 1.0;
    CHECK(scales == expected);
    // 2 + 2 + 10 x 1 aware, 12 x 2 without.
    CHECK(w.read_value().item<float>() == (aware ? -14.0f : -24.0f));
  }
}

TEST_CASE("parameter server: the deterministic schedule gives the same weights at every run") {
  std::vector<std::vector<float>> weights;
  for (int run = 0; run < 2; ++run) {
    ParameterServerTraining ps({"/CPU:0", {"/GPU:0", "/GPU:1"}, true});
    LinearRegression model(ps);
    eagle::optimizers::Adam adam({0.05});
    ps.run(adam, 10, [&](const WorkerContext& ctx) { return model.loss(ctx); });
    weights.push_back(model.w.read_value().to_vector<float>());
  }
  CHECK(weights[0] == weights[1]);
}

TEST_CASE("parameter server: concurrent workers apply workers x steps updates, each counted once") {
  ParameterServerTraining ps({"/CPU:0", {"/GPU:0", "/GPU:1", "/CPU:0"}});
  LinearRegression model(ps);
  eagle::optimizers::SGD sgd({0.05});
  const AsyncTrainingResult r =
      ps.run(sgd, 20, [&](const WorkerContext& ctx) { return model.loss(ctx); });
  REQUIRE(r.updates.size() == 60);
  std::vector<std::int64_t> next_step(3, 0);
  std::int64_t histogram_total = 0;
  for (std::size_t i = 0; i < r.updates.size(); ++i) {
    const auto& u = r.updates[i];
    CHECK(u.version == static_cast<std::int64_t>(i));
    CHECK(u.step == next_step[static_cast<std::size_t>(u.worker)]++);  // each worker in order
    CHECK(u.read_version <= u.version);
    CHECK(u.staleness == u.version - u.read_version);
  }
  for (std::int64_t count : r.staleness_histogram()) histogram_total += count;
  CHECK(histogram_total == 60);
  CHECK(next_step == std::vector<std::int64_t>{20, 20, 20});
  CHECK(ps.version() == 60);
  CHECK(sgd.iterations() == 60);
  CHECK(r.seconds >= r.updates.back().seconds);
}

TEST_CASE("parameter server: the loss falls on simulated GPUs and on the CPU") {
  const std::vector<std::vector<std::string>> setups = {{"/GPU:0", "/GPU:1"}, {"/CPU:0", "/CPU:0"}};
  for (const auto& workers : setups) {
    for (bool deterministic : {false, true}) {
      INFO("workers " << workers[0] << ", " << workers[1] << ", deterministic " << deterministic);
      ParameterServerTraining ps({"/CPU:0", workers, deterministic});
      LinearRegression model(ps);
      eagle::optimizers::SGD sgd({0.1});
      const AsyncTrainingResult r =
          ps.run(sgd, 60, [&](const WorkerContext& ctx) { return model.loss(ctx); });
      REQUIRE(r.updates.size() == 120);
      const auto [first, last] = first_and_last_loss(r, 10);
      CHECK(first > 3.0);  // 14.25 at the start (zero weights), falling within 10 updates
      CHECK(last < 1e-3 * first);
      const std::vector<float> w = model.w.read_value().to_vector<float>();
      CHECK(w[0] == Approx(2.0).margin(0.02));
      CHECK(w[1] == Approx(-3.0).margin(0.02));
      CHECK(w[2] == Approx(0.5).margin(0.02));
      CHECK(model.b.read_value().to_vector<float>()[0] == Approx(1.0).margin(0.02));
    }
  }
}

TEST_CASE("parameter server: variables, slots and updates stay on the parameter device") {
  ParameterServerTraining ps({"/CPU:0", {"/GPU:0", "/GPU:1"}, true});
  eagle_test::CapturedLog log;
  LinearRegression model(ps);
  for (const std::string& line : log.take()) {
    INFO(line);
    if (line.find("Variable") != std::string::npos) CHECK(line.find(kCpu) != std::string::npos);
  }
  eagle::optimizers::SGD sgd({0.1, 0.9});  // momentum: one slot per variable
  ps.run(sgd, 1, [&](const WorkerContext& ctx) {
    CHECK(ctx.value(model.w).device() == ctx.device());  // the values read, on the worker
    return model.loss(ctx);
  });
  const std::vector<std::string> lines = log.take();
  auto count = [&](const std::string& line) {
    return std::count(lines.begin(), lines.end(), line);
  };
  CHECK(count("Executing op ReadVariableOp in device " + kCpu) == 4);  // 2 variables, 2 workers
  CHECK(count("Executing op ResourceApplyKerasMomentum in device " + kCpu) == 4);
  // The labels, the prediction and the gradient of w.
  CHECK(count("Executing op MatMul in device " + kGpu0) == 3);
  CHECK(count("Executing op MatMul in device " + kGpu1) == 3);
  CHECK(count("Executing op Identity in device " + kGpu0) == 2);  // the values to the worker
  CHECK(count("Executing op Identity in device " + kCpu) == 4);   // the gradients to the server
  for (const std::string& line : lines) {
    INFO(line);
    const bool variable_op = line.find("VariableOp") != std::string::npos ||
                             line.find("ResourceApply") != std::string::npos ||
                             line.find("_Keras") != std::string::npos;
    if (variable_op) CHECK(line.find(kCpu) != std::string::npos);
  }
  CHECK(model.w.device() == kCpu);
  CHECK(sgd.get_slot(model.w, "momentum").device() == kCpu);
}

TEST_CASE("parameter server: a step reads every variable from one version") {
  // a and b start equal and always get the same gradient, so every consistent read sees a == b.
  ParameterServerTraining ps({"/CPU:0", {"/GPU:0", "/GPU:1", "/CPU:0", "/CPU:0"}});
  const Variable a = ps.create_variable(eagle::fill({64}, 1.0), {"a"});
  const Variable b = ps.create_variable(eagle::fill({64}, 1.0), {"b"});
  eagle::optimizers::SGD sgd({0.001});
  const AsyncTrainingResult r = ps.run(sgd, 100, [&](const WorkerContext& ctx) {
    const Tensor va = ctx.value(a);
    const Tensor vb = ctx.value(b);
    if (va.to_vector<float>() != vb.to_vector<float>()) {
      throw std::logic_error("a and b read from different versions");
    }
    return eagle::reduce_sum(va * 0.5f) + eagle::reduce_sum(vb * 0.5f);
  });
  CHECK(r.updates.size() == 400);
  CHECK(a.read_value().to_vector<float>() == b.read_value().to_vector<float>());
  CHECK(a.read_value().to_vector<float>()[0] == Approx(1.0 - 400 * 0.001 * 0.5).epsilon(1e-4));
}

TEST_CASE("parameter server: a worker that throws stops the run, its error names the worker") {
  SECTION("deterministic: the updates before the failure are applied, none after") {
    ParameterServerTraining ps({"/CPU:0", {"/GPU:0", "/GPU:1"}, true});
    LinearRegression model(ps);
    eagle::optimizers::SGD sgd;
    auto fn = [&](const WorkerContext& ctx) {
      if (ctx.worker() == 1 && ctx.step() == 2) throw eagle::InvalidArgumentError("bad batch");
      return model.loss(ctx);
    };
    CHECK_THROWS_MATCHES(ps.run(sgd, 1000, fn), eagle::InvalidArgumentError,
                         Catch::Message("Worker 1 (" + kGpu1 + "), step 2: bad batch"));
    CHECK(ps.version() == 4);  // steps 0 and 1 of both workers
    try {
      ps.run(sgd, 1000, fn);
    } catch (const eagle::InvalidArgumentError& e) {
      try {
        std::rethrow_if_nested(e);
        FAIL("no nested exception");
      } catch (const eagle::InvalidArgumentError& original) {
        CHECK(std::string(original.what()) == "bad batch");
      }
    }
  }
  SECTION("concurrent: the other workers stop, nothing hangs") {
    ParameterServerTraining ps({"/CPU:0", {"/GPU:0", "/GPU:1", "/CPU:0"}});
    LinearRegression model(ps);
    eagle::optimizers::SGD sgd;
    CHECK_THROWS_MATCHES(ps.run(sgd, 100000,
                                [&](const WorkerContext& ctx) {
                                  if (ctx.worker() == 2 && ctx.step() == 3) {
                                    throw std::runtime_error("disk full");
                                  }
                                  return model.loss(ctx);
                                }),
                         eagle::UnknownError,
                         Catch::Message("Worker 2 (" + kCpu + "), step 3: disk full"));
    CHECK(ps.version() < 100000);
    // The object is usable again.
    CHECK(ps.run(sgd, 1, [&](const WorkerContext& ctx) {
              return model.loss(ctx);
            }).updates.size() == 3);
  }
  SECTION("an error of eagle's keeps its class") {
    ParameterServerTraining ps({"/CPU:0", {"/CPU:0"}});
    LinearRegression model(ps);
    eagle::optimizers::SGD sgd;
    auto mismatched = [&](const WorkerContext& ctx) {
      return eagle::matmul(ctx.value(model.w), eagle::ones({2, 2}));
    };
    CHECK_THROWS_AS(ps.run(sgd, 3, mismatched), eagle::InvalidArgumentError);
    CHECK_THROWS_WITH(ps.run(sgd, 3, mismatched),
                      Catch::StartsWith("Worker 0 (" + kCpu + "), step 0: ") &&
                          Catch::Contains("Matrix size-incompatible"));
  }
}

TEST_CASE("parameter server: bad input gets typed errors with clear texts") {
  ParameterServerTraining ps({"/CPU:0", {"/GPU:0"}});
  eagle::optimizers::SGD sgd;
  auto constant_loss = [](const WorkerContext&) { return eagle::constant(1.0f); };
  CHECK_THROWS_MATCHES(
      ps.run(sgd, 1, constant_loss), eagle::InvalidArgumentError,
      Catch::Message(
          "ParameterServerTraining.run: no variables to train; make them with create_variable"));
  LinearRegression model(ps);
  CHECK_THROWS_MATCHES(ps.run(sgd, -1, constant_loss), eagle::InvalidArgumentError,
                       Catch::Message("ParameterServerTraining.run: steps_per_worker must be >= "
                                      "0, got -1"));
  CHECK_THROWS_MATCHES(ps.run(sgd, 1, nullptr), eagle::InvalidArgumentError,
                       Catch::Message("ParameterServerTraining.run: no loss function"));
  CHECK(ps.run(sgd, 0, constant_loss).updates.empty());

  CHECK_THROWS_MATCHES(
      ps.run(sgd, 1, [&](const WorkerContext& ctx) { return ctx.value(model.w); }),
      eagle::InvalidArgumentError,
      Catch::Message("Worker 0 (" + kGpu0 +
                     "), step 0: The loss function must return a scalar floating tensor, got "
                     "shape (3, 1) and dtype float32"));
  CHECK_THROWS_MATCHES(
      ps.run(sgd, 1,
             [&](const WorkerContext& ctx) {
               return eagle::reduce_sum(ctx.value(model.w) * eagle::Tensor(model.b));
             }),
      eagle::InvalidArgumentError,
      Catch::Message("Worker 0 (" + kGpu0 +
                     "), step 0: The loss function read variable 'b:0' itself; use "
                     "context.value(variable), the value this step read, so that the gradient "
                     "reaches the variable and its staleness is counted"));
  const Variable foreign(eagle::ones({1}), {"foreign"});
  CHECK_THROWS_MATCHES(
      ps.run(sgd, 1,
             [&](const WorkerContext& ctx) { return eagle::reduce_sum(ctx.value(foreign)); }),
      eagle::InvalidArgumentError,
      Catch::Message("Worker 0 (" + kGpu0 +
                     "), step 0: Variable 'foreign:0' is not one of this "
                     "ParameterServerTraining's variables (make it with create_variable)"));
  CHECK_THROWS_MATCHES(ps.run(sgd, 1, constant_loss), eagle::InvalidArgumentError,
                       Catch::Message("Worker 0 (" + kGpu0 +
                                      "), step 0: No gradients provided for any variable: "
                                      "['w:0', 'b:0']."));
  CHECK_THROWS_MATCHES(
      ps.run(sgd, 1,
             [&](const WorkerContext& ctx) {
               ps.run(sgd, 1, constant_loss);
               return model.loss(ctx);
             }),
      eagle::FailedPreconditionError,
      Catch::Message("Worker 0 (" + kGpu0 +
                     "), step 0: ParameterServerTraining.run: another run() of this object is in "
                     "progress"));
  CHECK_THROWS_MATCHES(ps.run(sgd, 1,
                              [&](const WorkerContext& ctx) {
                                ps.create_variable(eagle::ones({1}));
                                return model.loss(ctx);
                              }),
                       eagle::FailedPreconditionError,
                       Catch::Message("Worker 0 (" + kGpu0 +
                                      "), step 0: ParameterServerTraining: variables cannot be "
                                      "created while run() is in progress"));
  CHECK(ps.version() == 0);  // no failed step changed anything

  CHECK_THROWS_MATCHES(
      ParameterServerTraining({"/CPU:0", {"/GPU:0", "/GPU:7"}}), eagle::InvalidArgumentError,
      Catch::Message("ParameterServerTraining: the worker device '/GPU:7' matches no device of "
                     "this process; its devices are " +
                     kCpu + ", " + kGpu0 + ", " + kGpu1));
  CHECK_THROWS_AS(ParameterServerTraining({"/GPU:2"}), eagle::InvalidArgumentError);
  CHECK_THROWS_WITH(ParameterServerTraining({"/GPU:2"}),
                    Catch::StartsWith("ParameterServerTraining: the parameter device '/GPU:2' "
                                      "matches no device of this process"));
  CHECK_THROWS_MATCHES(ParameterServerTraining({"/CPU:0", {"/TPU:0"}}), eagle::InvalidArgumentError,
                       Catch::Message("Malformed device specification '/TPU:0'"));
}
