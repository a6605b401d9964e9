// eagle::data: the IDX reader (gzip and plain files written here), Fashion-MNIST's load_data over
// synthetic files, and Dataset (slices, shuffle, batch, map, repeat, take, prefetch). Runs with
// two simulated GPUs: a dataset's elements are CPU tensors even when its inputs are on a GPU.
#include <stdlib.h>
#include <zlib.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "eagle/data.hpp"
#include "eagle/eagle.hpp"
#include "temp_files.hpp"

namespace {

using eagle_test::error_text;
using eagle_test::TempDir;

namespace fs = std::filesystem;
using eagle::Shape;
using eagle::Tensor;
using eagle::data::Dataset;
using eagle::data::Element;

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";

// A fresh directory under the system's temporary directory, removed at scope exit.
std::vector<unsigned char> idx_bytes(unsigned char type, const std::vector<std::uint32_t>& dims,
                                     const std::vector<unsigned char>& values) {
  std::vector<unsigned char> out{0, 0, type, static_cast<unsigned char>(dims.size())};
  for (std::uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back((d >> shift) & 0xFF);
  }
  out.insert(out.end(), values.begin(), values.end());
  return out;
}

void write_plain(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

void write_gzip(const std::string& path, const std::vector<unsigned char>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) ==
          static_cast<int>(bytes.size()));
  gzclose(f);
}

std::vector<unsigned char> pattern(std::size_t n, unsigned mul = 7, unsigned add = 3) {
  std::vector<unsigned char> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>((i * mul + add) % 256);
  return v;
}

std::vector<std::int32_t> column(const Dataset& ds, std::size_t component = 0) {
  std::vector<std::int32_t> out;
  for (const Element& e : ds) {
    for (std::int32_t v : e[component].to_vector<std::int32_t>()) out.push_back(v);
  }
  return out;
}

Dataset range_dataset(int n) { return Dataset::from_tensor_slices({eagle::range(n)}); }

}  // namespace

// ---- IDX ------------------------------------------------------------------------------------

TEST_CASE("read_idx reads plain and gzipped unsigned-byte IDX files exactly") {
  TempDir dir("eagle_data_test");
  const std::vector<unsigned char> values = pattern(2 * 3 * 4);
  write_plain(dir.file("images-idx3-ubyte"), idx_bytes(0x08, {2, 3, 4}, values));
  write_gzip(dir.file("images-idx3-ubyte.gz"), idx_bytes(0x08, {2, 3, 4}, values));
  for (const std::string name : {"images-idx3-ubyte", "images-idx3-ubyte.gz"}) {
    const eagle::data::IdxArray a = eagle::data::read_idx(dir.file(name));
    CHECK(a.shape == Shape{2, 3, 4});
    CHECK(a.values == values);
  }
  write_gzip(dir.file("labels.gz"), idx_bytes(0x08, {5}, {9, 0, 3, 255, 1}));
  const eagle::data::IdxArray labels = eagle::data::read_idx(dir.file("labels.gz"));
  CHECK(labels.shape == Shape{5});
  CHECK(labels.values == std::vector<std::uint8_t>{9, 0, 3, 255, 1});
  write_plain(dir.file("empty"), idx_bytes(0x08, {0, 28}, {}));
  CHECK(eagle::data::read_idx(dir.file("empty")).shape == Shape{0, 28});
}

TEST_CASE("IdxArray converts to int and floating tensors on the CPU, divided as NumPy divides") {
  eagle::data::IdxArray a{Shape{2, 2}, {0, 1, 128, 255}};
  const Tensor labels = a.to_tensor(eagle::int32);
  CHECK(labels.dtype() == eagle::int32);
  CHECK(labels.shape() == Shape{2, 2});
  CHECK(labels.device() == kCpu0);
  CHECK(labels.to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1, 128, 255});
  CHECK(a.to_tensor(eagle::int64).to_vector<std::int64_t>() ==
        std::vector<std::int64_t>{0, 1, 128, 255});
  const Tensor images = a.to_tensor(eagle::float32, 255);
  CHECK(images.to_vector<float>() == std::vector<float>{0.f, static_cast<float>(1 / 255.0),
                                                        static_cast<float>(128 / 255.0), 1.f});
  CHECK(a.to_tensor(eagle::float64, 255).to_vector<double>()[1] == 1 / 255.0);
  CHECK(a.to_tensor(eagle::float32).to_vector<float>()[3] == 255.f);
  CHECK(error_text([&] { a.to_tensor(eagle::int32, 255); }) ==
        "IdxArray::to_tensor: dividing by 255 needs a floating dtype, got int32");
  CHECK_THROWS_AS(a.to_tensor(eagle::kBool), eagle::InvalidArgumentError);
}

