// eagle::data::Dataset: tf.data's input pipeline over tensors, iterated with a range-for.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "eagle/tensor.hpp"

namespace eagle::data {

// One element of a dataset: its components, as the tuple a tf.data element is.
using Element = std::vector<Tensor>;

// tf.data.INFINITE_CARDINALITY, tf.data.UNKNOWN_CARDINALITY and tf.data.AUTOTUNE.
inline constexpr std::int64_t kInfiniteCardinality = -1;
inline constexpr std::int64_t kUnknownCardinality = -2;
inline constexpr std::int64_t kAutotune = -1;

namespace detail {
class DatasetNode;
class IteratorImpl;
}  // namespace detail

// A dataset is an immutable description of a pipeline (cheap to copy); each iteration (begin())
// runs it afresh, as each `for x in ds` does in TensorFlow. Elements and batches are CPU tensors
// built on the host; a model copies a batch to its device when an op there reads it.
//
//   auto ds = Dataset::from_tensor_slices({x, y}).shuffle(10000, 42).batch(128).prefetch(2);
//   for (const Element& batch : ds) { train_step(batch[0], batch[1]); }
class Dataset {
 public:
  class Iterator;
  struct Sentinel {};

  // tf.data.Dataset.from_tensor_slices((x, y)): element i is (x[i], y[i]). Every component must
  // have rank >= 1 and the same first dimension.
  static Dataset from_tensor_slices(const std::vector<Tensor>& components);

  // tf.data's shuffle: a buffer of buffer_size elements, each output drawn uniformly from it and
  // replaced by the next input element. With a seed the orders are deterministic: iteration k
  // (the k-th begin() on this dataset, or the k-th epoch under repeat) uses the k-th order when
  // reshuffle_each_iteration, else always the first. The seed is the one eagle::random::get_seed
  // gives (Note [Global and op seeds]): without either seed the orders differ in every run. Not
  // TensorFlow's random stream: the same seed gives other orders there.
  Dataset shuffle(std::int64_t buffer_size, std::optional<std::uint64_t> seed = std::nullopt,
                  bool reshuffle_each_iteration = true) const;
  // Stacks batch_size consecutive elements along a new first axis; the last, smaller batch is
  // kept unless drop_remainder. Components of different shapes are InvalidArgumentError.
  Dataset batch(std::int64_t batch_size, bool drop_remainder = false) const;
  // Applies fn to every element. fn runs under a "/CPU:0" device scope, as tf.data runs its
  // functions on the CPU, and on prefetch's thread when a prefetch follows; what it throws
  // reaches the loop that asked for the element.
  Dataset map(std::function<Element(const Element&)> fn) const;
  // The whole dataset `count` times, -1 meaning forever (an empty dataset stays empty).
  Dataset repeat(std::int64_t count = -1) const;
  // At most the first `count` elements; -1 means all.
  Dataset take(std::int64_t count) const;
  // Produces up to buffer_size elements ahead on a background thread (kAutotune: 2; 0: none).
  // Destroying the iterator early stops and joins the thread.
  Dataset prefetch(std::int64_t buffer_size) const;

  // The number of elements, kInfiniteCardinality or kUnknownCardinality, as tf.data computes it.
  std::int64_t cardinality() const;

  Iterator begin() const;
  Sentinel end() const { return {}; }

 private:
  explicit Dataset(std::shared_ptr<const detail::DatasetNode> node) : node_(std::move(node)) {}
  std::shared_ptr<const detail::DatasetNode> node_;
};

// An input iterator over one pass of a dataset; move-only (it may own prefetch's thread).
class Dataset::Iterator {
 public:
  explicit Iterator(std::unique_ptr<detail::IteratorImpl> impl);
  Iterator(Iterator&&) noexcept;
  Iterator& operator=(Iterator&&) noexcept;
  ~Iterator();

  const Element& operator*() const { return current_; }
  Element& operator*() { return current_; }
  const Element* operator->() const { return &current_; }
  Iterator& operator++();
  bool operator!=(Sentinel) const { return !done_; }
  bool operator==(Sentinel) const { return done_; }

 private:
  void advance();

  std::unique_ptr<detail::IteratorImpl> impl_;
  Element current_;
  bool done_ = false;
};

}  // namespace eagle::data
