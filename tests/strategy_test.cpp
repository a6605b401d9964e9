// eagle::distribute::Strategy (Note [One distribution interface]): the default strategy, the
// thread's context (get_strategy, has_strategy, in_cross_replica_context, get_replica_context) as
// TensorFlow answers them, StrategyExtended, and one training loop written against Strategy that
// gives the same weights under the default strategy and a MirroredStrategy. Every TEST_CASE
// configures its devices in its own process (tests/fresh_runtime.hpp).
#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "eagle/eagle.hpp"
#include "fresh_runtime.hpp"
#include "mirrored_components.hpp"

namespace {

using eagle::Tensor;
using eagle::Variable;
using eagle::distribute::MirroredStrategy;
using eagle::distribute::PerReplica;
using eagle::distribute::ReduceOp;
using eagle::distribute::ReplicaContext;
using eagle::distribute::Strategy;

namespace distribute = eagle::distribute;

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
const std::string kGpu1 = "/job:localhost/replica:0/task:0/device:GPU:1";

std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

// fn throws E, its message starting with `prefix`.
template <class E, class Fn>
void check_throws_starting(Fn&& fn, const std::string& prefix) {
  try {
    fn();
    FAIL("no exception; expected one starting with: " << prefix);
  } catch (const E& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith(prefix));
  }
}

// A linear model y = x w + b trained by SGD for `steps` steps on fixed data, written once
// against the Strategy interface: the strategy splits the batch, runs the step on its replicas,
// and the optimizer all-reduces and updates through it.
std::vector<float> train_linear(const Strategy& strategy, int steps) {
  Variable w, b;
  {
    auto scope = strategy.scope();
    w = Variable(eagle::constant({0.5f, -0.25f}, {2, 1}), {"w"});
    b = Variable(eagle::constant({0.1f}, {1}), {"b"});
  }
  eagle::optimizers::SGD sgd({0.05});
  const Tensor x = eagle::constant({1.0f, 2.0f, -1.0f, 0.5f, 3.0f, -2.0f, 0.0f, 1.0f}, {4, 2});
  const Tensor y = eagle::constant({1.0f, -1.0f, 2.0f, 0.5f}, {4, 1});
  const std::int64_t global_batch = 4;
  for (int step = 0; step < steps; ++step) {
    strategy.run(
        [&](const Tensor& xs, const Tensor& ys) {
          eagle::GradientTape tape;
          const Tensor err = eagle::matmul(xs, w) + b - ys;
          const Tensor loss = eagle::nn::compute_average_loss(
              eagle::reduce_sum(err * err, eagle::Axes(1)), global_batch);
          const auto grads = tape.gradient(loss, {w, b});
          sgd.apply_gradients({{grads[0], w}, {grads[1], b}});
        },
        strategy.split_batch(x), strategy.split_batch(y));
  }
  CHECK(sgd.iterations() == steps);
  std::vector<float> out = values(w.read_value());
  out.push_back(values(b.read_value())[0]);
  return out;
}

}  // namespace