TEST_CASE("read_idx errors name the file and what was expected") {
  TempDir dir("eagle_data_test");
  const std::string missing = dir.file("missing.gz");
  CHECK_THROWS_AS(eagle::data::read_idx(missing), eagle::NotFoundError);
  CHECK(error_text([&] { eagle::data::read_idx(missing); }) ==
        missing + "; No such file or directory");

  const std::string bad = dir.file("bad");
  write_plain(bad, {0x12, 0x34, 0x56, 0x78, 0, 0, 0, 1, 0});
  CHECK_THROWS_AS(eagle::data::read_idx(bad), eagle::DataLossError);
  CHECK(error_text([&] { eagle::data::read_idx(bad); }) ==
        bad +
            ": bad IDX magic number 0x12345678: expected 0x0000 followed by a type byte (0x08 for "
            "unsigned bytes) and the rank, as 0x00000803 for images and 0x00000801 for labels");

  const std::string floats = dir.file("floats");
  write_plain(floats, idx_bytes(0x0D, {1}, {0, 0, 0, 0}));
  CHECK_THROWS_AS(eagle::data::read_idx(floats), eagle::UnimplementedError);
  CHECK(error_text([&] { eagle::data::read_idx(floats); }) ==
        floats +
            ": IDX element type 0x0D (float32) is not supported: eagle reads unsigned-byte IDX "
            "files (type 0x08)");

  const std::string tiny = dir.file("tiny");
  write_plain(tiny, {0, 0});
  CHECK(error_text([&] { eagle::data::read_idx(tiny); }) ==
        tiny + ": truncated IDX file: expected a 4-byte magic number, found 2 bytes");

  const std::string header = dir.file("header");
  write_plain(header, {0, 0, 8, 3, 0, 0, 0, 2, 0, 0});
  CHECK_THROWS_AS(eagle::data::read_idx(header), eagle::DataLossError);
  CHECK(error_text([&] { eagle::data::read_idx(header); }) ==
        header + ": truncated IDX file: expected a 16-byte header for rank 3, found 10 bytes");

  const std::string truncated = dir.file("truncated.gz");
  std::vector<unsigned char> bytes = idx_bytes(0x08, {3, 28, 28}, pattern(3 * 28 * 28));
  bytes.resize(bytes.size() - 100);
  write_gzip(truncated, bytes);
  CHECK_THROWS_AS(eagle::data::read_idx(truncated), eagle::DataLossError);
  CHECK(error_text([&] { eagle::data::read_idx(truncated); }) ==
        truncated +
            ": truncated IDX file: expected 2352 bytes of values for shape (3, 28, 28), found "
            "2252");

  const std::string longer = dir.file("longer");
  bytes = idx_bytes(0x08, {2}, {1, 2, 3});
  write_plain(longer, bytes);
  CHECK(error_text([&] { eagle::data::read_idx(longer); }) ==
        longer +
            ": IDX file longer than its header says: expected 2 bytes of values for shape (2,), "
            "found more");

  // A gzip stream cut in the middle: zlib reports the early end of the compressed data.
  const std::string cut = dir.file("cut.gz");
  write_gzip(cut, idx_bytes(0x08, {64, 64}, pattern(64 * 64, 13, 5)));
  const auto size = fs::file_size(cut);
  fs::resize_file(cut, size / 2);
  CHECK_THROWS_AS(eagle::data::read_idx(cut), eagle::DataLossError);
  CHECK(error_text([&] { eagle::data::read_idx(cut); }) ==
        cut + ": truncated gzip data: unexpected end of file");

  const std::string directory = dir.path();
  CHECK_THROWS_AS(eagle::data::read_idx(directory), eagle::Error);
}

// ---- Fashion-MNIST over synthetic files -------------------------------------------------------

namespace {

void write_fashion_files(const std::string& dir, std::uint32_t train, std::uint32_t test) {
  fs::create_directories(dir);
  auto labels = [](std::uint32_t n) {
    std::vector<unsigned char> v(n);
    for (std::uint32_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>(i % 10);
    return v;
  };
  write_gzip(dir + "/train-images-idx3-ubyte.gz",
             idx_bytes(0x08, {train, 28, 28}, pattern(train * 784)));
  write_gzip(dir + "/train-labels-idx1-ubyte.gz", idx_bytes(0x08, {train}, labels(train)));
  write_gzip(dir + "/t10k-images-idx3-ubyte.gz",
             idx_bytes(0x08, {test, 28, 28}, pattern(test * 784, 3, 1)));
  // The test labels uncompressed: load_data takes either spelling.
  write_plain(dir + "/t10k-labels-idx1-ubyte", idx_bytes(0x08, {test}, labels(test)));
}

// Sets an environment variable for one scope, restoring the old value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_.empty()) {
      unsetenv(name_);
    } else {
      setenv(name_, old_.c_str(), 1);
    }
  }

 private:
  const char* name_;
  std::string old_;
};

}  // namespace

