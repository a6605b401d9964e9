// GradientTape (docs/guide.md, "Training: variables and gradient tapes"): what is recorded,
// TensorFlow's rules and texts, where backward ops run, what the tape holds, threads; and the
// gradient registry against the op table.
#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

#include "autodiff/gradient_registry.hpp"
#include "autodiff/tape.hpp"
#include "captured_log.hpp"
#include "eagle/eagle.hpp"
#include "opdefs/op_defs.hpp"

namespace opdefs = eagle::opdefs;

namespace {

using eagle::GradientTape;
using eagle::Tensor;
using eagle::opdefs::Gradient;
using eagle::opdefs::kNumOps;
using eagle::opdefs::op_def;
using eagle::opdefs::OpId;

std::vector<float> values(const std::optional<Tensor>& t) {
  REQUIRE(t.has_value());
  return t->to_vector<float>();
}

}  // namespace

TEST_CASE("every differentiable op has a gradient and no other op has one") {
  const auto& registry = eagle::autodiff::gradient_registry();
  std::string missing;
  std::string extra;
  for (int o = 0; o < opdefs::kNumOps; ++o) {
    const auto op = static_cast<opdefs::OpId>(o);
    const bool has = registry[op].fn != nullptr;
    const bool differentiable = opdefs::op_def(op).gradient == opdefs::Gradient::kDifferentiable;
    if (differentiable && !has) missing += std::string(opdefs::op_def(op).name) + " ";
    if (!differentiable && has) extra += std::string(opdefs::op_def(op).name) + " ";
  }
  CHECK(missing == "");
  CHECK(extra == "");
}

TEST_CASE("gradient of a scalar function, TensorFlow's example") {
  const Tensor x = eagle::constant(3.0f);
  GradientTape tape;
  tape.watch(x);
  const Tensor y = x * x;
  const auto dy_dx = tape.gradient(y, {x});
  CHECK(dy_dx[0]->item<float>() == 6.0f);
}

TEST_CASE("several targets and non-scalar targets differentiate the sum") {
  const Tensor x = eagle::constant({1.0f, 2.0f});
  GradientTape tape({true});
  tape.watch(x);
  const Tensor y0 = x * x;          // d/dx: 2x
  const Tensor y1 = eagle::exp(x);  // d/dx: e^x
  const auto g = tape.gradient({y0, y1}, {x});
  const auto v = values(g[0]);
  CHECK(v[0] == Approx(2 + std::exp(1.0f)));
  CHECK(v[1] == Approx(4 + std::exp(2.0f)));
  // output_gradients weigh each target.
  const auto w = tape.gradient(y0, {x}, {{eagle::constant({10.0f, 100.0f})}});
  CHECK(values(w[0]) == std::vector<float>{20.0f, 400.0f});
}

TEST_CASE("a non-persistent tape gives one set of gradients, then TensorFlow's RuntimeError") {
  const Tensor x = eagle::constant(2.0f);
  GradientTape tape;
  tape.watch(x);
  const Tensor y = x * x;
  (void)tape.gradient(y, {x});
  CHECK_THROWS_MATCHES(tape.gradient(y, {x}), eagle::RuntimeError,
                       Catch::Message("A non-persistent GradientTape can only be used to compute "
                                      "one set of gradients (or jacobians)"));
}

TEST_CASE("unconnected and integer sources give nullopt, or zeros when asked") {
  const Tensor x = eagle::constant({1.0f, 2.0f});
  const Tensor unused = eagle::constant({5.0f, 6.0f, 7.0f});
  const Tensor i = eagle::constant({1, 2});
  GradientTape tape({true});
  tape.watch({x, unused});
  const Tensor y = eagle::reduce_sum(x * 3.0f);
  auto g = tape.gradient(y, {x, unused, i});
  CHECK(values(g[0]) == std::vector<float>{3.0f, 3.0f});
  CHECK_FALSE(g[1].has_value());
  CHECK_FALSE(g[2].has_value());
  g = tape.gradient(y, {unused}, {{}, eagle::UnconnectedGradients::kZero});
  CHECK(values(g[0]) == std::vector<float>{0.0f, 0.0f, 0.0f});
}

