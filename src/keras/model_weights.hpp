// What Model::save_weights / load_weights and the .keras files (model_saving.cpp) share: a
// model's layers as the groups of Keras 3's weights file (Note [Keras 3 weights layout]).
#pragma once

#include <string>
#include <vector>

#include "eagle/keras/models.hpp"
#include "io/keras_weights_file.hpp"

namespace eagle::keras::detail {

// Every layer's weights at its path ("layers/dense_1"), then the model's own (empty) group.
std::vector<eagle::io::LayerWeights> weight_groups(const Model& model);

// Assigns what load_keras_weights read to the model's layers, after checking every layer's count
// and shapes (Keras's texts, after `filename`), so a bad file changes nothing.
void assign_weight_groups(Model& model, const std::vector<eagle::io::LayerWeights>& loaded,
                          const std::string& filename);

}  // namespace eagle::keras::detail