TEST_CASE("fashion_mnist load_data reads a directory, EAGLE_DATA_DIR or Debian's path") {
  TempDir dir("eagle_data_test");
  write_fashion_files(dir.file("fashion-mnist"), 5, 3);
  {
    ScopedEnv env("EAGLE_DATA_DIR", nullptr);
    CHECK(eagle::data::fashion_mnist::data_directory() == "/usr/share/datasets/fashion-mnist");
    CHECK(eagle::data::fashion_mnist::data_directory("/x") == "/x");
    const auto [train, test] = eagle::data::fashion_mnist::load_data(dir.file("fashion-mnist"));
    CHECK(train.first.shape == Shape{5, 28, 28});
    CHECK(train.first.values == pattern(5 * 784));
    CHECK(train.second.values == std::vector<std::uint8_t>{0, 1, 2, 3, 4});
    CHECK(test.first.shape == Shape{3, 28, 28});
    CHECK(test.first.values == pattern(3 * 784, 3, 1));
    CHECK(test.second.values == std::vector<std::uint8_t>{0, 1, 2});
  }
  {
    ScopedEnv env("EAGLE_DATA_DIR", dir.path().c_str());
    CHECK(eagle::data::fashion_mnist::data_directory() == dir.path() + "/fashion-mnist");
    CHECK(eagle::data::fashion_mnist::load_data().first.first.shape == Shape{5, 28, 28});
  }
}

TEST_CASE("fashion_mnist load_data errors name the file") {
  TempDir dir("eagle_data_test");
  const std::string empty = dir.file("empty");
  fs::create_directories(empty);
  CHECK_THROWS_AS(eagle::data::fashion_mnist::load_data(empty), eagle::NotFoundError);
  CHECK(error_text([&] { eagle::data::fashion_mnist::load_data(empty); }) ==
        empty +
            "/train-images-idx3-ubyte.gz; No such file or directory (Fashion-MNIST: install "
            "Debian's dataset-fashion-mnist, set EAGLE_DATA_DIR to a directory holding "
            "fashion-mnist/, or pass the directory to load_data)");

  const std::string d = dir.file("mismatch");
  write_fashion_files(d, 4, 2);
  write_gzip(d + "/train-labels-idx1-ubyte.gz", idx_bytes(0x08, {3}, {0, 1, 2}));
  CHECK_THROWS_AS(eagle::data::fashion_mnist::load_data(d), eagle::DataLossError);
  CHECK(error_text([&] { eagle::data::fashion_mnist::load_data(d); }) ==
        d + "/train-labels-idx1-ubyte.gz: expected labels of shape (4,) to match 4 images, "
            "found (3,)");

  write_gzip(d + "/train-labels-idx1-ubyte.gz", idx_bytes(0x08, {4}, {0, 1, 10, 2}));
  CHECK(error_text([&] { eagle::data::fashion_mnist::load_data(d); }) ==
        d + "/train-labels-idx1-ubyte.gz: label 10 at index 2 is outside [0, 10)");

  write_gzip(d + "/train-images-idx3-ubyte.gz", idx_bytes(0x08, {4, 27, 28}, pattern(4 * 27 * 28)));
  CHECK(error_text([&] { eagle::data::fashion_mnist::load_data(d); }) ==
        d + "/train-images-idx3-ubyte.gz: expected images of shape (n, 28, 28), found "
            "(4, 27, 28)");
}

// ---- Dataset ----------------------------------------------------------------------------------

TEST_CASE("from_tensor_slices yields CPU slices of every component in order") {
  const Tensor x = eagle::with_device("/GPU:0", [] {
    return eagle::identity(eagle::constant(std::vector<float>{0, 1, 2, 3, 4, 5}, {3, 2}));
  });
  const Tensor y = eagle::constant(std::vector<std::int64_t>{7, 8, 9});
  CHECK(x.device() == kGpu0);  // on the simulated GPU
  const Dataset ds = Dataset::from_tensor_slices({x, y});
  CHECK(ds.cardinality() == 3);
  int i = 0;
  for (const Element& e : ds) {
    REQUIRE(e.size() == 2);
    CHECK(e[0].shape() == Shape{2});
    CHECK(e[0].device() == kCpu0);
    CHECK(e[0].to_vector<float>() == std::vector<float>{2.f * i, 2.f * i + 1});
    CHECK(e[1].shape() == Shape{});
    CHECK(e[1].item<std::int64_t>() == 7 + i);
    ++i;
  }
  CHECK(i == 3);
  // Each range-for is a fresh pass.
  CHECK(column(range_dataset(4)) == std::vector<std::int32_t>{0, 1, 2, 3});
}

