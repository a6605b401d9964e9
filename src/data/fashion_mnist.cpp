// keras.datasets.fashion_mnist.load_data() over Debian's dataset-fashion-mnist files.
#include "eagle/data/fashion_mnist.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>

#include "eagle/errors.hpp"

namespace eagle::data::fashion_mnist {
namespace {

bool exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

// Keras's file name, or the same file uncompressed when only that is present.
std::string file_path(const std::string& directory, const std::string& name) {
  const std::string gz = directory + "/" + name + ".gz";
  const std::string plain = directory + "/" + name;
  return !exists(gz) && exists(plain) ? plain : gz;
}

IdxArray read_file(const std::string& path) {
  try {
    return read_idx(path);
  } catch (const NotFoundError& e) {
    throw NotFoundError(fmt::format(
        "{} (Fashion-MNIST: install Debian's dataset-fashion-mnist, set EAGLE_DATA_DIR to a "
        "directory holding fashion-mnist/, or pass the directory to load_data)",
        e.what()));
  }
}

Split read_split(const std::string& directory, const std::string& prefix) {
  const std::string images_path = file_path(directory, prefix + "-images-idx3-ubyte");
  const std::string labels_path = file_path(directory, prefix + "-labels-idx1-ubyte");
  IdxArray images = read_file(images_path);
  IdxArray labels = read_file(labels_path);
  const Shape& s = images.shape;
  if (s.rank() != 3 || s[1] != 28 || s[2] != 28) {
    throw DataLossError(fmt::format("{}: expected images of shape (n, 28, 28), found {}",
                                    images_path, s.to_tuple_string()));
  }
  if (labels.shape.rank() != 1 || labels.shape[0] != s[0]) {
    throw DataLossError(
        fmt::format("{}: expected labels of shape ({},) to match {} images, found {}", labels_path,
                    s[0], s[0], labels.shape.to_tuple_string()));
  }
  for (std::size_t i = 0; i < labels.values.size(); ++i) {
    if (labels.values[i] > 9) {
      throw DataLossError(fmt::format("{}: label {} at index {} is outside [0, 10)", labels_path,
                                      labels.values[i], i));
    }
  }
  return {std::move(images), std::move(labels)};
}

}  // namespace

std::string data_directory(const std::string& directory) {
  if (!directory.empty()) return directory;
  const char* root = std::getenv("EAGLE_DATA_DIR");
  if (root != nullptr && *root != '\0') return std::string(root) + "/fashion-mnist";
  return kDebianDirectory;
}

std::pair<Split, Split> load_data(const std::string& directory) {
  const std::string dir = data_directory(directory);
  Split train = read_split(dir, "train");
  Split test = read_split(dir, "t10k");
  return {std::move(train), std::move(test)};
}

}  // namespace eagle::data::fashion_mnist
