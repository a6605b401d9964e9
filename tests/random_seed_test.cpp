// The global random seed (Note [Global and op seeds]): tf.random.set_seed's four cases for random
// ops, initializers, Dropout, Dataset::shuffle and fit's shuffling, keras.utils.set_random_seed,
// and the sequence taken by many threads at once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "eagle/eagle.hpp"

namespace {

using eagle::Tensor;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;
namespace random = eagle::random;

std::vector<float> draw(std::optional<std::uint64_t> op_seed = std::nullopt) {
  return eagle::random_uniform({6}, 0, 1, eagle::kFloat32, op_seed).to_vector<float>();
}

std::vector<std::int32_t> order(const eagle::data::Dataset& ds) {
  std::vector<std::int32_t> out;
  for (const eagle::data::Element& e : ds) out.push_back(e[0].item<std::int32_t>());
  return out;
}

// Dense(8, relu) -> Dropout(0.5) -> Dense(3, softmax), unseeded everywhere, trained 2 epochs of
// shuffled batches: every random draw Keras makes.
struct Trained {
  std::vector<std::vector<float>> initial, final;
  std::vector<double> loss;
};

Trained train_unseeded() {
  keras::backend::clear_session();
  layers::DenseOptions first;
  first.input_shape = keras::TensorShape{4};
  keras::Sequential model({std::make_shared<layers::Dense>(8, "relu", first),
                           std::make_shared<layers::Dropout>(0.5),
                           std::make_shared<layers::Dense>(3, "softmax")});
  model.compile("sgd", "sparse_categorical_crossentropy");
  Trained t;
  for (const Tensor& w : model.get_weights()) t.initial.push_back(w.to_vector<float>());
  const Tensor x = eagle::random_normal({20, 4}, 0, 1, eagle::kFloat32, 11);
  const Tensor y = eagle::random_uniform({20}, 0, 3, eagle::kInt32, 12);
  keras::FitOptions options;
  options.batch_size = 4;
  options.epochs = 2;
  options.verbose = 0;
  t.loss = model.fit(x, y, options).history.at("loss");
  for (const Tensor& w : model.get_weights()) t.final.push_back(w.to_vector<float>());
  return t;
}

TEST_CASE("global seed alone: unseeded draws repeat from set_seed on, and differ from each other") {
  random::set_seed(5);
  CHECK(random::global_seed() == std::optional<std::uint64_t>{5});
  const std::vector<float> a = draw();
  const std::vector<float> b = draw();
  CHECK(a != b);
  random::set_seed(5);
  CHECK(draw() == a);
  CHECK(draw() == b);
  random::set_seed(6);
  CHECK(draw() != a);
  // Every random op takes the same sequence: after one uniform draw, the normal one is the
  // sequence's second seed.
  random::set_seed(5);
  draw();
  const std::vector<float> normal = eagle::random_normal({6}).to_vector<float>();
  random::set_seed(5);
  draw();
  CHECK(eagle::random_normal({6}).to_vector<float>() == normal);
}

TEST_CASE("op seed alone: that seed. With a global one: both (the default one is neutral)") {
  random::set_seed(std::nullopt);
  CHECK(random::global_seed() == std::nullopt);
  CHECK(random::get_seed(42) == 42);
  const std::vector<float> seeded = draw(42);
  CHECK(draw(42) == seeded);
  // TensorFlow's op seed without a global seed is the pair (DEFAULT_GRAPH_SEED, op seed).
  random::set_seed(random::kDefaultGlobalSeed);
  CHECK(random::get_seed(42) == 42);
  CHECK(draw(42) == seeded);
  // Another global seed changes seeded draws too, the same way at every call.
  random::set_seed(1);
  const std::vector<float> both = draw(42);
  CHECK(both != seeded);
  CHECK(draw(42) == both);
  CHECK(random::get_seed(42) == random::get_seed(42));
  CHECK(random::get_seed(42) != random::get_seed(43));
  random::set_seed(2);
  CHECK(draw(42) != both);
}

TEST_CASE("neither seed: every draw is new") {
  random::set_seed(std::nullopt);
  const std::vector<float> a = draw();
  CHECK(draw() != a);
  CHECK(random::get_seed(std::nullopt) != random::get_seed(std::nullopt));
  // An unseeded draw does not advance a global seed's sequence set afterwards.
  random::set_seed(9);
  const std::vector<float> first = draw();
  random::set_seed(std::nullopt);
  draw();
  random::set_seed(9);
  CHECK(draw() == first);
}

TEST_CASE("initializers and Dataset::shuffle without seeds repeat after set_seed") {
  const auto glorot = eagle::initializers::glorot_uniform();
  const eagle::data::Dataset ds = eagle::data::Dataset::from_tensor_slices({eagle::range(50)});
  random::set_seed(3);
  const std::vector<float> kernel = glorot({5, 4}, eagle::kFloat32).to_vector<float>();
  const eagle::data::Dataset shuffled = ds.shuffle(50);
  const std::vector<std::int32_t> first = order(shuffled);
  const std::vector<std::int32_t> second = order(shuffled);
  CHECK(first != second);  // reshuffled each iteration, from the dataset's one seed
  random::set_seed(3);
  CHECK(glorot({5, 4}, eagle::kFloat32).to_vector<float>() == kernel);
  const eagle::data::Dataset again = ds.shuffle(50);
  CHECK(order(again) == first);
  CHECK(order(again) == second);
  random::set_seed(4);
  CHECK(glorot({5, 4}, eagle::kFloat32).to_vector<float>() != kernel);
  CHECK(order(ds.shuffle(50)) != first);
}

TEST_CASE("keras.utils.set_random_seed: a whole unseeded fit repeats, another seed differs") {
  keras::utils::set_random_seed(7);
  CHECK(random::global_seed() == std::optional<std::uint64_t>{7});
  const Trained one = train_unseeded();
  keras::utils::set_random_seed(7);
  const Trained two = train_unseeded();
  CHECK(two.initial == one.initial);
  CHECK(two.loss == one.loss);
  CHECK(two.final == one.final);
  REQUIRE(one.loss.size() == 2);
  keras::utils::set_random_seed(8);
  const Trained other = train_unseeded();
  CHECK(other.initial != one.initial);
  CHECK(other.final != one.final);
}

TEST_CASE("many threads take the global seed's sequence: each seed once, the same set") {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 200;
  random::set_seed(11);
  std::set<std::uint64_t> sequential;
  for (int i = 0; i < kThreads * kPerThread; ++i) sequential.insert(random::get_seed(std::nullopt));
  REQUIRE(sequential.size() == kThreads * kPerThread);
  random::set_seed(11);
  std::vector<std::vector<std::uint64_t>> taken(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&taken, t] {
      for (int i = 0; i < kPerThread; ++i) taken[t].push_back(random::get_seed(std::nullopt));
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<std::uint64_t> concurrent;
  for (const auto& seeds : taken) concurrent.insert(seeds.begin(), seeds.end());
  CHECK(concurrent == sequential);
}

TEST_CASE("test cases start from the default global seed") {
  // tests/catch_main.cpp sets it before each case, as tf.test.TestCase does.
  CHECK(random::global_seed() == std::optional<std::uint64_t>{random::kDefaultGlobalSeed});
}

}  // namespace