TEST_CASE("from_tensor_slices rejects scalars and different lengths as tf.data does") {
  CHECK(error_text([] { Dataset::from_tensor_slices({eagle::constant(1)}); }) ==
        "Unbatching a tensor is only supported for rank >= 1");
  CHECK(error_text([] {
          Dataset::from_tensor_slices({eagle::range(3), eagle::range(2)});
        }) == "Dimensions 3 and 2 are not compatible");
  CHECK_THROWS_AS(Dataset::from_tensor_slices({}), eagle::InvalidArgumentError);
}

TEST_CASE("batch stacks slices and keeps or drops the remainder") {
  const Dataset ds =
      Dataset::from_tensor_slices({eagle::reshape(eagle::range(20), {10, 2}), eagle::range(10)});
  const Dataset kept = ds.batch(4);
  CHECK(kept.cardinality() == 3);
  std::vector<Shape> shapes;
  for (const Element& b : kept) {
    shapes.push_back(b[0].shape());
    CHECK(b[0].device() == kCpu0);
  }
  CHECK(shapes == std::vector<Shape>{Shape{4, 2}, Shape{4, 2}, Shape{2, 2}});
  CHECK(column(kept, 1) == column(ds, 1));
  auto it = kept.begin();
  CHECK((*it)[0].to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7});

  const Dataset dropped = ds.batch(4, /*drop_remainder=*/true);
  CHECK(dropped.cardinality() == 2);
  CHECK(column(dropped, 1) == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(ds.batch(5, true).cardinality() == 2);
  CHECK(ds.batch(11, true).cardinality() == 0);
  CHECK(column(ds.batch(11, true)).empty());
  CHECK(ds.batch(11).cardinality() == 1);
  CHECK(error_text([&] { ds.batch(0); }) == "batch_size must be greater than zero.");

  // Elements of different shapes (from map) cannot be stacked: TensorFlow's message.
  const Dataset ragged = range_dataset(3).map(
      [](const Element& e) { return Element{eagle::range(e[0].item<std::int32_t>() + 1)}; });
  CHECK_THROWS_AS(column(ragged.batch(2)), eagle::InvalidArgumentError);
  CHECK(error_text([&] { column(ragged.batch(2)); }) ==
        "Cannot batch tensors with different shapes in component 0. First element had shape [1] "
        "and element 1 had shape [2].");
}

TEST_CASE("repeat and take count elements as tf.data does") {
  const Dataset ds = range_dataset(3);
  CHECK(column(ds.repeat(2)) == std::vector<std::int32_t>{0, 1, 2, 0, 1, 2});
  CHECK(ds.repeat(2).cardinality() == 6);
  CHECK(ds.repeat().cardinality() == eagle::data::kInfiniteCardinality);
  CHECK(column(ds.repeat().take(7)) == std::vector<std::int32_t>{0, 1, 2, 0, 1, 2, 0});
  CHECK(ds.repeat().take(7).cardinality() == 7);
  CHECK(column(ds.take(2)) == std::vector<std::int32_t>{0, 1});
  CHECK(ds.take(5).cardinality() == 3);
  CHECK(ds.take(-1).cardinality() == 3);
  CHECK(column(ds.take(0)).empty());
  CHECK(ds.repeat(0).cardinality() == 0);
  CHECK(column(ds.repeat(0)).empty());
  const Dataset empty = ds.take(0);
  CHECK(empty.repeat().cardinality() == 0);
  CHECK(column(empty.repeat()).empty());  // ends instead of looping forever
  CHECK(ds.repeat(2).batch(4).cardinality() == 2);
  CHECK(column(ds.repeat(2).batch(4)) == std::vector<std::int32_t>{0, 1, 2, 0, 1, 2});
}

