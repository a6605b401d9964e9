// A Keras Model is a Layer: its weight lists, count_params and get/set_weights are Layer's over
// its layers, and a model can be a layer of another model (called, trained, frozen, summarized,
// its weights saved in Keras 3's nested layout).
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

std::vector<std::string> names_of(const std::vector<eagle::Variable>& variables) {
  std::vector<std::string> names;
  for (const auto& v : variables) names.push_back(v.name());
  return names;
}

// An inner model (dense: 3 -> 4, relu) inside an outer one (then dense_1: 4 -> 2).
struct Nested {
  std::shared_ptr<keras::Sequential> inner;
  std::shared_ptr<keras::Sequential> outer;
};

Nested nested() {
  Nested n;
  n.inner = std::make_shared<keras::Sequential>();
  n.inner->add(layers::Dense(4, "relu"));
  n.outer = std::make_shared<keras::Sequential>();
  n.outer->add(layers::Input({3}));
  n.outer->add(n.inner);
  n.outer->add(layers::Dense(2));
  return n;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("eagle_keras_model_layer_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

}  // namespace

TEST_CASE("keras: a Model is a Layer, a model inside a model computes its layers in order") {
  keras::backend::clear_session();
  Nested n = nested();
  keras::Layer& as_layer = *n.outer;
  CHECK(as_layer.name() == "sequential_1");
  CHECK(as_layer.class_name() == "Sequential");
  CHECK(as_layer.built());
  CHECK(n.inner->built());  // built as it was added: the outer model's input shape is known
  REQUIRE(n.outer->layers().size() == 2);
  CHECK(*n.inner->output_shape() == keras::TensorShape{std::nullopt, 4});

  // Keras 3's order: each layer's weights in turn, the inner model's in its layers' order.
  CHECK(names_of(as_layer.weights()) == std::vector<std::string>{"dense/kernel:0", "dense/bias:0",
                                                                 "dense_1/kernel:0",
                                                                 "dense_1/bias:0"});
  CHECK(as_layer.count_params() == 3 * 4 + 4 + 4 * 2 + 2);
  CHECK(n.inner->count_params() == 16);

  const Tensor x = eagle::random_normal({5, 3}, 0, 1, eagle::kFloat32, 11);
  const auto dense = std::static_pointer_cast<layers::Dense>(n.inner->layers()[0]);
  const auto dense_1 = std::static_pointer_cast<layers::Dense>(n.outer->layers()[1]);
  const Tensor hidden =
      eagle::relu(eagle::matmul(x, dense->kernel().read_value()) + dense->bias().read_value());
  const Tensor want =
      eagle::matmul(hidden, dense_1->kernel().read_value()) + dense_1->bias().read_value();
  CHECK(as_layer(x).to_vector<float>() == want.to_vector<float>());
}

TEST_CASE("keras: get_weights and set_weights of a model are Layer's, Keras's texts") {
  keras::backend::clear_session();
  Nested n = nested();
  const std::vector<Tensor> before = n.outer->get_weights();
  REQUIRE(before.size() == 4);
  std::vector<Tensor> doubled;
  for (const Tensor& w : before) doubled.push_back(w * eagle::constant(2.0f));
  n.outer->set_weights(doubled);
  const auto dense = std::static_pointer_cast<layers::Dense>(n.inner->layers()[0]);
  CHECK(dense->kernel().read_value().to_vector<float>() == doubled[0].to_vector<float>());

  CHECK_THROWS_MATCHES(
      n.outer->set_weights({before[0]}), eagle::InvalidArgumentError,
      Catch::Message("You called `set_weights(weights)` on layer \"sequential_1\" with a weight "
                     "list of length 1, but the layer was expecting 4 weights."));
  CHECK_THROWS_MATCHES(
      n.outer->set_weights({before[0], before[1], before[0], before[3]}),
      eagle::InvalidArgumentError,
      Catch::Message("Layer sequential_1 weight shape (4, 2) is not compatible with provided "
                     "weight shape (3, 4)."));
  // The refused calls changed nothing.
  CHECK(dense->kernel().read_value().to_vector<float>() == doubled[0].to_vector<float>());

  keras::Sequential unbuilt;
  unbuilt.add(layers::Dense(2));
  CHECK_THROWS_MATCHES(unbuilt.count_params(), eagle::InvalidArgumentError,
                       Catch::Message("You tried to call `count_params` on layer sequential_2, "
                                      "but the layer isn't built. You can build it manually via: "
                                      "`sequential_2.build(batch_input_shape)`."));
}

TEST_CASE("keras: a frozen inner model trains nothing of its own, the outer layer trains") {
  keras::backend::clear_session();
  Nested n = nested();
  n.inner->set_trainable(false);
  CHECK(names_of(n.outer->trainable_variables()) ==
        std::vector<std::string>{"dense_1/kernel:0", "dense_1/bias:0"});
  CHECK(names_of(n.outer->non_trainable_variables()) ==
        std::vector<std::string>{"dense/kernel:0", "dense/bias:0"});
  CHECK(n.inner->trainable_variables().empty());

  const std::vector<Tensor> before = n.outer->get_weights();
  n.outer->compile("sgd", "mse");
  const Tensor x = eagle::random_normal({8, 3}, 0, 1, eagle::kFloat32, 3);
  const Tensor y = eagle::random_normal({8, 2}, 0, 1, eagle::kFloat32, 4);
  n.outer->train_on_batch(x, y);
  const std::vector<Tensor> after = n.outer->get_weights();
  CHECK(after[0].to_vector<float>() == before[0].to_vector<float>());
  CHECK(after[1].to_vector<float>() == before[1].to_vector<float>());
  CHECK(after[2].to_vector<float>() != before[2].to_vector<float>());

  KerasPrintCapture out;
  n.outer->summary();
  CHECK(out.text() ==
        "Model: \"sequential_1\"\n"
        "_________________________________________________________________\n"
        " Layer (type)                Output Shape              Param #   \n"
        "=================================================================\n"
        " sequential (Sequential)     (None, 4)                 16        \n"
        "                                                                 \n"
        " dense_1 (Dense)             (None, 2)                 10        \n"
        "                                                                 \n"
        "=================================================================\n"
        "Total params: 26\n"
        "Trainable params: 10\n"
        "Non-trainable params: 16\n"
        "_________________________________________________________________\n");
}

TEST_CASE("keras: a nested model's weights file nests its layers as Keras 3 saves them") {
  if (!eagle::io::keras_weights_supported()) return;
  keras::backend::clear_session();
  const std::string path = temp_path("nested.weights.h5");
  Nested saved = nested();
  const Tensor x = eagle::random_normal({5, 3}, 0, 1, eagle::kFloat32, 7);
  keras::PredictOptions silent;
  silent.verbose = 0;
  const Tensor want = saved.outer->predict(x, silent);
  saved.outer->save_weights(path);

  std::vector<std::string> paths;
  for (const auto& g : eagle::io::load_keras_weights(path)) paths.push_back(g.path + "=" + g.name);
  // In the file's (alphabetical) order: a group's inner layers before its own vars.
  CHECK(paths == std::vector<std::string>{"layers/dense=dense_1",
                                          "layers/sequential/layers/dense=dense",
                                          "layers/sequential=sequential", "=sequential_1"});

  Nested loaded = nested();
  CHECK(loaded.outer->predict(x, silent).to_vector<float>() != want.to_vector<float>());
  loaded.outer->load_weights(path);
  CHECK(loaded.outer->predict(x, silent).to_vector<float>() == want.to_vector<float>());
  std::remove(path.c_str());
}