TEST_CASE("only watched inputs are recorded, and stop_recording pauses") {
  const Tensor x = eagle::constant(2.0f);
  const Tensor c = eagle::constant(5.0f);
  GradientTape tape({true});
  tape.watch(x);
  Tensor y = x * c;
  {
    auto pause = tape.stop_recording();
    y = y * x;  // not recorded: y's gradient below is that of x * c alone
  }
  CHECK(tape.gradient(y, {x})[0].has_value() == false);  // y now comes from an unrecorded op
  const Tensor z = x * c;
  CHECK(tape.gradient(z, {x, c})[0]->item<float>() == 5.0f);
  CHECK_FALSE(tape.gradient(z, {x, c})[1].has_value());  // c was never watched
}

TEST_CASE("reset forgets what was recorded") {
  const Tensor x = eagle::constant(2.0f);
  GradientTape tape;
  tape.watch(x);
  Tensor y = x * x;
  tape.reset();
  tape.watch(x);
  y = x * 7.0f;
  CHECK(tape.gradient(y, {x})[0]->item<float>() == 7.0f);
}

TEST_CASE("nested tapes give second derivatives") {
  const Tensor x = eagle::constant(3.0f);
  GradientTape outer;
  outer.watch(x);
  Tensor dy_dx;
  {
    GradientTape inner;
    inner.watch(x);
    const Tensor y = x * x * x;
    dy_dx = *inner.gradient(y, {x})[0];  // 3x^2 = 27
  }
  CHECK(dy_dx.item<float>() == 27.0f);
  CHECK(outer.gradient(dy_dx, {x})[0]->item<float>() == 18.0f);  // 6x
}

TEST_CASE("TensorFlow's rules at ties and edges") {
  GradientTape tape({true});
  const Tensor a = eagle::constant({1.0f, 2.0f, 3.0f});
  const Tensor b = eagle::constant({1.0f, 5.0f, 0.0f});
  tape.watch({a, b});
  // Maximum and minimum: the tie goes to the first input.
  auto g = tape.gradient(eagle::maximum(a, b), {a, b});
  CHECK(values(g[0]) == std::vector<float>{1, 0, 1});
  CHECK(values(g[1]) == std::vector<float>{0, 1, 0});
  g = tape.gradient(eagle::minimum(a, b), {a, b});
  CHECK(values(g[0]) == std::vector<float>{1, 1, 0});
  CHECK(values(g[1]) == std::vector<float>{0, 0, 1});
  // reduce_max splits among equal maxima.
  const Tensor m = eagle::constant({4.0f, 1.0f, 4.0f});
  tape.watch(m);
  CHECK(values(tape.gradient(eagle::reduce_max(m), {m})[0]) == std::vector<float>{0.5f, 0, 0.5f});
  // relu has gradient 0 at 0; abs has sign(x).
  const Tensor z = eagle::constant({-1.0f, 0.0f, 2.0f});
  tape.watch(z);
  CHECK(values(tape.gradient(eagle::relu(z), {z})[0]) == std::vector<float>{0, 0, 1});
  CHECK(values(tape.gradient(eagle::abs(z), {z})[0]) == std::vector<float>{-1, 0, 1});
  // Broadcasting sums over the broadcast axes.
  const Tensor row = eagle::constant({1.0f, 1.0f, 1.0f});
  const Tensor mat = eagle::ones({4, 3});
  tape.watch(row);
  CHECK(values(tape.gradient(mat * row, {row})[0]) == std::vector<float>{4, 4, 4});
}

TEST_CASE("cast passes the gradient between floating types, none to or from integers") {
  const Tensor x = eagle::constant({1.5, -2.0}, eagle::kFloat64);
  GradientTape tape({true});
  tape.watch(x);
  const Tensor y = eagle::cast(x, eagle::kFloat32) * eagle::constant({3.0f, 4.0f});
  const auto g = tape.gradient(y, {x});
  REQUIRE(g[0]->dtype() == eagle::kFloat64);
  CHECK(g[0]->to_vector<double>() == std::vector<double>{3.0, 4.0});
  const Tensor through_int = eagle::cast(eagle::cast(x, eagle::kInt32), eagle::kFloat64);
  CHECK_FALSE(tape.gradient(through_int, {x})[0].has_value());
}

