// Issue 17's seed CNN training step at batch 32 and 128: Conv2D(32, 3, relu, 28x28x1) ->
// MaxPool 2 -> Conv2D(64, 3, relu) -> MaxPool 2 -> Conv2D(64, 3, relu) -> Flatten -> Dense(64,
// relu) -> Dense(10, softmax), Keras's Adam, sparse categorical cross-entropy. Two ways, timed
// interleaved: impl "keras", eagle::keras::Sequential's train_on_batch (what a Keras user
// writes), and impl "tape", the same step written with Variables, a GradientTape and eagle::nn's
// ops (conv2d, bias_add, max_pool2d, sparse_softmax_cross_entropy_with_logits on the logits).
// Each repetition is one step on the same batch; the loss must fall.
// Initialization as Keras's layers: glorot_uniform kernels, zero biases; inputs uniform in
// [0, 1), labels uniform in [0, 10). bench/training_peers.py has Keras's train_on_batch and a
// JAX jit step at the same shapes.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench_util.hpp"
#include "eagle/eagle.hpp"
#include "seed_cnn.hpp"

namespace {

using bench::keras_seed_cnn;  // bench/seed_cnn.hpp
using bench::SeedCnn;

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
  // --device /GPU:0: the same steps on a GPU, each ending with the loss read back (a sync), so a
  // step's time is its device time, as a PyTorch step timed with a synchronize is
  // (bench/cnn_step_torch.py).
  const std::string device_name = opt.device.empty() ? "/CPU:0" : opt.device;
  auto scope = eagle::device(device_name);
  const bool sync_each_step = device_name.find("GPU") != std::string::npos;

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
    const auto keras_model = keras_seed_cnn();

    const float first_loss = train_step(model, optimizer, images, labels, true);
    const double keras_first = keras_model->train_on_batch(images, labels)[0];
    const auto stats = bench::measure_interleaved(
        {[&] { keras_model->train_on_batch(images, labels); },
         [&] { train_step(model, optimizer, images, labels, sync_each_step); }},
        warmup, reps);
    const float last_loss = train_step(model, optimizer, images, labels, true);
    const double keras_last = keras_model->train_on_batch(images, labels)[0];
    bench::check(std::isfinite(last_loss) && last_loss < first_loss,
                 fmt::format("cnn_step/{}: the tape step's loss did not fall ({} -> {})", batch,
                             first_loss, last_loss));
    bench::check(std::isfinite(keras_last) && keras_last < keras_first,
                 fmt::format("cnn_step/{}: train_on_batch's loss did not fall ({} -> {})", batch,
                             keras_first, keras_last));

    const double losses[2][2] = {{keras_first, keras_last}, {first_loss, last_loss}};
    const char* impls[] = {"eagle_keras", "eagle_tape"};
    for (int k = 0; k < 2; ++k) {
      bench::Record r;
      r.set("case", "cnn_step").set("impl", impls[k]).set("size", static_cast<long long>(batch));
      r.set(stats[static_cast<std::size_t>(k)]).set("threads", threads).set("device", device_name);
      r.set("first_loss", losses[k][0]).set("last_loss", losses[k][1]);
      // cuDNN's algorithm choice on a GPU (Note [cuDNN convolutions]): heuristics or measured.
      const char* tune = std::getenv("EAGLE_CUDNN_AUTOTUNE");
      r.set("cudnn_autotune",
            tune != nullptr && (std::string_view(tune) == "1" || std::string_view(tune) == "true"));
      // cuDNN's layout: NHWC, or NCHW with EAGLE_CUDNN_LAYOUT=nchw.
      const char* layout = std::getenv("EAGLE_CUDNN_LAYOUT");
      r.set("cudnn_layout", layout != nullptr && *layout != '\0' ? layout : "nhwc");
      rep.emit(std::move(r));
    }
  }
  rep.table("Seed CNN training step (Adam), microseconds per step", {{"impl", "impl", 12, 0},
                                                                     {"batch", "size", 6, 0},
                                                                     {"median", "median_us", 10, 1},
                                                                     {"min", "min_us", 10, 1},
                                                                     {"max", "max_us", 10, 1},
                                                                     {"loss0", "first_loss", 8, 3},
                                                                     {"lossN", "last_loss", 8, 3}});
  return 0;
}
