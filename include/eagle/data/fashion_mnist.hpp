// keras.datasets.fashion_mnist.load_data() over Debian's dataset-fashion-mnist files.
#pragma once

#include <string>
#include <utility>

#include "eagle/data/idx.hpp"

namespace eagle::data::fashion_mnist {

// Where Debian's dataset-fashion-mnist package puts the four IDX files.
inline constexpr const char* kDebianDirectory = "/usr/share/datasets/fashion-mnist";

// The directory load_data reads: `directory` when not empty, else $EAGLE_DATA_DIR/fashion-mnist
// when EAGLE_DATA_DIR is set (a root of data sets, as /usr/share/datasets is), else
// kDebianDirectory.
std::string data_directory(const std::string& directory = "");

// ((x_train, y_train), (x_test, y_test)) as Keras's load_data returns them: images (n, 28, 28)
// and labels (n,) of unsigned bytes, 60000 for training and 10000 for testing in the real set.
// Reads train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz and
// t10k-labels-idx1-ubyte.gz (each may also be present uncompressed, without ".gz") from
// data_directory(directory). Images that are not (n, 28, 28), labels that are not (n,) for the
// same n, or a label above 9 are DataLossError naming the file.
//   auto [train, test] = eagle::data::fashion_mnist::load_data();
//   eagle::Tensor x_train = train.first.to_tensor(eagle::float32, 255);
using Split = std::pair<IdxArray, IdxArray>;  // (images, labels)
std::pair<Split, Split> load_data(const std::string& directory = "");

}  // namespace eagle::data::fashion_mnist