TEST_CASE("argmax and comparisons have no gradient") {
  const Tensor x = eagle::constant({1.0f, 3.0f});
  GradientTape tape({true});
  tape.watch(x);
  const Tensor i = eagle::argmax(x, 0);
  CHECK_FALSE(tape.gradient(eagle::cast(i, eagle::kFloat32), {x})[0].has_value());
  CHECK_FALSE(tape.gradient(eagle::cast(x > 2.0f, eagle::kFloat32), {x})[0].has_value());
}

TEST_CASE("jacobian of a vector target") {
  const Tensor x = eagle::constant({1.0f, 2.0f});
  GradientTape tape;
  tape.watch(x);
  const Tensor y = x * x;  // jacobian diag(2x)
  const auto j = tape.jacobian(y, {x});
  REQUIRE(j[0]->shape() == eagle::Shape{2, 2});
  CHECK(values(j[0]) == std::vector<float>{2, 0, 0, 4});
}

TEST_CASE("watching an integer tensor warns, TensorFlow's text") {
  eagle_test::CapturedLog log(false);
  GradientTape tape;
  tape.watch(eagle::constant({1, 2}));
  const auto lines = log.take();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] ==
        "The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.int32");
}

TEST_CASE("the integer-watch warning is printed at most 5 times per process") {
  eagle_test::CapturedLog log(false);
  GradientTape tape;
  for (int i = 0; i < 7; ++i) tape.watch(eagle::constant({i, i + 1}));
  const auto lines = log.take();
  // 5 under ctest (one process per test case); fewer when an earlier case in this process warned.
  CHECK_FALSE(lines.empty());
  CHECK(lines.size() <= 5);
  for (const auto& line : lines) {
    CHECK(line ==
          "The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.int32");
  }
  tape.watch(eagle::constant({1, 2}));
  CHECK(log.take().empty());
}

TEST_CASE("each backward op runs on its forward op's device, under TensorFlow's grad op name") {
  const Tensor x = eagle::constant({-1.0f, 2.0f});
  GradientTape tape;
  tape.watch(x);
  Tensor y;
  {
    auto gpu = eagle::device("/GPU:1");
    y = eagle::relu(x);
  }
  eagle_test::CapturedLog log;
  auto cpu = eagle::device("/CPU:0");  // the caller's scope does not move the backward op
  const auto g = tape.gradient(y, {x});
  CHECK(values(g[0]) == std::vector<float>{0, 1});
  bool relu_grad_on_gpu1 = false;
  const auto lines = log.take();
  for (const std::string& line : lines) {
    if (line == "Executing op ReluGrad in device /job:localhost/replica:0/task:0/device:GPU:1") {
      relu_grad_on_gpu1 = true;
    }
  }
  INFO(fmt::format("{}", fmt::join(lines, "\n")));
  CHECK(relu_grad_on_gpu1);
}

TEST_CASE("a non-persistent tape releases what it saved when gradient returns") {
  auto gpu = eagle::device("/GPU:0");
  const auto in_use = [] { return eagle::config::get_memory_info("GPU:0").current; };
  const Tensor x = eagle::random_normal({256, 256}, 0, 1, eagle::kFloat32, 7);
  const auto before = in_use();
  std::optional<Tensor> g;
  {
    GradientTape tape;
    tape.watch(x);
    Tensor h = x;
    for (int i = 0; i < 4; ++i) h = eagle::tanh(h) * x;  // saves activations
    const Tensor loss = eagle::reduce_sum(h);
    h = Tensor();
    CHECK(in_use() > before);
    g = tape.gradient(loss, {x})[0];
    // The loss itself and the gradient are all that remain, the tape still alive.
    CHECK(in_use() <= before + 256 * 256 * 4 + 4096);
  }
  CHECK(g.has_value());
}

