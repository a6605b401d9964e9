// TensorFlow's tutorial "Custom training with tf.distribute.Strategy", in eagle: a CNN on
// Fashion-MNIST trained with a custom loop under a MirroredStrategy over two (simulated) GPUs,
// the per-example losses averaged over the global batch with nn::compute_average_loss, the
// weights' L2 penalties added with nn::scale_regularization_loss, a train::Checkpoint of the model
// and its optimizer saved every other epoch, and at the end a new model restored from the latest
// checkpoint and evaluated without the strategy. The tutorial's lines, in its words.
//
//   custom_training_distributed [--epochs 10] [--batch-size-per-replica 64]
//                               [--train-size 60000] [--test-size 10000]
//                               [--checkpoint-dir ./training_checkpoints] [--data-dir DIR]
//                               [--seed N] [--min-accuracy A]
//
// Defaults are the tutorial's (10 epochs of the 60,000 images: an hour on two CPU cores);
// scripts/demo.sh runs 2 epochs of 10,000. Without a CUDA GPU, two simulated GPUs.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include <eagle/eagle.hpp>

#include "sample_support.hpp"

namespace {

namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;
using eagle::Tensor;

struct Options {
  int epochs = 10;
  std::int64_t batch_size_per_replica = 64;
  std::int64_t train_size = 60000;
  std::int64_t test_size = 10000;
  std::string checkpoint_dir = "./training_checkpoints";
  std::string data_dir;
  std::optional<std::uint64_t> seed;
  double min_accuracy = 0;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      fmt::print(stderr, "{} needs a value\n", a);
      std::exit(2);
    }
    const std::string v = argv[++i];
    if (a == "--epochs") {
      o.epochs = std::stoi(v);
    } else if (a == "--batch-size-per-replica") {
      o.batch_size_per_replica = std::stoll(v);
    } else if (a == "--train-size") {
      o.train_size = std::stoll(v);
    } else if (a == "--test-size") {
      o.test_size = std::stoll(v);
    } else if (a == "--checkpoint-dir") {
      o.checkpoint_dir = v;
    } else if (a == "--data-dir") {
      o.data_dir = v;
    } else if (a == "--seed") {
      o.seed = std::stoull(v);
    } else if (a == "--min-accuracy") {
      o.min_accuracy = std::stod(v);
    } else {
      fmt::print(stderr, "unknown option {} {}\n", a, v);
      std::exit(2);
    }
  }
  return o;
}

// The first n images as float32 (n, 28, 28, 1) in [0, 1] (the tutorial's images[..., None] / 255)
// and their int32 labels.
// A float32 as Python's print shows it (str(np.float32)): 58.0, 67.9, 0.8242951.
std::string py(double value) {
  std::string text = fmt::format("{}", static_cast<float>(value));
  if (text.find_first_of(".ein") == std::string::npos) text += ".0";
  return text;
}

std::pair<Tensor, Tensor> prepare(const eagle::data::fashion_mnist::Split& split, std::int64_t n) {
  const Tensor images = split.first.to_tensor(eagle::kFloat32, 255);
  const Tensor labels = split.second.to_tensor(eagle::kInt32);
  n = std::min(n, images.shape()[0]);
  return {eagle::reshape(images[eagle::Slice{0, n}], {n, 28, 28, 1}), labels[eagle::Slice{0, n}]};
}

// The tutorial's create_model(): two convolutions, two dense layers, every kernel with an L2
// penalty of 1e-5; logits out.
std::shared_ptr<keras::Sequential> create_model(std::optional<std::uint64_t> seed) {
  const auto regularizer = std::make_shared<keras::regularizers::L2>(1e-5);
  const auto kernel = [&](std::uint64_t k) {
    return eagle::initializers::glorot_uniform(seed ? std::optional(*seed + k) : std::nullopt);
  };
  layers::Conv2DOptions conv1, conv2;
  conv1.kernel_regularizer = conv2.kernel_regularizer = regularizer;
  conv1.kernel_initializer = kernel(1);
  conv2.kernel_initializer = kernel(2);
  layers::DenseOptions dense1, dense2;
  dense1.kernel_regularizer = dense2.kernel_regularizer = regularizer;
  dense1.kernel_initializer = kernel(3);
  dense2.kernel_initializer = kernel(4);
  auto model = std::make_shared<keras::Sequential>();
  model->add(layers::Conv2D(32, 3, "relu", conv1));
  model->add(layers::MaxPooling2D());
  model->add(layers::Conv2D(64, 3, "relu", conv2));
  model->add(layers::MaxPooling2D());
  model->add(layers::Flatten());
  model->add(layers::Dense(64, "relu", dense1));
  model->add(layers::Dense(10, {}, dense2));
  return model;
}