TEST_CASE("the default strategy: one replica on the calling thread, as TensorFlow's") {
  EAGLE_FRESH_RUNTIME(nullptr);
  const Strategy& strategy = distribute::get_strategy();
  CHECK_FALSE(distribute::has_strategy());
  CHECK_FALSE(distribute::in_cross_replica_context());
  CHECK(strategy.num_replicas_in_sync() == 1);
  CHECK(strategy.devices() == std::vector<std::string>{kCpu0});
  // Outside every strategy the thread is in the default replica context.
  const ReplicaContext* ctx = distribute::get_replica_context();
  REQUIRE(ctx != nullptr);
  CHECK(&ctx->strategy() == &strategy);
  CHECK(ctx->replica_id_in_sync_group() == 0);
  CHECK(ctx->num_replicas_in_sync() == 1);
  CHECK(ctx->device().empty());
  // all_reduce over one replica is the value; merge_call calls its function.
  const Tensor v = eagle::constant({1.0f, 2.0f});
  CHECK(values(ctx->all_reduce(ReduceOp::kSum, v)) == std::vector<float>{1, 2});
  CHECK(values(ctx->all_reduce(ReduceOp::kMean, v)) == std::vector<float>{1, 2});
  int merged = 0;
  ctx->merge_call([&] { ++merged; });
  CHECK(merged == 1);

  // run: on this thread, in the same context, one result.
  const std::thread::id caller = std::this_thread::get_id();
  const PerReplica<Tensor> out = strategy.run(
      [&](const ReplicaContext& replica, const Tensor& t) {
        CHECK(std::this_thread::get_id() == caller);
        CHECK(distribute::get_replica_context() == &replica);
        CHECK(replica.replica_id_in_sync_group() == 0);
        return t * 2.0f;
      },
      v);
  REQUIRE(out.size() == 1);
  CHECK(values(out[0]) == std::vector<float>{2, 4});
  CHECK(values(strategy.reduce(ReduceOp::kSum, out)) == std::vector<float>{2, 4});
  CHECK(values(strategy.reduce(ReduceOp::kSum, out, 0)) == std::vector<float>{6});
  CHECK(values(strategy.reduce(ReduceOp::kMean, out, 0)) == std::vector<float>{3});
  const PerReplica<Tensor> split = strategy.split_batch(v);
  REQUIRE(split.size() == 1);
  CHECK(values(split[0]) == std::vector<float>{1, 2});
  CHECK_THROWS_MATCHES(strategy.split_batch(eagle::constant(1.0f)), eagle::InvalidArgumentError,
                       Catch::Message("split_batch: a batch needs a first (batch) dimension; "
                                      "got a scalar"));

  // extended(): update is fn(var); variables are the default strategy's when no strategy
  // distributes them.
  Variable w(eagle::constant({1.0f, 1.0f}), {"w"});
  int calls = 0;
  strategy.extended().update(w, [&](const Variable& target) {
    ++calls;
    target.assign_add(eagle::constant({1.0f, 2.0f}));
  });
  CHECK(calls == 1);
  CHECK(values(w.read_value()) == std::vector<float>{2, 3});
  CHECK(strategy.extended().variable_created_in_scope(w));
  CHECK(strategy.extended().worker_devices() == std::vector<std::string>{kCpu0});
  const auto reduced = strategy.extended().batch_reduce_to(ReduceOp::kSum, {out, split});
  REQUIRE(reduced.size() == 2);
  CHECK(values(reduced[1]) == std::vector<float>{1, 2});
  {
    // The default strategy's scope changes nothing.
    auto scope = strategy.scope();
    CHECK_FALSE(distribute::has_strategy());
    CHECK(distribute::get_replica_context() == ctx);
    CHECK_FALSE(Variable(eagle::constant(1.0f)).is_mirrored());
  }
  {
    auto colocated = strategy.extended().colocate_vars_with(w);
    CHECK(Variable(eagle::constant(1.0f)).device() == w.device());
  }
}

TEST_CASE("a MirroredStrategy's scope is the cross-replica context, its run the replica context") {
  EAGLE_FRESH_RUNTIME("2");
  const MirroredStrategy strategy;
  const Strategy& base = strategy;
  CHECK(&distribute::get_strategy() != &base);
  {
    auto scope = strategy.scope();
    CHECK(&distribute::get_strategy() == &base);
    CHECK(distribute::has_strategy());
    CHECK(distribute::in_cross_replica_context());
    CHECK(distribute::get_replica_context() == nullptr);
    {
      // The innermost scope wins; the default strategy's opens nothing.
      auto inner = distribute::get_strategy().scope();
      CHECK(&distribute::get_strategy() == &base);
    }
  }
  CHECK_FALSE(distribute::has_strategy());
  CHECK_FALSE(distribute::in_cross_replica_context());
  REQUIRE(distribute::get_replica_context() != nullptr);
  CHECK(distribute::get_replica_context()->num_replicas_in_sync() == 1);

  std::atomic<int> wrong{0};
  strategy.run([&](const ReplicaContext& ctx) {
    // In a replica function: the replica context, whatever scope the caller had.
    if (&distribute::get_strategy() != &base) ++wrong;
    if (!distribute::has_strategy()) ++wrong;
    if (distribute::in_cross_replica_context()) ++wrong;
    if (distribute::get_replica_context() != &ctx) ++wrong;
    if (&ctx.strategy() != &base) ++wrong;
    if (ctx.local_replica_id() != ctx.replica_id_in_sync_group()) ++wrong;
  });
  CHECK(wrong == 0);
}

