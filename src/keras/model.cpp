// Keras's Model: its name, and the weight lists, counts and values gathered from its layers.
#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/keras/backend.hpp"
#include "eagle/keras/models.hpp"

namespace eagle::keras {

Model::Model(const std::string& class_name, std::string name)
    : name_(name.empty() ? backend::unique_object_name(backend::to_snake_case(class_name))
                         : std::move(name)) {}

std::vector<Variable> Model::trainable_variables() const {
  std::vector<Variable> out;
  for (const auto& layer : layers()) {
    for (const Variable& v : layer->trainable_variables()) out.push_back(v);
  }
  return out;
}

std::vector<Variable> Model::non_trainable_variables() const {
  std::vector<Variable> out;
  for (const auto& layer : layers()) {
    for (const Variable& v : layer->non_trainable_variables()) out.push_back(v);
  }
  return out;
}

std::vector<Variable> Model::weights() const {
  std::vector<Variable> out;
  for (const auto& layer : layers()) {
    for (const Variable& v : layer->weights()) out.push_back(v);
  }
  return out;
}

std::int64_t Model::count_params() const {
  if (!built()) {
    throw InvalidArgumentError(fmt::format(
        "You tried to call `count_params` on layer {}, but the layer isn't built. You can build "
        "it manually via: `{}.build(batch_input_shape)`.",
        name_, name_));
  }
  std::int64_t n = 0;
  for (const auto& layer : layers()) n += layer->built() ? layer->count_params() : 0;
  return n;
}

std::vector<Tensor> Model::get_weights() const {
  std::vector<Tensor> out;
  for (const Variable& v : weights()) out.push_back(v.read_value());
  return out;
}

void Model::set_weights(const std::vector<Tensor>& values) {
  std::size_t offset = 0;
  const auto all = layers();
  std::size_t expected = 0;
  for (const auto& layer : all) expected += layer->weights().size();
  if (values.size() != expected) {
    throw InvalidArgumentError(fmt::format(
        "You called `set_weights(weights)` on layer \"{}\" with a weight list of length {}, but "
        "the layer was expecting {} weights.",
        name_, values.size(), expected));
  }
  for (const auto& layer : all) {
    const std::size_t n = layer->weights().size();
    layer->set_weights(
        std::vector<Tensor>(values.begin() + static_cast<std::ptrdiff_t>(offset),
                            values.begin() + static_cast<std::ptrdiff_t>(offset + n)));
    offset += n;
  }
}

}  // namespace eagle::keras
