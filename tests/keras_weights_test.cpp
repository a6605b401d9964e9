// Model::save_weights / load_weights (Keras 3's .weights.h5 through HDF5) and the
// ModelCheckpoint callback: round trips, Keras's class-counted layer paths, errors that change
// nothing, checkpoint file names and messages. Skipped case by case in a build without HDF5.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "eagle/eagle.hpp"
#include "io/keras_weights_file.hpp"
#include "keras_test_support.hpp"

namespace {

using eagle::Tensor;
using eagle_test::KerasPrintCapture;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("eagle_keras_weights_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

keras::PredictOptions silent() {
  keras::PredictOptions o;
  o.verbose = 0;
  return o;
}

// Built as its layers are added (the Input layer gives the shape).
std::unique_ptr<keras::Sequential> mlp(int hidden) {
  auto model = std::make_unique<keras::Sequential>();
  model->add(layers::Input({3}));
  model->add(layers::Dense(hidden, "relu"));
  model->add(layers::Flatten());
  model->add(layers::Dense(2));
  return model;
}

}  // namespace

TEST_CASE(
    "keras save_weights and load_weights round-trip a model, by Keras's class-counted paths") {
  if (!eagle::io::keras_weights_supported()) return;
  keras::backend::clear_session();
  const std::string path = temp_path("mlp.weights.h5");
  auto saved = mlp(4);
  const Tensor x = eagle::random_normal({5, 3}, 0, 1, eagle::kFloat32, 7);
  const Tensor want = saved->predict(x, silent());
  saved->save_weights(path);

  // Built later, its layers are dense_2 and dense_3: the file's groups are still layers/dense and
  // layers/dense_1, as Keras 3 writes and reads them.
  auto loaded = mlp(4);
  CHECK(loaded->layers()[0]->name() == "dense_2");
  CHECK(loaded->predict(x, silent()).to_vector<float>() != want.to_vector<float>());
  loaded->load_weights(path);
  CHECK(loaded->predict(x, silent()).to_vector<float>() == want.to_vector<float>());
  const auto groups = eagle::io::load_keras_weights(path);
  std::vector<std::string> paths;
  for (const auto& g : groups) paths.push_back(g.path + "=" + g.name);
  CHECK(paths == std::vector<std::string>{"layers/dense=dense", "layers/dense_1=dense_1",
                                          "layers/flatten=flatten", "=sequential"});
  std::remove(path.c_str());
}

TEST_CASE("keras load_weights checks every layer before assigning any, Keras's texts") {
  if (!eagle::io::keras_weights_supported()) return;
  keras::backend::clear_session();
  const std::string path = temp_path("small.weights.h5");
  auto small = mlp(4);
  small->save_weights(path);

  auto other = mlp(6);
  const auto before = other->get_weights();
  CHECK_THROWS_MATCHES(
      other->load_weights(path), eagle::InvalidArgumentError,
      Catch::Message(path +
                     ": /layers/dense/vars/0 ('kernel' of layer 'dense_2') has shape (3, 4), "
                     "expected (3, 6)"));
  const auto after = other->get_weights();
  for (std::size_t i = 0; i < before.size(); ++i) {
    CHECK(after[i].to_vector<float>() == before[i].to_vector<float>());
  }
  keras::Sequential unbuilt;
  unbuilt.add(layers::Dense(2));
  CHECK_THROWS_MATCHES(unbuilt.load_weights(path), eagle::InvalidArgumentError,
                       Catch::Message("Unable to load weights into model \"sequential_2\": it has "
                                      "not yet been built. Build the model first by calling "
                                      "`build()` or by calling the model on a batch of data."));
  std::remove(path.c_str());
}

TEST_CASE("keras ModelCheckpoint: formatted file names, save_best_only and Keras 2's messages") {
  if (!eagle::io::keras_weights_supported()) return;
  keras::backend::clear_session();
  CHECK_THROWS_MATCHES(keras::callbacks::ModelCheckpoint("ckpt.h5"), eagle::InvalidArgumentError,
                       Catch::Message("When using `save_weights_only=True` in `ModelCheckpoint`, "
                                      "the filepath provided must end in `.weights.h5` (Keras "
                                      "weights format). Received: filepath=ckpt.h5"));
  const Tensor x = eagle::random_normal({32, 3}, 0, 1, eagle::kFloat32, 1);
  const Tensor y = eagle::reduce_sum(x, -1, true);
  auto model = std::make_unique<keras::Sequential>();
  model->add(layers::Input({3}));
  model->add(layers::Dense(1));
  model->compile("sgd", "mse");

  const std::string pattern = temp_path("ckpt-{epoch:02d}.weights.h5");
  keras::callbacks::ModelCheckpointOptions options;
  options.monitor = "loss";
  options.save_best_only = true;
  options.verbose = 1;
  auto checkpoint = std::make_shared<keras::callbacks::ModelCheckpoint>(pattern, options);
  KerasPrintCapture out;
  keras::FitOptions fit;
  fit.verbose = 0;
  fit.epochs = 2;
  fit.shuffle = false;
  fit.callbacks = {checkpoint};
  const auto history = model->fit(x, y, fit);
  const double loss1 = history.history.at("loss")[0], loss2 = history.history.at("loss")[1];
  REQUIRE(loss2 < loss1);  // SGD on a linear target: the loss falls
  const std::string file1 = temp_path("ckpt-01.weights.h5"),
                    file2 = temp_path("ckpt-02.weights.h5");
  CHECK(out.text() ==
        fmt::format("\nEpoch 1: loss improved from inf to {:.5f}, saving model to {}\n"
                    "\nEpoch 2: loss improved from {:.5f} to {:.5f}, saving model to {}\n",
                    loss1, file1, loss1, loss2, file2));
  CHECK(checkpoint->last_saved() == file2);
  CHECK(std::filesystem::exists(file1));
  // The last checkpoint holds the trained weights.
  auto restored = std::make_unique<keras::Sequential>();
  restored->add(layers::Input({3}));
  restored->add(layers::Dense(1));
  restored->load_weights(file2);
  CHECK(restored->get_weights()[0].to_vector<float>() ==
        model->get_weights()[0].to_vector<float>());
  std::remove(file1.c_str());
  std::remove(file2.c_str());
}