TEST_CASE("merge_call runs once per call of every replica, after all of them arrive") {
  EAGLE_FRESH_RUNTIME("3");
  const MirroredStrategy strategy;
  std::atomic<int> merged{0};
  std::atomic<int> early{0};
  std::atomic<int> arrived{0};
  strategy.run([&](const ReplicaContext& ctx) {
    for (int round = 0; round < 4; ++round) {
      ++arrived;
      ctx.merge_call([&] {
        if (arrived.load() != 3 * (round + 1)) ++early;
        ++merged;
      });
      // No replica leaves before the function ran.
      if (merged.load() != round + 1) ++early;
    }
  });
  CHECK(merged == 4);
  CHECK(early == 0);
}

TEST_CASE("StrategyExtended of a MirroredStrategy: update, variables in scope, batch_reduce_to") {
  EAGLE_FRESH_RUNTIME("2");
  const MirroredStrategy strategy;
  const Strategy& base = strategy;
  Variable mirrored;
  {
    auto scope = strategy.scope();
    mirrored = Variable(eagle::constant({1.0f, 2.0f}), {"m"});
  }
  const Variable plain(eagle::constant({1.0f, 2.0f}), {"p"});
  CHECK(base.extended().variable_created_in_scope(mirrored));
  CHECK_FALSE(base.extended().variable_created_in_scope(plain));
  CHECK_FALSE(distribute::get_strategy().extended().variable_created_in_scope(mirrored));
  CHECK(base.extended().worker_devices() == std::vector<std::string>{kGpu0, kGpu1});

  // The cross-replica context: every component, each under its device's scope.
  std::vector<std::string> devices;
  base.extended().update(mirrored, [&](const Variable& component) {
    devices.push_back(eagle::current_device_spec());
    component.assign_add(eagle::constant({1.0f, 1.0f}));
  });
  CHECK(devices == std::vector<std::string>{kGpu0, kGpu1});
  CHECK(values(mirrored.components()[1].read_value()) == std::vector<float>{2, 3});
  CHECK(eagle_test::components_identical(mirrored));

  // A replica function: its own component.
  const PerReplica<std::string> updated = strategy.run([&](const ReplicaContext&) {
    std::string device;
    base.extended().update(mirrored, [&](const Variable& component) {
      device = component.device();
      component.assign_add(eagle::constant({10.0f, 10.0f}));
    });
    return device;
  });
  CHECK(updated[0] == kGpu0);
  CHECK(updated[1] == kGpu1);
  CHECK(values(mirrored.components()[0].read_value()) == std::vector<float>{12, 13});
  CHECK(eagle_test::components_identical(mirrored));
  // A variable the strategy does not mirror cannot be updated in sync from a replica.
  Variable other_strategy;
  {
    const MirroredStrategy other({"GPU:0", "GPU:1"});
    {
      auto scope = other.scope();
      other_strategy = Variable(eagle::constant(0.0f), {"o"});
    }
    check_throws_starting<eagle::InvalidArgumentError>(
        [&] {
          strategy.run([&](const ReplicaContext&) {
            base.extended().update(other_strategy, [](const Variable&) {});
          });
        },
        "in replica 0 on " + kGpu0 + ": Variable 'o:0' is mirrored by another MirroredStrategy");
  }

  const PerReplica<Tensor> per_replica = strategy.run([](const ReplicaContext& ctx) {
    return eagle::constant(ctx.replica_id_in_sync_group() + 1.0f);
  });
  const auto reduced =
      base.extended().batch_reduce_to(ReduceOp::kMean, {per_replica, per_replica}, kGpu1);
  REQUIRE(reduced.size() == 2);
  CHECK(reduced[0].item<float>() == 1.5f);
  CHECK(reduced[1].device() == kGpu1);
}

