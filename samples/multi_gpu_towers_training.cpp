// Seed 002 §六 (samples/README.md) points at TensorFlow's cifar10 multi-GPU tutorial
// (cifar10_multi_gpu_train.py): the variables live on the CPU, one tower per GPU computes the loss
// and the gradients of its own slice of the batch under `with tf.device('/gpu:%d' % i)`, the
// towers' gradients are averaged on the CPU and one update is applied. This is that program with
// eagle's explicit scopes, on synthetic cifar-like images (24x24x3, ten classes, generated from
// fixed seeds: no download), printing the tutorial's line every --log-frequency steps:
//
//   2024-05-01 12:00:00.123456: step 10, loss = 2.14 (412.3 examples/sec; 0.078 sec/batch)
//
//   multi_gpu_towers_training [--gpus N] [--steps 200] [--batch-size 32] [--log-frequency 10]
//                             [--learning-rate 0.03] [--log-device-placement]
//
// --gpus: how many towers (default every logical GPU; without a CUDA GPU two simulated ones, or
// EAGLE_SIMULATED_GPUS of them; with no GPU at all one tower on /CPU:0). --batch-size is per
// tower, as the tutorial's: a step trains on batch-size x towers examples.
// --log-device-placement logs the first step's ops: each tower's on its GPU, the averaging
// (AddN, RealDiv) and the update (ResourceApplyGradientDescent) on the CPU.
// The exit status is 1 when the loss of the last steps is not below the first steps'.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <eagle/eagle.hpp>

#include "sample_support.hpp"

namespace {

struct Options {
  int gpus = -1;  // every logical GPU
  int steps = 200;
  std::int64_t batch_size = 32;
  int log_frequency = 10;
  double learning_rate = 0.03;
  bool log_device_placement = false;
};

[[noreturn]] void usage_error(const std::string& message) {
  fmt::print(stderr, "{}\n", message);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--log-device-placement") {
      o.log_device_placement = true;
      continue;
    }
    if (i + 1 >= argc) usage_error(a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--gpus") {
      o.gpus = std::stoi(v);
    } else if (a == "--steps") {
      o.steps = std::stoi(v);
    } else if (a == "--batch-size") {
      o.batch_size = std::stoll(v);
    } else if (a == "--log-frequency") {
      o.log_frequency = std::stoi(v);
    } else if (a == "--learning-rate") {
      o.learning_rate = std::stod(v);
    } else {
      usage_error("unknown option " + a);
    }
  }
  if (o.steps < 1 || o.batch_size < 1 || o.log_frequency < 1) {
    usage_error("--steps, --batch-size and --log-frequency must be positive");
  }
  return o;
}

constexpr std::int64_t kImageSize = 24;  // the tutorial's crop of the 32x32 images
constexpr std::int64_t kClasses = 10;

// Cifar-like images: each class a fixed random pattern, each image its class's pattern under
// as much noise. Everything from fixed seeds, on the CPU (the tutorial's input pipeline).
struct Dataset {
  eagle::Tensor images;  // [n, 24, 24, 3] float32
  eagle::Tensor labels;  // [n] int32
};

Dataset synthetic_cifar(std::int64_t n) {
  auto scope = eagle::device("/CPU:0");
  const eagle::Tensor patterns =
      eagle::random_normal({kClasses, kImageSize, kImageSize, 3}, 0, 1, eagle::kFloat32, 7);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    labels[static_cast<std::size_t>(i)] = static_cast<std::int32_t>((i * 7 + i / kClasses) % 10);
  }
  Dataset d;
  d.labels = eagle::constant(labels);
  d.images = eagle::gather(patterns, d.labels) +
             eagle::random_normal({n, kImageSize, kImageSize, 3}, 0, 1, eagle::kFloat32, 8);
  return d;
}

// The tutorial's inference(), narrower (16 filters, 64 and 32 units instead of 64, 384, 192) so
// that a step takes a fraction of a second on two cores; its biases and weight decay.
struct Model {
  eagle::Variable conv1_weights, conv1_biases, conv2_weights, conv2_biases;
  eagle::Variable local3_weights, local3_biases, local4_weights, local4_biases;
  eagle::Variable softmax_weights, softmax_biases;

