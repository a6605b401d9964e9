// eagle::Variable (docs/guide.md, "Training: variables and gradient tapes"): placement and
// pinning, the log, updates and their errors, printing, values read staying what they were,
// threads, and tapes watching variables.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "captured_log.hpp"
#include "eagle/eagle.hpp"

namespace {

using eagle::Tensor;
using eagle::Variable;

const std::string kCpu = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
const std::string kGpu1 = "/job:localhost/replica:0/task:0/device:GPU:1";

}  // namespace

TEST_CASE("a variable is created where its VarHandleOp is placed, and stays there") {
  eagle_test::CapturedLog log;
  Variable v(eagle::constant({1.0f, 2.0f}), {"w"});
  CHECK(v.device() == kGpu0);  // the GPU first, as any op
  CHECK(log.take() == std::vector<std::string>{"Executing op VarHandleOp in device " + kGpu0,
                                               "Executing op AssignVariableOp in device " + kGpu0});
  auto cpu = eagle::device("/CPU:0");
  const Tensor y = v * 2.0f;  // the read is pinned to GPU:0, the Mul follows the scope
  CHECK(log.take() == std::vector<std::string>{"Executing op ReadVariableOp in device " + kGpu0,
                                               "Executing op Mul in device " + kCpu});
  v.assign_add(eagle::constant({1.0f, 1.0f}));
  CHECK(log.take() ==
        std::vector<std::string>{"Executing op AssignAddVariableOp in device " + kGpu0});
  CHECK(v.read_value().to_vector<float>() == std::vector<float>{2.0f, 3.0f});
  CHECK(y.to_vector<float>() == std::vector<float>{2.0f, 4.0f});
}

TEST_CASE("a variable under a scope lives there, an int32 one on a GPU falls back to the CPU") {
  {
    auto gpu = eagle::device("/GPU:1");
    Variable v(eagle::constant(1.0f));
    CHECK(v.device() == kGpu1);
    Variable a_gpu(eagle::constant(0), {"a_gpu"});  // seed 001 (samples/README.md): on the CPU
    CHECK(a_gpu.device() == kCpu);
    CHECK(a_gpu.name() == "a_gpu:0");
  }
  eagle::config::set_soft_device_placement(false);
  {
    auto gpu = eagle::device("/GPU:0");
    CHECK_THROWS_AS(Variable(eagle::constant(0)), eagle::InvalidArgumentError);
  }
  eagle::config::set_soft_device_placement(true);
}

TEST_CASE("names, defaults and TensorFlow's printed form") {
  auto cpu = eagle::device("/CPU:0");
  Variable v(eagle::constant({1.0f, 2.0f}), {"w"});
  CHECK(eagle::to_string(v) ==
        "<eagle.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>");
  Variable s(eagle::constant(1.0f), {"x"});
  CHECK(eagle::to_string(s) == "<eagle.Variable 'x:0' shape=() dtype=float32, numpy=1.0>");
  Variable i(eagle::constant(0));
  CHECK(i.name() == "Variable:0");
  CHECK(i.trainable());
  CHECK(eagle::to_string(i) == "<eagle.Variable 'Variable:0' shape=() dtype=int32, numpy=0>");
  Variable m(eagle::constant({{1LL, 2LL}, {3LL, 4LL}}));
  CHECK(eagle::to_string(m) ==
        "<eagle.Variable 'Variable:0' shape=(2, 2) dtype=int64, numpy=\narray([[1, 2],\n       [3, "
        "4]])>");
  Variable b(eagle::constant({true, false}));
  CHECK(fmt::format("{}", b) ==
        "<eagle.Variable 'Variable:0' shape=(2,) dtype=bool, numpy=array([ True, False])>");
  std::vector<float> forty(40);
  for (int k = 0; k < 40; ++k) forty[static_cast<std::size_t>(k)] = static_cast<float>(k);
  Variable long_one(eagle::constant(forty));
  CHECK(eagle::to_string(long_one) ==
        "<eagle.Variable 'Variable:0' shape=(40,) dtype=float32, numpy=\n"
        "array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n"
        "       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n"
        "       26., 27., 28., 29., 30., 31., 32., 33., 34., 35., 36., 37., 38.,\n"
        "       39.], dtype=float32)>");
  Variable e(eagle::zeros({2, 0}), {"e"});
  CHECK(eagle::to_string(e) ==
        "<eagle.Variable 'e:0' shape=(2, 0) dtype=float32, numpy=array([], shape=(2, 0), "
        "dtype=float32)>");
}