TEST_CASE("one training loop against Strategy: the default strategy and a MirroredStrategy agree") {
  EAGLE_FRESH_RUNTIME("2");
  const std::vector<float> alone = train_linear(distribute::get_strategy(), 5);
  const MirroredStrategy strategy;
  const std::vector<float> mirrored = train_linear(strategy, 5);
  REQUIRE(alone.size() == mirrored.size());
  for (std::size_t i = 0; i < alone.size(); ++i) {
    CHECK(mirrored[i] == Approx(alone[i]).epsilon(1e-6));
  }
  // The loop did train: the weights moved from their start.
  CHECK(alone[0] != 0.5f);
}

TEST_CASE("variable_creator_scope: creators run innermost first, then the plain creation") {
  EAGLE_FRESH_RUNTIME(nullptr);
  std::vector<std::string> order;
  const auto prefixing = [&order](std::string prefix) {
    return [&order, prefix](const eagle::NextVariableCreator& next, const Tensor& init,
                            const eagle::VariableOptions& options) {
      order.push_back(prefix);
      eagle::VariableOptions renamed = options;
      renamed.name = prefix + "/" + options.name;
      return next(init, renamed);
    };
  };
  {
    auto outer = eagle::variable_creator_scope(prefixing("outer"));
    {
      auto inner = eagle::variable_creator_scope(prefixing("inner"));
      const Variable v(eagle::constant(1.0f), {"v"});
      CHECK(v.name() == "outer/inner/v:0");
      CHECK(order == std::vector<std::string>{"inner", "outer"});
    }
    CHECK(Variable(eagle::constant(1.0f), {"w"}).name() == "outer/w:0");
  }
  CHECK(Variable(eagle::constant(1.0f), {"x"}).name() == "x:0");
  CHECK_THROWS_MATCHES(eagle::variable_creator_scope(eagle::VariableCreator()),
                       eagle::InvalidArgumentError,
                       Catch::Message("variable_creator_scope: the creator is empty"));
}

TEST_CASE("variables created in a replica function are mirrored and shared by the replicas") {
  EAGLE_FRESH_RUNTIME("2");
  const MirroredStrategy strategy;
  // TensorFlow's rule: a variable the replica function creates is the strategy's, one variable
  // for every replica (eagle: made by the first replica to get there).
  const PerReplica<Variable> created = strategy.run([](const ReplicaContext& ctx) {
    return Variable(eagle::fill({2}, ctx.replica_id_in_sync_group() + 1.0, eagle::kFloat32),
                    {"made_in_replica"});
  });
  REQUIRE(created.size() == 2);
  CHECK(created[0].is_mirrored());
  CHECK(created[0].id() == created[1].id());  // outside a replica: component 0 of one variable
  CHECK(created[0].components().size() == 2);
  CHECK(created[0].components()[1].device() == kGpu1);
  CHECK(created[0].components()[1].name() == "made_in_replica/replica_1:0");
  CHECK(eagle_test::components_identical(created[0]));
  const float start = created[0].read_value().to_vector<float>()[0];
  CHECK((start == 1.0f || start == 2.0f));
  // Two variables of one name in one function are two variables.
  const PerReplica<std::vector<Variable>> pairs = strategy.run([](const ReplicaContext&) {
    return std::vector<Variable>{Variable(eagle::constant(1.0f)), Variable(eagle::constant(2.0f))};
  });
  CHECK(pairs[0][0].id() == pairs[1][0].id());
  CHECK(pairs[0][1].id() == pairs[1][1].id());
  CHECK(pairs[0][0].id() != pairs[0][1].id());
  CHECK(pairs[0][1].read_value().item<float>() == 2.0f);
}