  // Keras's default kernel initializer (glorot_uniform), seeded: the tutorial's small truncated
  // normals need thousands of steps before the loss moves, this demo only a few dozen.
  static eagle::Variable weights(const eagle::Shape& shape, std::uint64_t seed,
                                 const std::string& name) {
    return eagle::Variable(eagle::initializers::glorot_uniform(seed)(shape, eagle::kFloat32),
                           {name});
  }
  static eagle::Variable biases(std::int64_t n, double value, const std::string& name) {
    return eagle::Variable(eagle::fill({n}, value), {name});
  }

  // The tutorial's _variable_on_cpu: the variables live on the CPU, shared by every tower.
  Model()
      : conv1_weights(weights({5, 5, 3, 16}, 1, "conv1/weights")),
        conv1_biases(biases(16, 0.0, "conv1/biases")),
        conv2_weights(weights({5, 5, 16, 16}, 2, "conv2/weights")),
        conv2_biases(biases(16, 0.1, "conv2/biases")),
        local3_weights(weights({6 * 6 * 16, 64}, 3, "local3/weights")),
        local3_biases(biases(64, 0.1, "local3/biases")),
        local4_weights(weights({64, 32}, 4, "local4/weights")),
        local4_biases(biases(32, 0.1, "local4/biases")),
        softmax_weights(weights({32, kClasses}, 5, "softmax_linear/weights")),
        softmax_biases(biases(kClasses, 0.0, "softmax_linear/biases")) {}

  std::vector<eagle::Variable> variables() const {
    return {conv1_weights, conv1_biases,   conv2_weights, conv2_biases,    local3_weights,
            local3_biases, local4_weights, local4_biases, softmax_weights, softmax_biases};
  }

  eagle::Tensor logits(const eagle::Tensor& images) const {
    const eagle::nn::Conv2DOptions same{{1, 1}, "SAME"};
    const eagle::nn::Pool2DOptions pool{{3, 3}, {{2, 2}}, "SAME"};
    const eagle::Tensor conv1 = eagle::relu(
        eagle::nn::bias_add(eagle::nn::conv2d(images, conv1_weights, same), conv1_biases));
    const eagle::Tensor pool1 = eagle::nn::max_pool2d(conv1, pool);
    const eagle::Tensor conv2 = eagle::relu(
        eagle::nn::bias_add(eagle::nn::conv2d(pool1, conv2_weights, same), conv2_biases));
    const eagle::Tensor pool2 = eagle::nn::max_pool2d(conv2, pool);
    const eagle::Tensor flat = eagle::reshape(pool2, {pool2.shape()[0], -1});
    const eagle::Tensor local3 = eagle::relu(eagle::matmul(flat, local3_weights) + local3_biases);
    const eagle::Tensor local4 = eagle::relu(eagle::matmul(local3, local4_weights) + local4_biases);
    return eagle::matmul(local4, softmax_weights) + softmax_biases;
  }

  // The tutorial's tower_loss: the mean cross entropy plus the weight decay of the two local
  // layers (0.004 * l2_loss), summed with add_n.
  eagle::Tensor tower_loss(const eagle::Tensor& images, const eagle::Tensor& labels) const {
    const eagle::Tensor cross_entropy = eagle::reduce_mean(
        eagle::nn::sparse_softmax_cross_entropy_with_logits(labels, logits(images)));
    return eagle::add_n({cross_entropy, eagle::nn::l2_loss(local3_weights) * 0.004,
                         eagle::nn::l2_loss(local4_weights) * 0.004});
  }
};

// The tutorial's average_gradients: for each variable, the towers' gradients summed (AddN) and
// divided by the number of towers, on the CPU.
std::vector<std::optional<eagle::Tensor>> average_gradients(
    const std::vector<std::vector<std::optional<eagle::Tensor>>>& tower_grads) {
  auto scope = eagle::device("/CPU:0");
  std::vector<std::optional<eagle::Tensor>> average;
  for (std::size_t v = 0; v < tower_grads[0].size(); ++v) {
    std::vector<eagle::Tensor> grads;
    for (const auto& tower : tower_grads) grads.push_back(*tower[v]);
    average.emplace_back(eagle::add_n(grads) / static_cast<double>(tower_grads.size()));
  }
  return average;
}

// The tutorial's datetime.now(): 2024-05-01 12:00:00.123456.
std::string now_string() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &local);
  return fmt::format("{}.{:06d}", text, micros);
}

