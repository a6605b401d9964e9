// Keras 3's .weights.h5 files: what model.save_weights writes and model.load_weights reads.
#pragma once

#include <string>
#include <vector>

#include "eagle/shape.hpp"
#include "eagle/tensor.hpp"

namespace eagle::io {

// Note [Keras 3 weights layout]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Keras 3 (saving_lib.H5IOStore) writes one HDF5 group per saveable object, at the object's path
// in the model (the attribute names leading to it, list items by their .name):
//   /vars                          attrs {name: "sequential"}   the model's own variables (none)
//   /layers/conv2d/vars            attrs {name: "conv2d"}        datasets "0" (kernel), "1" (bias)
//   /layers/max_pooling2d/vars     attrs {name: "max_pooling2d"} empty: no variables
//   /optimizer/vars                attrs {name: "adam"}          "0" iterations (int64 scalar), ...
// Datasets are named by the variable's index in layer.weights order ("0", "1", ...), stored
// contiguous and uncompressed in the variable's dtype; `name` is a variable-length UTF-8 string.
// The file has no root attributes. Keras's loader reads a layer's group by path and requires
// exactly as many datasets as the layer has variables, of the variables' shapes.

// The variables of one saveable object (a layer, the model, the optimizer).
struct LayerWeights {
  std::string path;             // "layers/dense"; "" for the model's own /vars; "optimizer"
  std::vector<Tensor> weights;  // vars/0, vars/1, ... in layer.weights order
  std::string name = {};        // the vars group's `name` attribute; "" -> the last path part
};

// True when this build reads and writes .weights.h5 files (EAGLE_HDF5); else the calls below
// throw UnimplementedError.
bool keras_weights_supported();

// Writes `layers` in Keras 3's layout, replacing `filename`. The name must end in ".weights.h5"
// (Keras's rule, with its message). float32, float64, float16, int32 and int64 tensors are
// stored; others are UnimplementedError.
void save_keras_weights(const std::string& filename, const std::vector<LayerWeights>& layers);

// Every vars group of `filename`, in the file's (alphabetical) path order, with its tensors on
// the CPU in the stored dtype. A missing file is NotFoundError, a file that is not HDF5 or not
// in Keras 3's layout DataLossError, a dtype eagle cannot hold UnimplementedError; each names
// the file.
std::vector<LayerWeights> load_keras_weights(const std::string& filename);

// The entry at `path` of what load_keras_weights returned, checked against the shapes the
// layer's variables have: a missing entry or another count of variables is
// InvalidArgumentError with Keras's text ("Layer 'dense' expected 2 variables, but received 0
// variables during loading. Expected: ['kernel', 'bias']") after the file name, another shape
// InvalidArgumentError naming the dataset. `variable_names` (kernel, bias) appear in messages.
const LayerWeights& expect_layer_weights(const std::string& filename,
                                         const std::vector<LayerWeights>& loaded,
                                         const std::string& path, const std::string& layer_name,
                                         const std::vector<std::string>& variable_names,
                                         const std::vector<Shape>& shapes);

}  // namespace eagle::io
