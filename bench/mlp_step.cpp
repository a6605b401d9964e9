// Issue 16's MLP training step: 784-256-256-10 (relu, relu, logits), loss the mean sparse softmax
// cross-entropy, gradients from a GradientTape, Keras's Adam (defaults) applying them. Written as
// a user writes it with the public API (Variables, tape, optimizer; not keras fit), at batch 1,
// 32 and 512. Each repetition is one step on the same batch, so the loss must fall: the program
// checks that it does. Reports the median time per step (bench/training_peers.py has the same
// step in TensorFlow and JAX; bench/training_compare.sh runs them side by side).
//
// Initialization as Keras's Dense: glorot_uniform kernels, zero biases; inputs uniform in [0, 1),
// labels uniform in [0, 10).
#include <cstdint>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "eagle/eagle.hpp"

namespace {

constexpr std::int64_t kInputs = 784;
constexpr std::int64_t kHidden = 256;
constexpr std::int64_t kClasses = 10;

struct Mlp {
  eagle::Variable w1, b1, w2, b2, w3, b3;
  Mlp()
      : w1(eagle::initializers::glorot_uniform(1)({kInputs, kHidden}, eagle::kFloat32),
           {"dense/kernel"}),
        b1(eagle::zeros({kHidden}), {"dense/bias"}),
        w2(eagle::initializers::glorot_uniform(2)({kHidden, kHidden}, eagle::kFloat32),
           {"dense_1/kernel"}),
        b2(eagle::zeros({kHidden}), {"dense_1/bias"}),
        w3(eagle::initializers::glorot_uniform(3)({kHidden, kClasses}, eagle::kFloat32),
           {"dense_2/kernel"}),
        b3(eagle::zeros({kClasses}), {"dense_2/bias"}) {}

  std::vector<eagle::Variable> variables() const { return {w1, b1, w2, b2, w3, b3}; }

  eagle::Tensor logits(const eagle::Tensor& x) const {
    const eagle::Tensor h1 = eagle::relu(eagle::matmul(x, w1) + b1);
    const eagle::Tensor h2 = eagle::relu(eagle::matmul(h1, w2) + b2);
    return eagle::matmul(h2, w3) + b3;
  }
};

// One training step; returns the loss before the update.
float train_step(const Mlp& model, eagle::optimizers::Adam& optimizer, const eagle::Tensor& x,
                 const eagle::Tensor& labels, bool read_loss) {
  eagle::GradientTape tape;
  const eagle::Tensor loss = eagle::reduce_mean(
      eagle::nn::sparse_softmax_cross_entropy_with_logits(labels, model.logits(x)));
  const std::vector<eagle::Variable> vars = model.variables();
  const auto grads =
      tape.gradient(loss, std::vector<eagle::GradientSource>(vars.begin(), vars.end()));
  std::vector<eagle::optimizers::GradientAndVariable> pairs;
  pairs.reserve(vars.size());
  for (std::size_t i = 0; i < vars.size(); ++i) pairs.emplace_back(grads[i], vars[i]);
  optimizer.apply_gradients(pairs);
  return read_loss ? loss.item<float>() : 0.0f;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  const int threads = opt.threads_or_available();
  eagle::config::threading::set_intra_op_parallelism_threads(threads);
  auto cpu = eagle::device("/CPU:0");

  bench::Reporter rep;
  for (const std::int64_t batch : {1LL, 32LL, 512LL}) {
    if (!opt.selected("mlp_step", batch)) continue;
    // Many steps for the small batches (each a fraction of a millisecond), fewer at 512.
    const int reps = batch >= 512 ? opt.reps_or(40, 10) : opt.reps_or(200, 30);
    const int warmup = opt.warmup_or(10, 3);
    const eagle::Tensor x =
        eagle::random_uniform({batch, kInputs}, 0, 1, eagle::kFloat32, 100 + batch);
    const eagle::Tensor labels = eagle::cast(
        eagle::floor(eagle::random_uniform({batch}, 0, kClasses, eagle::kFloat32, 200 + batch)),
        eagle::kInt32);
    Mlp model;
    eagle::optimizers::Adam optimizer;

    const float first_loss = train_step(model, optimizer, x, labels, true);
    const bench::Stats stats =
        bench::measure([&] { train_step(model, optimizer, x, labels, false); }, warmup, reps);
    const float last_loss = train_step(model, optimizer, x, labels, true);
    bench::check(
        std::isfinite(last_loss) && last_loss < first_loss,
        fmt::format("mlp_step/{}: the loss did not fall ({} -> {})", batch, first_loss, last_loss));

    bench::Record r;
    r.set("case", "mlp_step").set("impl", "eagle").set("size", static_cast<long long>(batch));
    r.set(stats).set("threads", threads).set("first_loss", static_cast<double>(first_loss));
    r.set("last_loss", static_cast<double>(last_loss));
    rep.emit(std::move(r));
  }
  rep.table("MLP 784-256-256-10 training step (tape + Adam), microseconds per step",
            {{"batch", "size", 6, 0},
             {"median", "median_us", 10, 1},
             {"min", "min_us", 10, 1},
             {"max", "max_us", 10, 1},
             {"loss0", "first_loss", 8, 3},
             {"lossN", "last_loss", 8, 3}});
  return 0;
}