TEST_CASE("after gradient on a non-persistent tape the allocator is back where it started") {
  auto gpu = eagle::device("/GPU:0");
  const auto in_use = [] { return eagle::config::get_memory_info("GPU:0").current; };
  const Tensor x = eagle::random_normal({64, 64}, 0, 1, eagle::kFloat32, 11);
  const Tensor ids = eagle::constant({3, 0, 3, 63});
  const auto before = in_use();
  GradientTape tape;
  tape.watch(x);
  {
    Tensor h = eagle::gather(x, ids);  // a gather, a matmul and activations: saved tensors
    h = eagle::matmul(h, x, false, true);
    const Tensor loss = eagle::reduce_sum(eagle::sigmoid(h) * eagle::tanh(h));
    CHECK(in_use() > before);
    const auto g = tape.gradient(loss, {x});
    REQUIRE(g[0].has_value());
  }
  // The tape is still alive but holds nothing: every byte the forward and backward passes
  // allocated is free once their results are gone.
  CHECK(in_use() == before);
}

TEST_CASE("a source given twice gets its gradient at each place, as in TensorFlow") {
  const Tensor x = eagle::constant({1.0f, 2.0f});
  eagle::Variable v(eagle::constant({3.0f}), {"v"});
  GradientTape tape;
  tape.watch(x);
  const Tensor y = eagle::reduce_sum(x * x) * v;
  const auto g = tape.gradient(y, {x, v, x, v});
  REQUIRE(g.size() == 4u);
  CHECK(values(g[0]) == std::vector<float>{6, 12});
  CHECK(values(g[2]) == std::vector<float>{6, 12});
  CHECK(values(g[1]) == std::vector<float>{5});
  CHECK(values(g[3]) == std::vector<float>{5});
}

TEST_CASE("a target the tape did not record gives nullopt, or zeros when asked") {
  const Tensor x = eagle::constant({1.0f, 2.0f});
  const Tensor unrelated = eagle::constant(3.0f);
  eagle::GradientTapeOptions options;
  options.persistent = true;
  GradientTape tape(options);
  tape.watch(x);
  const Tensor y = x * x;
  CHECK_FALSE(tape.gradient(unrelated, {x})[0].has_value());
  eagle::GradientOptions zero;
  zero.unconnected = eagle::UnconnectedGradients::kZero;
  CHECK(values(tape.gradient(unrelated, {x}, zero)[0]) == std::vector<float>{0, 0});
  CHECK(values(tape.gradient(y, {x})[0]) == std::vector<float>{2, 4});
}

TEST_CASE("tapes on eight threads record only their own ops") {
  std::vector<std::thread> threads;
  std::vector<float> results(8, 0.0f);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &results] {
      const Tensor x = eagle::constant(static_cast<float>(t));
      GradientTape tape;
      tape.watch(x);
      Tensor y = x;
      for (int i = 0; i < 50; ++i) y = y + x;  // dy/dx = 51
      results[static_cast<std::size_t>(t)] = tape.gradient(y, {x})[0]->item<float>();
    });
  }
  for (auto& th : threads) th.join();
  for (float r : results) CHECK(r == 51.0f);
}

TEST_CASE("the gradient of einsum with a repeated label in one operand is UnimplementedError") {
  const Tensor m = eagle::constant({{1.0f, 2.0f}, {3.0f, 4.0f}});
  GradientTape tape;
  tape.watch(m);
  const Tensor trace = eagle::einsum("ii->", {m});
  CHECK(trace.item<float>() == 5.0f);
  CHECK_THROWS_MATCHES(tape.gradient(trace, {m}), eagle::UnimplementedError,
                       Catch::Message("The gradient of Einsum with a label repeated within one "
                                      "operand ('ii->') is not implemented [Op:Einsum]"));
}

TEST_CASE("the tape's id set: inserts, lookups and growth") {
  eagle::autodiff::IdSet set;
  CHECK_FALSE(set.contains(7));
  for (std::uint64_t id = 1; id <= 10000; ++id) CHECK(set.insert(id * 4099));
  CHECK_FALSE(set.insert(4099));
  for (std::uint64_t id = 1; id <= 10000; ++id) REQUIRE(set.contains(id * 4099));
  CHECK_FALSE(set.contains(4098));
  set.clear();
  CHECK_FALSE(set.contains(4099));
}
