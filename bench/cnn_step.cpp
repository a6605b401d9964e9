// Issue 17's seed CNN training step at batch 32 and 128: Conv2D(32, 3, relu, 28x28x1) ->
// MaxPool 2 -> Conv2D(64, 3, relu) -> MaxPool 2 -> Conv2D(64, 3, relu) -> Flatten -> Dense(64,
// relu) -> Dense(10, softmax), Keras's Adam, sparse categorical cross-entropy (through the
// logits, the path Keras takes for a softmax output). eagle::keras has no Conv2D or
// MaxPooling2D layer yet, so the step is written with Variables, a GradientTape and eagle::nn's
// ops (conv2d, bias_add, max_pool2d, sparse_softmax_cross_entropy_with_logits), the ops those
// layers would run. Each repetition is one step on the same batch; the loss must fall.
// Initialization as Keras's layers: glorot_uniform kernels, zero biases; inputs uniform in
// [0, 1), labels uniform in [0, 10). bench/training_peers.py has Keras's train_on_batch and a
// JAX jit step at the same shapes.
#include <cstdint>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "eagle/eagle.hpp"

namespace {

struct SeedCnn {
  std::vector<eagle::Variable> vars;  // kernel, bias per layer: conv, conv, conv, dense, dense

  SeedCnn() {
    const std::vector<eagle::Shape> kernels = {
        {3, 3, 1, 32}, {3, 3, 32, 64}, {3, 3, 64, 64}, {576, 64}, {64, 10}};
    std::uint64_t seed = 1;
    for (const auto& shape : kernels) {
      vars.emplace_back(eagle::initializers::glorot_uniform(seed++)(shape, eagle::kFloat32));
      vars.emplace_back(eagle::zeros({shape[shape.rank() - 1]}));
    }
  }

  eagle::Tensor logits(const eagle::Tensor& images) const {
    auto conv_relu = [&](const eagle::Tensor& x, int layer) {
      return eagle::relu(
          eagle::nn::bias_add(eagle::nn::conv2d(x, vars[2 * layer]), vars[2 * layer + 1]));
    };
    eagle::Tensor x = eagle::nn::max_pool2d(conv_relu(images, 0));
    x = eagle::nn::max_pool2d(conv_relu(x, 1));
    x = eagle::reshape(conv_relu(x, 2), {-1, 576});
    x = eagle::relu(eagle::nn::bias_add(eagle::matmul(x, vars[6]), vars[7]));
    return eagle::nn::bias_add(eagle::matmul(x, vars[8]), vars[9]);
  }
};

float train_step(const SeedCnn& model, eagle::optimizers::Adam& optimizer,
                 const eagle::Tensor& images, const eagle::Tensor& labels, bool read_loss) {
  eagle::GradientTape tape;
  const eagle::Tensor loss = eagle::reduce_mean(
      eagle::nn::sparse_softmax_cross_entropy_with_logits(labels, model.logits(images)));
  std::vector<eagle::GradientSource> sources(model.vars.begin(), model.vars.end());
  const auto grads = tape.gradient(loss, sources);
  std::vector<eagle::optimizers::GradientAndVariable> pairs;
  for (std::size_t i = 0; i < model.vars.size(); ++i) pairs.emplace_back(grads[i], model.vars[i]);
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
  for (const std::int64_t batch : {32LL, 128LL}) {
    if (!opt.selected("cnn_step", batch)) continue;
    const int reps = opt.reps_or(30, 5);
    const int warmup = opt.warmup_or(3, 1);
    const eagle::Tensor images =
        eagle::random_uniform({batch, 28, 28, 1}, 0, 1, eagle::kFloat32, 300 + batch);
    const eagle::Tensor labels = eagle::cast(
        eagle::floor(eagle::random_uniform({batch}, 0, 10, eagle::kFloat32, 400 + batch)),
        eagle::kInt32);
    SeedCnn model;
    eagle::optimizers::Adam optimizer;

    const float first_loss = train_step(model, optimizer, images, labels, true);
    const bench::Stats stats =
        bench::measure([&] { train_step(model, optimizer, images, labels, false); }, warmup, reps);
    const float last_loss = train_step(model, optimizer, images, labels, true);
    bench::check(
        std::isfinite(last_loss) && last_loss < first_loss,
        fmt::format("cnn_step/{}: the loss did not fall ({} -> {})", batch, first_loss, last_loss));

    bench::Record r;
    r.set("case", "cnn_step").set("impl", "eagle").set("size", static_cast<long long>(batch));
    r.set(stats).set("threads", threads).set("first_loss", static_cast<double>(first_loss));
    r.set("last_loss", static_cast<double>(last_loss));
    rep.emit(std::move(r));
  }
  rep.table("Seed CNN training step (tape + Adam), microseconds per step",
            {{"batch", "size", 6, 0},
             {"median", "median_us", 10, 1},
             {"min", "min_us", 10, 1},
             {"max", "max_us", 10, 1},
             {"loss0", "first_loss", 8, 3},
             {"lossN", "last_loss", 8, 3}});
  return 0;
}
