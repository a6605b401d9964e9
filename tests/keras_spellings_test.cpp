// TensorFlow's "Custom training with tf.distribute.Strategy" tutorial, as a newcomer writes it in
// eagle from the Python: the spellings it uses compile and mean what they mean in Keras.
#include <catch2/catch.hpp>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"

namespace {

using eagle::Tensor;
using eagle::Variable;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;
namespace opt = eagle::optimizers;

std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const eagle::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("optimizers take the learning rate as their first argument, as Keras's do") {
  // Kept as Keras keeps it, in a float32 variable.
  CHECK(opt::Adam(0.01).learning_rate() == 0.01f);
  CHECK(opt::SGD(0.5).learning_rate() == 0.5);
  CHECK(opt::RMSprop(0.02).learning_rate() == 0.02f);
  CHECK(opt::Adagrad(0.03).learning_rate() == 0.03f);
  // Through make_shared too, which is where a missing constructor used to point into the
  // standard library.
  CHECK(std::make_shared<opt::Adam>(0.001)->learning_rate() == 0.001f);
  // A schedule of the step.
  opt::SGD scheduled(opt::schedules::ExponentialDecay(0.1, 10, 0.5));
  CHECK(scheduled.learning_rate() == 0.1f);  // Keras computes schedules in float32
  // The braced forms still pick the options.
  opt::Adam options({0.2, 0.8});
  CHECK(options.learning_rate() == 0.2f);
  opt::Adam single({0.05});
  CHECK(single.learning_rate() == 0.05f);
}

TEST_CASE("tape.gradient on a model's trainable_variables, then apply_gradients(grads, vars)") {
  keras::Sequential model;
  model.add(layers::Dense(2));
  const Tensor x = eagle::constant({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, eagle::Shape{2, 3});
  model(x);  // builds the kernel [3, 2] and the bias [2]
  const std::vector<Variable> vars = model.trainable_variables();
  REQUIRE(vars.size() == 2);
  const std::vector<float> kernel_before = vars[0].read_value().to_vector<float>();

  opt::SGD sgd(0.1);
  eagle::GradientTape tape;
  const Tensor loss = eagle::reduce_sum(model(x));
  const std::vector<std::optional<Tensor>> grads = tape.gradient(loss, model.trainable_variables());
  REQUIRE(grads.size() == 2);
  // d(sum(x W + b))/dW[i][j] = sum over the batch of x[., i]: 5, 7, 9 for every column.
  CHECK(grads[0]->to_vector<float>() == std::vector<float>{5, 5, 7, 7, 9, 9});
  CHECK(grads[1]->to_vector<float>() == std::vector<float>{2, 2});
  sgd.apply_gradients(grads, vars);
  const std::vector<float> kernel_after = vars[0].read_value().to_vector<float>();
  for (std::size_t i = 0; i < kernel_after.size(); ++i) {
    CHECK(kernel_after[i] == kernel_before[i] - 0.1f * grads[0]->to_vector<float>()[i]);
  }
  CHECK(sgd.iterations() == 1);
  // Keras 3's name for it.
  sgd.apply(grads, vars);
  CHECK(sgd.iterations() == 2);
}

TEST_CASE("tape.gradient takes any container of variables or tensors") {
  Variable w(eagle::constant({2.0f}), {"w"});
  Variable b(eagle::constant({1.0f}), {"b"});
  eagle::GradientTape tape(eagle::GradientTapeOptions{true});
  const Tensor y = w.read_value() * w.read_value() + b.read_value();
  const std::array<Variable, 2> array{w, b};
  const auto from_array = tape.gradient(y, array);
  CHECK(from_array[0]->to_vector<float>() == std::vector<float>{4});
  CHECK(from_array[1]->to_vector<float>() == std::vector<float>{1});
  const auto from_list = tape.gradient(y, {w, b});  // the braced form is unchanged
  CHECK(from_list[0]->to_vector<float>() == std::vector<float>{4});
}

TEST_CASE("apply_gradients(grads, vars) refuses counts that differ, before any variable changes") {
  Variable w(eagle::constant({1.0f}), {"w"});
  Variable b(eagle::constant({1.0f}), {"b"});
  opt::SGD sgd(0.1);
  const std::vector<std::optional<Tensor>> one{eagle::constant({1.0f})};
  CHECK(error_text([&] {
          sgd.apply_gradients(one, {w, b});
        }) ==
        "apply_gradients got 1 gradients for 2 variables: pass one gradient per variable, in the "
        "variables' order (as tape.gradient(loss, variables) returns them)");
  CHECK(w.read_value().to_vector<float>() == std::vector<float>{1});
  CHECK(sgd.iterations() == 0);
}

TEST_CASE("Mean::update_state(values) and reset_states, as the tutorial calls them") {
  keras::metrics::Mean loss_metric("train_loss");
  loss_metric.update_state(eagle::constant({1.0f, 2.0f, 3.0f}));
  loss_metric.update_state(eagle::constant({6.0f}));
  CHECK(loss_metric.result() == 3.0);  // (1 + 2 + 3 + 6) / 4
  loss_metric.reset_states();
  CHECK(loss_metric.result() == 0.0);
  loss_metric.update_state(0.5);
  CHECK(loss_metric.result() == 0.5);
}