TEST_CASE("shuffle is a permutation, deterministic for a seed, reshuffled each iteration") {
  const Dataset ds = range_dataset(100);
  const Dataset shuffled = ds.shuffle(30, 42);
  const std::vector<std::int32_t> first = column(shuffled);
  std::vector<std::int32_t> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == column(ds));
  CHECK(first != column(ds));
  CHECK(shuffled.cardinality() == 100);
  // Iteration k of a dataset built with the same seed gives the same order.
  const std::vector<std::int32_t> second = column(shuffled);
  CHECK(second != first);
  const Dataset again = ds.shuffle(30, 42);
  CHECK(column(again) == first);
  CHECK(column(again) == second);
  // reshuffle_each_iteration=false repeats the first order.
  const Dataset fixed = ds.shuffle(30, 42, false);
  CHECK(column(fixed) == first);
  CHECK(column(fixed) == first);
  // Under repeat, each epoch is a new iteration of the shuffle.
  const std::vector<std::int32_t> two_epochs = column(ds.shuffle(30, 42).repeat(2));
  CHECK(std::vector<std::int32_t>(two_epochs.begin(), two_epochs.begin() + 100) == first);
  CHECK(std::vector<std::int32_t>(two_epochs.begin() + 100, two_epochs.end()) == second);
  // A buffer of one shuffles nothing; a buffer of n bounds how far an element moves forward.
  CHECK(column(ds.shuffle(1, 7)) == column(ds));
  const std::vector<std::int32_t> local = column(ds.shuffle(5, 7));
  for (std::size_t i = 0; i < local.size(); ++i) CHECK(local[i] <= static_cast<int>(i) + 4);
  CHECK(error_text([&] { ds.shuffle(0); }) == "buffer_size must be greater than zero.");
  // Without a seed the order still is a permutation.
  std::vector<std::int32_t> unseeded = column(ds.shuffle(100));
  std::sort(unseeded.begin(), unseeded.end());
  CHECK(unseeded == column(ds));
}

TEST_CASE("map applies a function on the CPU and its errors reach the loop") {
  const Dataset doubled = range_dataset(4).map([](const Element& e) {
    CHECK(eagle::current_device_spec() == kCpu0);
    return Element{e[0] * eagle::constant(2), e[0]};
  });
  CHECK(doubled.cardinality() == 4);
  CHECK(column(doubled, 0) == std::vector<std::int32_t>{0, 2, 4, 6});
  CHECK(column(doubled, 1) == std::vector<std::int32_t>{0, 1, 2, 3});
  const Dataset failing = range_dataset(4).map([](const Element& e) {
    if (e[0].item<std::int32_t>() == 2) throw eagle::InvalidArgumentError("bad element 2");
    return e;
  });
  std::vector<std::int32_t> seen;
  CHECK(error_text([&] {
          for (const Element& e : failing) seen.push_back(e[0].item<std::int32_t>());
        }) == "bad element 2");
  CHECK(seen == std::vector<std::int32_t>{0, 1});
}

TEST_CASE("prefetch gives the same elements, stops early and delivers producer errors") {
  const Dataset ds = range_dataset(50).shuffle(10, 3, false).batch(4);
  CHECK(column(ds.prefetch(2)) == column(ds));
  CHECK(column(ds.prefetch(eagle::data::kAutotune)) == column(ds));
  CHECK(column(ds.prefetch(0)) == column(ds));
  CHECK(ds.prefetch(2).cardinality() == 13);
  CHECK(error_text([&] { ds.prefetch(-2); }) ==
        "buffer_size must be >= 0 or AUTOTUNE (-1), got -2");

  // Early destruction: an infinite pipeline, left after three elements, joins its thread.
  std::atomic<int> produced{0};
  const Dataset endless = range_dataset(5).repeat().map([&](const Element& e) {
    ++produced;
    return e;
  });
  for (int round = 0; round < 20; ++round) {
    int taken = 0;
    for (const Element& e : endless.prefetch(3)) {
      (void)e;
      if (++taken == 3) break;
    }
    CHECK(taken == 3);
  }
  CHECK(produced.load() >= 60);
  { auto it = endless.prefetch(1).begin(); }  // destroyed before reading anything more

  // An exception from map on the producer thread reaches the consumer after the elements before.
  const Dataset failing = range_dataset(10).map([](const Element& e) {
    if (e[0].item<std::int32_t>() == 6) throw eagle::OutOfRangeError("map failed at 6");
    return e;
  });
  std::vector<std::int32_t> seen;
  CHECK_THROWS_AS(
      [&] {
        for (const Element& e : failing.prefetch(4)) seen.push_back(e[0].item<std::int32_t>());
      }(),
      eagle::OutOfRangeError);
  CHECK(seen == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("a dataset outlives the expression that built it") {
  auto it = range_dataset(3).map([](const Element& e) { return e; }).repeat(2).begin();
  std::vector<std::int32_t> seen;
  for (; it != Dataset::Sentinel{}; ++it) seen.push_back((*it)[0].item<std::int32_t>());
  CHECK(seen == std::vector<std::int32_t>{0, 1, 2, 0, 1, 2});
}