int run(const Options& o) {
  eagle_samples::start(2);
  // strategy = tf.distribute.MirroredStrategy()
  const eagle::distribute::MirroredStrategy strategy;
  fmt::print("Number of devices: {}\n", strategy.num_replicas_in_sync());

  auto [train, test] = eagle::data::fashion_mnist::load_data(o.data_dir);
  const auto [train_images, train_labels] = prepare(train, o.train_size);
  const auto [test_images, test_labels] = prepare(test, o.test_size);
  const std::int64_t global_batch_size = o.batch_size_per_replica * strategy.num_replicas_in_sync();
  const auto train_dataset = eagle::data::Dataset::from_tensor_slices({train_images, train_labels})
                                 .shuffle(train_images.shape()[0], o.seed)
                                 .batch(global_batch_size);
  const auto test_dataset =
      eagle::data::Dataset::from_tensor_slices({test_images, test_labels}).batch(global_batch_size);
  const auto train_dist_dataset = strategy.experimental_distribute_dataset(train_dataset);
  const auto test_dist_dataset = strategy.experimental_distribute_dataset(test_dataset);

  const std::string checkpoint_prefix = (std::filesystem::path(o.checkpoint_dir) / "ckpt").string();

  // Set reduction to "none" so you can do the reduction yourself.
  std::unique_ptr<keras::losses::SparseCategoricalCrossentropy> loss_object;
  std::unique_ptr<keras::metrics::Mean> test_loss;
  std::unique_ptr<keras::metrics::SparseCategoricalAccuracy> train_accuracy, test_accuracy;
  // A model, an optimizer, and a checkpoint must be created under strategy.scope().
  std::shared_ptr<keras::Sequential> model;
  std::shared_ptr<eagle::optimizers::Adam> optimizer;
  std::unique_ptr<eagle::train::Checkpoint> checkpoint;
  {
    auto scope = strategy.scope();
    loss_object = std::make_unique<keras::losses::SparseCategoricalCrossentropy>(true, "none");
    test_loss = std::make_unique<keras::metrics::Mean>("test_loss");
    train_accuracy = std::make_unique<keras::metrics::SparseCategoricalAccuracy>("train_accuracy");
    test_accuracy = std::make_unique<keras::metrics::SparseCategoricalAccuracy>("test_accuracy");
    model = create_model(o.seed);
    model->build({std::nullopt, 28, 28, 1});
    optimizer = std::make_shared<eagle::optimizers::Adam>(0.001);
    checkpoint = std::make_unique<eagle::train::Checkpoint>(
        std::map<std::string, eagle::train::Trackable>{{"optimizer", optimizer}, {"model", model}});
  }

  const auto compute_loss = [&](const Tensor& labels, const Tensor& predictions,
                                const std::vector<Tensor>& model_losses) {
    const Tensor per_example_loss = (*loss_object)(labels, predictions);
    Tensor loss = eagle::nn::compute_average_loss(per_example_loss, global_batch_size);
    if (!model_losses.empty()) loss = loss + eagle::nn::scale_regularization_loss(model_losses);
    return loss;
  };
  const auto train_step = [&](const eagle::data::Element& inputs) {
    const Tensor& images = inputs[0];
    const Tensor& labels = inputs[1];
    eagle::GradientTape tape;
    const Tensor predictions = (*model)(images, true);
    const Tensor loss = compute_loss(labels, predictions, model->losses());
    const auto gradients = tape.gradient(loss, model->trainable_variables());
    optimizer->apply_gradients(gradients, model->trainable_variables());
    train_accuracy->update_state(labels, predictions);
    return loss;
  };
  const auto test_step = [&](const eagle::data::Element& inputs) {
    const Tensor predictions = (*model)(inputs[0], false);
    test_loss->update_state((*loss_object)(inputs[1], predictions));
    test_accuracy->update_state(inputs[1], predictions);
  };

  double final_test_accuracy = 0;
  double checkpointed_test_accuracy = 0;
  for (int epoch = 0; epoch < o.epochs; ++epoch) {
    // TRAIN LOOP (the loss summed in float32, as the tutorial's tensor is)
    float total_loss = 0.0f;
    int num_batches = 0;
    for (const auto& x : train_dist_dataset) {
      const auto per_replica_losses = strategy.run(train_step, x);
      total_loss +=
          strategy.reduce(eagle::distribute::ReduceOp::kSum, per_replica_losses).item<float>();
      ++num_batches;
    }
    const float train_loss = total_loss / static_cast<float>(num_batches);
    // TEST LOOP
    for (const auto& x : test_dist_dataset) strategy.run(test_step, x);
    if (epoch % 2 == 0) {
      checkpoint->save(checkpoint_prefix);
      checkpointed_test_accuracy = test_accuracy->result();
    }
    fmt::print("Epoch {}, Loss: {}, Accuracy: {}, Test Loss: {}, Test Accuracy: {}\n", epoch + 1,
               py(train_loss), py(train_accuracy->result() * 100), py(test_loss->result()),
               py(test_accuracy->result() * 100));
    final_test_accuracy = test_accuracy->result();
    test_loss->reset_states();
    train_accuracy->reset_states();
    test_accuracy->reset_states();
  }

  // Restore the latest checkpoint and test: a new model, not built and outside the strategy,
  // takes the checkpoint's weights when its first call builds it.
  keras::metrics::SparseCategoricalAccuracy eval_accuracy("eval_accuracy");
  const auto new_model = create_model(std::nullopt);
  const auto new_optimizer = std::make_shared<eagle::optimizers::Adam>();
  eagle::train::Checkpoint restored({{"optimizer", new_optimizer}, {"model", new_model}});
  const auto latest = eagle::train::latest_checkpoint(o.checkpoint_dir);
  if (!latest) {
    fmt::print("Error: no checkpoint in {}\n", o.checkpoint_dir);
    return 1;
  }
  restored.restore(*latest).expect_partial();
  for (const auto& batch : test_dataset) {
    eval_accuracy.update_state(batch[1], (*new_model)(batch[0], false));
  }
  fmt::print("Accuracy after restoring the saved model without strategy: {}\n",
             py(eval_accuracy.result() * 100));
  // The restored model is the one saved last: it classifies the test set as it did then.
  if (eval_accuracy.result() != checkpointed_test_accuracy) {
    fmt::print("Error: the restored model's accuracy {} is not the saved model's {}\n",
               eval_accuracy.result(), checkpointed_test_accuracy);
    return 1;
  }
  if (final_test_accuracy < o.min_accuracy) {
    fmt::print("Test accuracy {:.4f} is below {}\n", final_test_accuracy, o.min_accuracy);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  try {
    return run(o);
  } catch (const eagle::Error& e) {
    fmt::print("Error: {}\n", e.what());  // a missing data file names the package to install
    return 1;
  }
}
