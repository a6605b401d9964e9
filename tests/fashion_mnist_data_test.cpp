// Loads the real Fashion-MNIST from Debian's dataset-fashion-mnist (or $EAGLE_DATA_DIR) and
// checks what Keras's load_data gives. Exits 77 (ctest: skipped) where the files are absent.
#define CATCH_CONFIG_RUNNER
#include <sys/stat.h>
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>

#include "eagle/data.hpp"
#include "eagle/eagle.hpp"

namespace fm = eagle::data::fashion_mnist;

TEST_CASE("the real Fashion-MNIST loads as Keras's load_data") {
  const auto [train, test] = fm::load_data();
  CHECK(train.first.shape == eagle::Shape{60000, 28, 28});
  CHECK(train.second.shape == eagle::Shape{60000});
  CHECK(test.first.shape == eagle::Shape{10000, 28, 28});
  CHECK(test.second.shape == eagle::Shape{10000});
  std::array<int, 10> train_counts{};
  for (auto label : train.second.values) ++train_counts[label];
  std::array<int, 10> test_counts{};
  for (auto label : test.second.values) ++test_counts[label];
  for (int c = 0; c < 10; ++c) {
    CHECK(train_counts[c] == 6000);
    CHECK(test_counts[c] == 1000);
  }
  // The first labels of each split, as keras.datasets.fashion_mnist gives them.
  CHECK(std::vector<std::uint8_t>(train.second.values.begin(), train.second.values.begin() + 5) ==
        std::vector<std::uint8_t>{9, 0, 0, 3, 0});
  CHECK(std::vector<std::uint8_t>(test.second.values.begin(), test.second.values.begin() + 5) ==
        std::vector<std::uint8_t>{9, 2, 1, 1, 6});

  // The pipeline a training loop uses: float32 images scaled to [0, 1], batches of 128.
  const eagle::Tensor x = test.first.to_tensor(eagle::float32, 255);
  const eagle::Tensor y = test.second.to_tensor(eagle::int32);
  const auto ds = eagle::data::Dataset::from_tensor_slices({x, y}).shuffle(1000, 1).batch(128);
  CHECK(ds.cardinality() == 79);
  std::int64_t seen = 0;
  for (const auto& batch : ds) seen += batch[0].shape()[0];
  CHECK(seen == 10000);
}

int main(int argc, char* argv[]) {
  const std::string file = fm::data_directory() + "/train-images-idx3-ubyte.gz";
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) {
    std::printf("SKIP: %s is absent (Debian: apt-get install dataset-fashion-mnist)\n",
                file.c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
