// Keras 3's regularizers, layer.losses() and fit adding them, against values Keras 3.15 on
// TensorFlow 2.21 printed for the same inputs (TF_ENABLE_ONEDNN_OPTS=0), and
// nn::scale_regularization_loss.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"

namespace {

using eagle::Tensor;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;
namespace regularizers = eagle::keras::regularizers;

float from_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

const Tensor& matrix() {
  static const Tensor x = eagle::constant({1.f, 2.f, -1.f, 0.5f, -3.f, 2.f}, {2, 3});
  return x;
}

std::unique_ptr<keras::Sequential> regularized_model() {
  auto model = std::make_unique<keras::Sequential>();
  model->add(layers::Input({2}));
  layers::DenseOptions o;
  o.kernel_initializer = "ones";
  o.kernel_regularizer = std::make_shared<regularizers::L2>(0.1);
  model->add(layers::Dense(1, {}, o));
  model->compile(std::make_shared<eagle::optimizers::SGD>(0.1), "mse");
  return model;
}

}  // namespace

TEST_CASE("regularizers: Keras 3's values on every device") {
  for (const char* device : {"/CPU:0", "/GPU:0"}) {
    INFO(device);
    auto scope = eagle::device(device);
    const Tensor x = eagle::identity(matrix());
    CHECK(regularizers::L1(0.1)(x).item<float>() == from_bits(0x3f733333));
    CHECK(regularizers::L2(0.05)(x).item<float>() == from_bits(0x3f766667));
    CHECK(regularizers::L1L2(0.1, 0.05)(x).item<float>() == from_bits(0x3ff4cccd));
    // The Gram matrix is a matmul: TensorFlow's sums its products in another order than eagle's
    // (its off-diagonal 0 comes out as 1e-8), so float32 rounding, not bits.
    CHECK(regularizers::OrthogonalRegularizer(0.3)(x).item<float>() ==
          Approx(from_bits(0x3e8133b0)).epsilon(1e-6));
    CHECK(regularizers::OrthogonalRegularizer(0.3, "columns")(x).item<float>() ==
          Approx(from_bits(0x3de49eef)).epsilon(1e-6));
    CHECK(regularizers::L1L2()(x).item<float>() == 0.0f);  // both factors 0: nothing
  }
  CHECK(regularizers::get("l2")->class_name() == "L2");
  CHECK(regularizers::get("l1_l2")->class_name() == "L1L2");
  CHECK(regularizers::get("orthogonal_regularizer")->class_name() == "OrthogonalRegularizer");
}

TEST_CASE("regularizers: Keras's argument errors") {
  CHECK_THROWS_MATCHES(
      regularizers::L2(-1.0), eagle::InvalidArgumentError,
      Catch::Message("Invalid value for argument l2: expected a non-negative float.Received: "
                     "l2=-1.0"));
  CHECK_THROWS_MATCHES(regularizers::get("l3"), eagle::InvalidArgumentError,
                       Catch::Message("Could not interpret regularizer identifier: l3"));
  CHECK_THROWS_MATCHES(regularizers::OrthogonalRegularizer(0.01, "diag"),
                       eagle::InvalidArgumentError,
                       Catch::Message("Invalid value for argument `mode`. Expected one of "
                                      "{\"rows\", \"columns\"}. Received: mode=diag"));
  CHECK_THROWS_MATCHES(regularizers::OrthogonalRegularizer()(eagle::ones({2, 2, 2})),
                       eagle::InvalidArgumentError,
                       Catch::Message("Inputs to OrthogonalRegularizer must have rank 2. "
                                      "Received: inputs.shape=(2, 2, 2)"));
}

TEST_CASE("model.losses() and fit: the penalties join the loss, as in Keras 3") {
  keras::backend::clear_session();
  const Tensor x = eagle::constant({1.f, 2.f, 3.f, 4.f}, {2, 2});
  const Tensor y = eagle::constant({1.f, 2.f}, {2, 1});
  auto model = regularized_model();
  const std::vector<Tensor> penalties = model->losses();
  REQUIRE(penalties.size() == 1);  // the kernel's; the bias has none
  CHECK(penalties[0].item<float>() == 0.2f);
  keras::FitOptions options;
  options.batch_size = 2;
  options.verbose = 0;
  const auto history = model->fit(x, y, options);
  // Keras: loss 14.699999809265137, kernel [-0.72, -1.42], bias -0.7.
  CHECK(history.history.at("loss")[0] == Approx(14.699999809265137).epsilon(1e-6));
  const auto weights = model->get_weights();
  CHECK(weights[0].to_vector<float>()[0] == Approx(-0.720000147819519).epsilon(1e-6));
  CHECK(weights[0].to_vector<float>()[1] == Approx(-1.4200000762939453).epsilon(1e-6));
  CHECK(weights[1].to_vector<float>()[0] == Approx(-0.699999988079071).epsilon(1e-6));
  // evaluate counts them too (Keras: 69.63308715820312).
  keras::EvaluateOptions quiet;
  quiet.verbose = 0;
  CHECK(model->evaluate(x, y, quiet).at(0) == Approx(69.63308715820312).epsilon(1e-6));
  // A frozen layer has no trainable weights, so no penalty.
  model->layers().at(0)->set_trainable(false);
  CHECK(model->losses().empty());
}

TEST_CASE("fit under MirroredStrategy counts the penalties once across the replicas") {
  keras::backend::clear_session();
  const Tensor x = eagle::constant({1.f, 2.f, 3.f, 4.f, -1.f, 0.5f, 2.f, -2.f}, {4, 2});
  const Tensor y = eagle::constant({1.f, 2.f, 0.f, -1.f}, {4, 1});
  keras::FitOptions options;
  options.batch_size = 4;
  options.epochs = 3;
  options.verbose = 0;
  auto single = regularized_model();
  const auto single_history = single->fit(x, y, options);
  const eagle::distribute::MirroredStrategy strategy({"/GPU:0", "/GPU:1"});
  std::unique_ptr<keras::Sequential> mirrored;
  {
    auto scope = strategy.scope();
    mirrored = regularized_model();
  }
  const auto mirrored_history = mirrored->fit(x, y, options);
  for (int epoch = 0; epoch < 3; ++epoch) {
    CHECK(mirrored_history.history.at("loss")[epoch] ==
          Approx(single_history.history.at("loss")[epoch]).epsilon(1e-6));
  }
  const auto a = single->get_weights();
  const auto b = mirrored->get_weights();
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto va = a[i].to_vector<float>();
    const auto vb = b[i].to_vector<float>();
    for (std::size_t j = 0; j < va.size(); ++j) CHECK(vb[j] == Approx(va[j]).epsilon(1e-6));
  }
}

TEST_CASE("nn::scale_regularization_loss: a replica's share, refused across replicas") {
  CHECK(eagle::nn::scale_regularization_loss({eagle::constant(0.5f), eagle::constant(1.5f)})
            .item<float>() == 2.0f);
  const eagle::distribute::MirroredStrategy strategy({"/GPU:0", "/GPU:1"});
  const auto shares = strategy.run([&] {
    return eagle::nn::scale_regularization_loss({eagle::constant(0.5f), eagle::constant(1.5f)});
  });
  for (const Tensor& share : shares.values()) CHECK(share.item<float>() == 1.0f);
  auto scope = strategy.scope();
  CHECK_THROWS_MATCHES(eagle::nn::scale_regularization_loss(eagle::constant(1.0f)),
                       eagle::RuntimeError,
                       Catch::Message("You are calling `scale_regularization_loss` in cross "
                                      "replica context, while it was expected to be called in "
                                      "replica context."));
}