TEST_CASE("assignments in a replica function combine by the variable's aggregation") {
  EAGLE_FRESH_RUNTIME("2");
  const MirroredStrategy strategy;
  using eagle::VariableAggregation;
  Variable none, sum, mean, first;
  {
    auto scope = strategy.scope();
    none = Variable(eagle::constant(0.0f), {"none"});
    sum = Variable(eagle::constant(0.0f),
                   {"sum", true, eagle::VariableSynchronization::kAuto, VariableAggregation::kSum});
    mean = Variable(eagle::constant(0.0f), {"mean", true, eagle::VariableSynchronization::kAuto,
                                            VariableAggregation::kMean});
    first = Variable(eagle::constant(0.0f), {"first", true, eagle::VariableSynchronization::kAuto,
                                             VariableAggregation::kOnlyFirstReplica});
  }
  CHECK(mean.aggregation() == VariableAggregation::kMean);
  CHECK(none.aggregation() == VariableAggregation::kNone);
  strategy.run([&](const ReplicaContext& ctx) {
    const float r = static_cast<float>(ctx.replica_id_in_sync_group());
    sum.assign_add(eagle::constant(r + 1.0f));         // 1 + 2
    mean.assign(eagle::constant(10.0f * (r + 1.0f)));  // (10 + 20) / 2
    first.assign(eagle::constant(5.0f + r));           // replica 0's 5
  });
  for (const Variable& v : {sum, mean, first}) CHECK(eagle_test::components_identical(v));
  CHECK(sum.read_value().item<float>() == 3.0f);
  CHECK(mean.read_value().item<float>() == 15.0f);
  CHECK(first.read_value().item<float>() == 5.0f);
  // kNone: TensorFlow's error, and nothing changes.
  check_throws_starting<eagle::InvalidArgumentError>(
      [&] { strategy.run([&](const ReplicaContext&) { none.assign(eagle::constant(1.0f)); }); },
      "in replica 0 on " + kGpu0 +
          ": You must specify an aggregation method to update a MirroredVariable in Replica "
          "Context: variable 'none:0' is mirrored, and AssignVariableOp in replica 0 alone would "
          "make its components differ");
  CHECK(none.read_value().item<float>() == 0.0f);
  // Outside the replicas an assignment writes every component, whatever the aggregation.
  mean.assign(eagle::constant(-1.0f));
  CHECK(mean.components()[1].read_value().item<float>() == -1.0f);
}

TEST_CASE("keras metrics updated from every replica at once lose no update") {
  EAGLE_FRESH_RUNTIME("4");
  namespace metrics = eagle::keras::metrics;
  const MirroredStrategy strategy;
  metrics::Mean mean("loss");
  metrics::SparseCategoricalAccuracy accuracy;
  strategy.run([&](const ReplicaContext& ctx) {
    const bool first = ctx.replica_id_in_sync_group() == 0;
    const Tensor labels = eagle::constant({0, 1});
    // Replica 0 predicts both labels, the others the first only.
    const Tensor predictions = first ? eagle::constant({0.9f, 0.1f, 0.2f, 0.8f}, {2, 2})
                                     : eagle::constant({0.9f, 0.1f, 0.9f, 0.1f}, {2, 2});
    for (int i = 0; i < 200; ++i) {
      mean.update_state(first ? 1.0 : 0.0);
      accuracy.update_state(labels, predictions);
    }
  });
  // 200 ones in 800 values; 200 * 2 + 600 * 1 right of 1600.
  CHECK(mean.result() == 0.25);
  CHECK(accuracy.result() == 0.625);
  mean.reset_states();
  CHECK(mean.result() == 0.0);
  // Plain threads sharing the default strategy's slot: still exact.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&mean, t] {
      for (int i = 0; i < 1000; ++i) mean.update_state(t % 2 == 0 ? 1.0 : 0.0, 2.0);
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(mean.result() == 0.5);
}