// The towers' devices: the first `requested` logical GPUs (all when -1), else the CPU.
std::vector<std::string> tower_devices(int requested) {
  const auto gpus = eagle::config::list_logical_devices("GPU");
  if (requested > static_cast<int>(gpus.size())) {
    usage_error(fmt::format("--gpus {}: this machine has {} logical GPU{}", requested, gpus.size(),
                            gpus.size() == 1 ? "" : "s"));
  }
  const int count = requested < 0 ? static_cast<int>(gpus.size()) : requested;
  std::vector<std::string> devices;
  for (int i = 0; i < count; ++i) devices.push_back(fmt::format("/GPU:{}", i));
  if (devices.empty()) devices.push_back("/CPU:0");
  return devices;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  eagle_samples::start(2);
  const std::vector<std::string> devices = tower_devices(o.gpus);
  const auto towers = static_cast<std::int64_t>(devices.size());
  const std::int64_t examples_per_step = o.batch_size * towers;
  fmt::print(
      "{} tower{} ({}), variables and gradient averaging on /CPU:0; batch {} per tower, "
      "{} per step\n",
      towers, towers == 1 ? "" : "s", fmt::join(devices, ", "), o.batch_size, examples_per_step);

  // Enough examples for 8 different batches; the steps cycle through them.
  const Dataset data = synthetic_cifar(examples_per_step * 8);
  eagle::optimizers::SGD sgd({o.learning_rate});
  Model model = [] {
    auto scope = eagle::device("/CPU:0");
    return Model();
  }();
  const std::vector<eagle::Variable> variables = model.variables();
  const std::vector<eagle::GradientSource> sources(variables.begin(), variables.end());

  std::vector<double> losses;
  for (int step = 0; step < o.steps; ++step) {
    const bool log_this_step = o.log_device_placement && step == 0;
    if (log_this_step) fmt::print("The first step's ops:\n");
    const auto start = std::chrono::steady_clock::now();
    const std::int64_t first = (step % 8) * examples_per_step;
    // Each tower's slice of the batch, cut on the CPU where the data lives.
    std::vector<eagle::Tensor> images, labels;
    {
      auto scope = eagle::device("/CPU:0");
      for (std::int64_t i = 0; i < towers; ++i) {
        const eagle::Slice rows{first + i * o.batch_size, first + (i + 1) * o.batch_size};
        images.push_back(data.images[rows]);
        labels.push_back(data.labels[rows]);
      }
    }
    eagle::debugging::set_log_device_placement(log_this_step);
    std::vector<std::vector<std::optional<eagle::Tensor>>> tower_grads;
    std::vector<eagle::Tensor> tower_losses;
    for (std::int64_t i = 0; i < towers; ++i) {
      auto scope = eagle::device(devices[static_cast<std::size_t>(i)]);
      eagle::GradientTape tape;
      const auto t = static_cast<std::size_t>(i);
      tower_losses.push_back(model.tower_loss(images[t], labels[t]));
      tower_grads.push_back(tape.gradient(tower_losses.back(), sources));
    }
    const auto grads = average_gradients(tower_grads);
    std::vector<eagle::optimizers::GradientAndVariable> pairs;
    for (std::size_t v = 0; v < variables.size(); ++v) pairs.emplace_back(grads[v], variables[v]);
    sgd.apply_gradients(pairs);
    eagle::debugging::set_log_device_placement(false);

    double loss_value = 0;  // the towers' mean loss (the tutorial prints the last tower's)
    for (const eagle::Tensor& loss : tower_losses) loss_value += loss.item<float>();
    loss_value /= static_cast<double>(towers);
    const double duration =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    losses.push_back(loss_value);
    if (step % o.log_frequency == 0 || step == o.steps - 1) {
      fmt::print("{}: step {}, loss = {:.2f} ({:.1f} examples/sec; {:.3f} sec/batch)\n",
                 now_string(), step, loss_value, examples_per_step / duration,
                 duration / static_cast<double>(towers));
    }
  }

  const std::size_t window = std::max<std::size_t>(1, std::min<std::size_t>(5, losses.size() / 2));
  double head = 0, tail = 0;
  for (std::size_t i = 0; i < window; ++i) {
    head += losses[i] / static_cast<double>(window);
    tail += losses[losses.size() - 1 - i] / static_cast<double>(window);
  }
  fmt::print("Mean loss of the first {} steps {:.4f}, of the last {} steps {:.4f}: {}\n", window,
             head, window, tail, tail < head ? "the loss fell" : "the loss did NOT fall");
  fmt::print("Variables on {}\n", variables[0].device());
  return tail < head ? 0 : 1;
}