TEST_CASE("updates with another dtype or shape fail with TensorFlow's texts and change nothing") {
  Variable v(eagle::constant({1.0f, 2.0f}), {"w"});
  CHECK_THROWS_MATCHES(v.assign(eagle::constant({1.0f, 2.0f, 3.0f})), eagle::InvalidArgumentError,
                       Catch::Message("Cannot assign value to variable ' w:0': Shape mismatch.The "
                                      "variable shape (2,), and the assigned value shape (3,) are "
                                      "incompatible."));
  CHECK_THROWS_MATCHES(v.assign_add(eagle::constant({1.0f})), eagle::InvalidArgumentError,
                       Catch::Message("Cannot update variable with shape [2] using a Tensor with "
                                      "shape [1], shapes must be equal. [Op:AssignAddVariableOp]"));
  CHECK_THROWS_MATCHES(v.assign_sub(eagle::constant({1, 2})), eagle::InvalidArgumentError,
                       Catch::Message("Tensor conversion requested dtype float32 for Tensor with "
                                      "dtype int32 (updating variable 'w:0') "
                                      "[Op:AssignSubVariableOp]"));
  CHECK_THROWS_AS(v.assign(Tensor()), eagle::InvalidArgumentError);
  CHECK_THROWS_AS(Variable().read_value(), eagle::InvalidArgumentError);
  CHECK(v.read_value().to_vector<float>() == std::vector<float>{1.0f, 2.0f});
}

TEST_CASE("a value read never changes when the variable is updated afterwards") {
  for (const char* where : {"/CPU:0", "/GPU:0"}) {
    auto scope = eagle::device(where);
    Variable v(eagle::constant({1.0f, 2.0f}));
    const Tensor before = v.read_value();
    const Tensor alias = v;  // a second read, sharing the bytes
    v.assign_add(eagle::constant({10.0f, 10.0f}));
    v.assign(eagle::constant({7.0f, 8.0f}));
    CHECK(before.to_vector<float>() == std::vector<float>{1.0f, 2.0f});
    CHECK(alias.to_vector<float>() == std::vector<float>{1.0f, 2.0f});
    CHECK(v.read_value().to_vector<float>() == std::vector<float>{7.0f, 8.0f});
    v.assign_sub(eagle::constant({1.0f, 1.0f}));
    CHECK(v.read_value().to_vector<float>() == std::vector<float>{6.0f, 7.0f});
  }
}

TEST_CASE("assign_add from 16 threads loses no update") {
  Variable counter(eagle::constant(0.0f));
  Variable ints(eagle::constant(std::int64_t{0}));
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        counter.assign_add(eagle::constant(1.0f));
        ints.assign_add(eagle::constant(std::int64_t{1}));
        (void)counter.read_value();
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(counter.read_value().item<float>() == 1600.0f);
  CHECK(ints.read_value().item<std::int64_t>() == 1600);
}

TEST_CASE("a tape watches trainable variables it sees read") {
  Variable w(eagle::constant({2.0f, 3.0f}), {"w"});
  Variable frozen(eagle::constant({1.0f, 1.0f}), {"frozen", false});
  const Tensor x = eagle::constant({4.0f, 5.0f});
  {
    eagle::GradientTape tape;
    const Tensor loss = eagle::reduce_sum(w * x + frozen);
    const auto g = tape.gradient(loss, {w, frozen});
    CHECK(g[0]->to_vector<float>() == std::vector<float>{4.0f, 5.0f});
    CHECK_FALSE(g[1].has_value());
    CHECK(tape.watched_variables().size() == 1);
  }
  {
    eagle::GradientTape tape({false, false});
    const Tensor loss = eagle::reduce_sum(w * x);
    CHECK_FALSE(tape.gradient(loss, {w})[0].has_value());
  }
  {
    eagle::GradientTape tape({false, false});
    tape.watch(w);
    const Tensor loss = eagle::reduce_sum(w * w);
    CHECK(tape.gradient(loss, {w})[0]->to_vector<float>() == std::vector<float>{4.0f, 6.0f});
  }
}

TEST_CASE("a linear model learns with a tape and plain gradient steps") {
  Variable w(eagle::constant(0.0f), {"w"});
  Variable b(eagle::constant(0.0f), {"b"});
  const Tensor x = eagle::constant({0.0f, 1.0f, 2.0f, 3.0f});
  const Tensor y = x * 3.0f + 2.0f;
  for (int step = 0; step < 500; ++step) {
    eagle::GradientTape tape;
    const Tensor loss = eagle::reduce_mean(eagle::square(x * w + b - y));
    const auto g = tape.gradient(loss, {w, b});
    w.assign_sub(*g[0] * 0.1f);
    b.assign_sub(*g[1] * 0.1f);
  }
  CHECK(w.read_value().item<float>() == Approx(3.0f).epsilon(1e-4));
  CHECK(b.read_value().item<float>() == Approx(2.0f).epsilon(1e-4));
}
