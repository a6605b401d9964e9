// eagle::data::Dataset (eagle/data/dataset.hpp): a tree of nodes, one iterator tree per pass.
#include "eagle/data/dataset.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <random>
#include <thread>

#include "data/host_tensor.hpp"
#include "eagle/errors.hpp"
#include "eagle/random_seed.hpp"
#include "eagle/scope.hpp"

namespace eagle::data {
namespace detail {

// One pass over a dataset: next() fills `out` and returns true, or returns false at the end.
class IteratorImpl {
 public:
  virtual ~IteratorImpl() = default;
  virtual bool next(Element& out) = 0;
};

// Nodes are shared; an iterator keeps its node alive (`auto it = make_dataset().begin();`).
class DatasetNode : public std::enable_shared_from_this<DatasetNode> {
 public:
  virtual ~DatasetNode() = default;
  virtual std::unique_ptr<IteratorImpl> make_iterator() const = 0;
  virtual std::int64_t cardinality() const = 0;
};

}  // namespace detail

namespace {

using detail::DatasetNode;
using detail::IteratorImpl;

// ---- from_tensor_slices -------------------------------------------------------------------

struct SliceSource {
  Tensor host;  // the component on the host (Note [Host tensors in eagle::data])
  Shape slice_shape;
  std::size_t slice_bytes = 0;
};

class TensorSliceNode final : public DatasetNode {
 public:
  TensorSliceNode(std::vector<SliceSource> sources, std::int64_t count)
      : sources_(std::move(sources)), count_(count) {}

  std::unique_ptr<IteratorImpl> make_iterator() const override {
    class Impl final : public IteratorImpl {
     public:
      explicit Impl(const TensorSliceNode& node)
          : keep_alive_(node.shared_from_this()), node_(node) {}
      bool next(Element& out) override {
        if (index_ >= node_.count_) return false;
        out.clear();
        for (const SliceSource& source : node_.sources_) {
          const auto* base =
              static_cast<const unsigned char*>(runtime::impl_of(source.host)->data());
          const unsigned char* slice = base + static_cast<std::size_t>(index_) * source.slice_bytes;
          out.push_back(
              make_host_tensor(source.slice_shape, source.host.dtype(), [&](unsigned char* dst) {
                if (source.slice_bytes) {
                  std::memcpy(dst, slice, source.slice_bytes);
                }
              }));
        }
        ++index_;
        return true;
      }

     private:
      std::shared_ptr<const DatasetNode> keep_alive_;
      const TensorSliceNode& node_;
      std::int64_t index_ = 0;
    };
    return std::make_unique<Impl>(*this);
  }
  std::int64_t cardinality() const override { return count_; }

 private:
  std::vector<SliceSource> sources_;
  std::int64_t count_;
};

// ---- shuffle ------------------------------------------------------------------------------

class ShuffleNode final : public DatasetNode {
 public:
  ShuffleNode(std::shared_ptr<const DatasetNode> input, std::int64_t buffer_size,
              std::uint64_t seed, bool reshuffle)
      : input_(std::move(input)), buffer_size_(buffer_size), seed_(seed), reshuffle_(reshuffle) {}

  std::unique_ptr<IteratorImpl> make_iterator() const override {
    const std::uint64_t iteration = reshuffle_ ? iterations_.fetch_add(1) : 0;
    class Impl final : public IteratorImpl {
     public:
      Impl(const ShuffleNode& node, std::uint64_t iteration)
          : input_(node.input_->make_iterator()), buffer_size_(node.buffer_size_) {
        // mt19937_64 is specified exactly by the standard, so a seed gives the same orders on
        // every platform (std::uniform_int_distribution is not, hence the modulo below).
        std::seed_seq seq{
            static_cast<std::uint32_t>(node.seed_), static_cast<std::uint32_t>(node.seed_ >> 32),
            static_cast<std::uint32_t>(iteration), static_cast<std::uint32_t>(iteration >> 32)};
        rng_.seed(seq);
      }
      bool next(Element& out) override {
        while (!input_done_ && static_cast<std::int64_t>(buffer_.size()) < buffer_size_) {
          Element e;
          if (!input_->next(e)) {
            input_done_ = true;
            break;
          }
          buffer_.push_back(std::move(e));
        }
        if (buffer_.empty()) return false;
        // tf.data's rule: a uniformly drawn buffer slot goes out and the next input element
        // takes its place (here: the last element fills the hole, and the refill comes next call).
        const std::size_t pick = static_cast<std::size_t>(rng_() % buffer_.size());
        out = std::move(buffer_[pick]);
        if (pick + 1 != buffer_.size()) buffer_[pick] = std::move(buffer_.back());
        buffer_.pop_back();
        return true;
      }

     private:
      std::unique_ptr<IteratorImpl> input_;
      std::int64_t buffer_size_;
      std::mt19937_64 rng_;
      std::vector<Element> buffer_;
      bool input_done_ = false;
    };
    return std::make_unique<Impl>(*this, iteration);
  }
  std::int64_t cardinality() const override { return input_->cardinality(); }

 private:
  std::shared_ptr<const DatasetNode> input_;
  std::int64_t buffer_size_;
  std::uint64_t seed_;
  bool reshuffle_;
  mutable std::atomic<std::uint64_t> iterations_{0};
};

// ---- batch --------------------------------------------------------------------------------

// Stacks the elements' components along a new first axis, on the host.
Element stack_elements(const std::vector<Element>& elements) {
  const Element& first = elements.front();
  Element batch;
  std::vector<unsigned char> staging;
  for (std::size_t c = 0; c < first.size(); ++c) {
    const Shape& shape = first[c].shape();
    const DType dtype = first[c].dtype();
    for (std::size_t i = 1; i < elements.size(); ++i) {
      if (elements[i].size() != first.size()) {
        throw InvalidArgumentError(fmt::format(
            "Cannot batch elements with different numbers of components: the first element had "
            "{} and element {} had {}.",
            first.size(), i, elements[i].size()));
      }
      const Tensor& t = elements[i][c];
      if (t.shape() != shape) {
        // TensorFlow's text (batch_util.cc).
        throw InvalidArgumentError(fmt::format(
            "Cannot batch tensors with different shapes in component {}. First element had shape "
            "{} and element {} had shape {}.",
            c, shape.to_string(), i, t.shape().to_string()));
      }
      if (t.dtype() != dtype) {
        throw InvalidArgumentError(fmt::format(
            "Cannot batch tensors with different dtypes in component {}. First element had dtype "
            "{} and element {} had dtype {}.",
            c, dtype_name(dtype), i, dtype_name(t.dtype())));
      }
    }
    Shape batch_shape{static_cast<std::int64_t>(elements.size())};
    for (std::int64_t d : shape) batch_shape.push_back(d);
    const std::size_t slice_bytes =
        static_cast<std::size_t>(shape.num_elements()) * dtype_size(dtype);
    batch.push_back(make_host_tensor(batch_shape, dtype, [&](unsigned char* dst) {
      for (std::size_t i = 0; i < elements.size(); ++i) {
        if (slice_bytes == 0) continue;
        std::memcpy(dst + i * slice_bytes, host_bytes(elements[i][c], staging), slice_bytes);
      }
    }));
  }
  return batch;
}

class BatchNode final : public DatasetNode {
 public:
  BatchNode(std::shared_ptr<const DatasetNode> input, std::int64_t batch_size, bool drop)
      : input_(std::move(input)), batch_size_(batch_size), drop_remainder_(drop) {}

  std::unique_ptr<IteratorImpl> make_iterator() const override {
    class Impl final : public IteratorImpl {
     public:
      explicit Impl(const BatchNode& node)
          : input_(node.input_->make_iterator()),
            batch_size_(node.batch_size_),
            drop_remainder_(node.drop_remainder_) {}
      bool next(Element& out) override {
        std::vector<Element> elements;
        elements.reserve(static_cast<std::size_t>(std::min<std::int64_t>(batch_size_, 4096)));
        while (static_cast<std::int64_t>(elements.size()) < batch_size_) {
          Element e;
          if (!input_->next(e)) break;
          elements.push_back(std::move(e));
        }
        if (elements.empty()) return false;
        if (drop_remainder_ && static_cast<std::int64_t>(elements.size()) < batch_size_) {
          return false;
        }
        out = stack_elements(elements);
        return true;
      }

     private:
      std::unique_ptr<IteratorImpl> input_;
      std::int64_t batch_size_;
      bool drop_remainder_;
    };
    return std::make_unique<Impl>(*this);
  }
  std::int64_t cardinality() const override {
    const std::int64_t n = input_->cardinality();
    if (n < 0) return n;
    return drop_remainder_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
  }

 private:
  std::shared_ptr<const DatasetNode> input_;
  std::int64_t batch_size_;
  bool drop_remainder_;
};

// ---- map ----------------------------------------------------------------------------------

class MapNode final : public DatasetNode {
 public:
  MapNode(std::shared_ptr<const DatasetNode> input, std::function<Element(const Element&)> fn)
      : input_(std::move(input)), fn_(std::move(fn)) {}

  std::unique_ptr<IteratorImpl> make_iterator() const override {
    class Impl final : public IteratorImpl {
     public:
      explicit Impl(const MapNode& node)
          : keep_alive_(node.shared_from_this()),
            input_(node.input_->make_iterator()),
            node_(node) {}
      bool next(Element& out) override {
        Element in;
        if (!input_->next(in)) return false;
        DeviceScope cpu("/CPU:0");
        out = node_.fn_(in);
        return true;
      }

     private:
      std::shared_ptr<const DatasetNode> keep_alive_;
      std::unique_ptr<IteratorImpl> input_;
      const MapNode& node_;
    };
    return std::make_unique<Impl>(*this);
  }
  std::int64_t cardinality() const override { return input_->cardinality(); }

 private:
  std::shared_ptr<const DatasetNode> input_;
  std::function<Element(const Element&)> fn_;
};

// ---- repeat -------------------------------------------------------------------------------

class RepeatNode final : public DatasetNode {
 public:
  RepeatNode(std::shared_ptr<const DatasetNode> input, std::int64_t count)
      : input_(std::move(input)), count_(count) {}

  std::unique_ptr<IteratorImpl> make_iterator() const override {
    class Impl final : public IteratorImpl {
     public:
      explicit Impl(const RepeatNode& node) : keep_alive_(node.shared_from_this()), node_(node) {}
      bool next(Element& out) override {
        while (node_.count_ < 0 || epoch_ < node_.count_) {
          if (!input_) {
            input_ = node_.input_->make_iterator();
            produced_this_epoch_ = false;
          }
          if (input_->next(out)) {
            produced_this_epoch_ = true;
            return true;
          }
          input_.reset();
          ++epoch_;
          // An epoch with no elements would repeat forever without producing one: stop, as
          // tf.data's repeat does for an empty input.
          if (!produced_this_epoch_) return false;
        }
        return false;
      }

     private:
      std::shared_ptr<const DatasetNode> keep_alive_;
      const RepeatNode& node_;
      std::unique_ptr<IteratorImpl> input_;
      std::int64_t epoch_ = 0;
      bool produced_this_epoch_ = false;
    };
    return std::make_unique<Impl>(*this);
  }
  // TensorFlow's RepeatDatasetOp::CardinalityInternal.
  std::int64_t cardinality() const override {
    const std::int64_t n = input_->cardinality();
    if (count_ < 0) return n == 0 ? 0 : kInfiniteCardinality;
    if (count_ == 0) return 0;
    if (n < 0) return n;
    return count_ * n;
  }

 private:
  std::shared_ptr<const DatasetNode> input_;
  std::int64_t count_;
};

// ---- take ---------------------------------------------------------------------------------

class TakeNode final : public DatasetNode {
 public:
  TakeNode(std::shared_ptr<const DatasetNode> input, std::int64_t count)
      : input_(std::move(input)), count_(count) {}

  std::unique_ptr<IteratorImpl> make_iterator() const override {
    class Impl final : public IteratorImpl {
     public:
      Impl(const TakeNode& node) : input_(node.input_->make_iterator()), count_(node.count_) {}
      bool next(Element& out) override {
        if (count_ >= 0 && taken_ >= count_) return false;
        if (!input_->next(out)) return false;
        ++taken_;
        return true;
      }

     private:
      std::unique_ptr<IteratorImpl> input_;
      std::int64_t count_;
      std::int64_t taken_ = 0;
    };
    return std::make_unique<Impl>(*this);
  }
  // TensorFlow's TakeDatasetOp::CardinalityInternal.
  std::int64_t cardinality() const override {
    const std::int64_t n = input_->cardinality();
    if (n == kUnknownCardinality) return n;
    if (count_ < 0) return n;
    if (n == kInfiniteCardinality) return count_;
    return std::min(n, count_);
  }

 private:
  std::shared_ptr<const DatasetNode> input_;
  std::int64_t count_;
};

// ---- prefetch -----------------------------------------------------------------------------

// Note [Prefetch thread]
// ~~~~~~~~~~~~~~~~~~~~~~
// The producer thread runs the input iterator and pushes elements into a bounded queue; a failure
// travels as an exception_ptr in the queue after the elements before it, so the consumer sees
// them in order and then the error (on the next() that would have returned the failed element).
// The iterator's destructor sets `cancelled`, wakes the producer and joins it: a producer blocked
// on a full queue leaves at once, one inside the input's next() leaves when that returns. All
// shared state is under one mutex (TSan-clean); the input iterator is touched only by the
// producer.
class PrefetchNode final : public DatasetNode {
 public:
  PrefetchNode(std::shared_ptr<const DatasetNode> input, std::int64_t buffer_size)
      : input_(std::move(input)), buffer_size_(buffer_size) {}

  std::unique_ptr<IteratorImpl> make_iterator() const override {
    class Impl final : public IteratorImpl {
     public:
      Impl(std::unique_ptr<IteratorImpl> input, std::size_t capacity)
          : input_(std::move(input)), capacity_(capacity) {
        producer_ = std::thread([this] { produce(); });
      }
      ~Impl() override {
        {
          std::lock_guard<std::mutex> lock(mutex_);
          cancelled_ = true;
        }
        space_.notify_all();
        producer_.join();
      }
      bool next(Element& out) override {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return !queue_.empty() || finished_; });
        if (queue_.empty()) {
          if (error_) {
            std::exception_ptr error = std::move(error_);
            error_ = nullptr;
            std::rethrow_exception(error);
          }
          return false;
        }
        out = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        space_.notify_one();
        return true;
      }

     private:
      void produce() {
        for (;;) {
          {
            std::unique_lock<std::mutex> lock(mutex_);
            space_.wait(lock, [&] { return cancelled_ || queue_.size() < capacity_; });
            if (cancelled_) return;
          }
          Element e;
          bool more = false;
          std::exception_ptr error;
          try {
            more = input_->next(e);
          } catch (...) {
            error = std::current_exception();
          }
          {
            std::lock_guard<std::mutex> lock(mutex_);
            if (more) {
              queue_.push_back(std::move(e));
            } else {
              error_ = std::move(error);
              finished_ = true;
            }
          }
          ready_.notify_one();
          if (!more) return;
        }
      }

      std::unique_ptr<IteratorImpl> input_;
      const std::size_t capacity_;
      std::mutex mutex_;
      std::condition_variable ready_;  // an element or the end is in the queue
      std::condition_variable space_;  // the queue has room, or the iterator is going away
      std::deque<Element> queue_;
      std::exception_ptr error_;
      bool finished_ = false;
      bool cancelled_ = false;
      std::thread producer_;  // last: started after every member it uses exists
    };
    if (buffer_size_ == 0) return input_->make_iterator();
    const std::int64_t capacity = buffer_size_ == kAutotune ? 2 : buffer_size_;
    return std::make_unique<Impl>(input_->make_iterator(), static_cast<std::size_t>(capacity));
  }
  std::int64_t cardinality() const override { return input_->cardinality(); }

 private:
  std::shared_ptr<const DatasetNode> input_;
  std::int64_t buffer_size_;
};

}  // namespace

// ---- Dataset ------------------------------------------------------------------------------

Dataset Dataset::from_tensor_slices(const std::vector<Tensor>& components) {
  if (components.empty()) {
    throw InvalidArgumentError("from_tensor_slices needs at least one component tensor");
  }
  std::vector<SliceSource> sources;
  std::int64_t count = -1;
  for (const Tensor& component : components) {
    if (!component.defined()) throw InvalidArgumentError("Use of an undefined eagle::Tensor");
    if (component.rank() == 0) {
      throw InvalidArgumentError("Unbatching a tensor is only supported for rank >= 1");
    }
    const std::int64_t rows = component.shape()[0];
    if (count >= 0 && rows != count) {
      // TensorFlow's text for components of different lengths.
      throw InvalidArgumentError(
          fmt::format("Dimensions {} and {} are not compatible", count, rows));
    }
    count = rows;
    SliceSource source;
    const auto& impl = runtime::impl_of(component);
    runtime::Device& host = runtime::Context::get().host_device();
    source.host = impl->device().host_accessible()
                      ? component
                      : runtime::wrap(runtime::copy_tensor(*impl, host));
    for (int axis = 1; axis < component.rank(); ++axis) {
      source.slice_shape.push_back(component.shape()[axis]);
    }
    source.slice_bytes =
        static_cast<std::size_t>(source.slice_shape.num_elements()) * dtype_size(component.dtype());
    sources.push_back(std::move(source));
  }
  return Dataset(std::make_shared<TensorSliceNode>(std::move(sources), count));
}

Dataset Dataset::shuffle(std::int64_t buffer_size, std::optional<std::uint64_t> seed,
                         bool reshuffle_each_iteration) const {
  if (buffer_size <= 0) throw InvalidArgumentError("buffer_size must be greater than zero.");
  return Dataset(std::make_shared<ShuffleNode>(node_, buffer_size, random::get_seed(seed),
                                               reshuffle_each_iteration));
}

Dataset Dataset::batch(std::int64_t batch_size, bool drop_remainder) const {
  if (batch_size <= 0) throw InvalidArgumentError("batch_size must be greater than zero.");
  return Dataset(std::make_shared<BatchNode>(node_, batch_size, drop_remainder));
}

Dataset Dataset::map(std::function<Element(const Element&)> fn) const {
  if (!fn) throw InvalidArgumentError("Dataset::map needs a function, got an empty one");
  return Dataset(std::make_shared<MapNode>(node_, std::move(fn)));
}

Dataset Dataset::repeat(std::int64_t count) const {
  return Dataset(std::make_shared<RepeatNode>(node_, count < 0 ? -1 : count));
}

Dataset Dataset::take(std::int64_t count) const {
  return Dataset(std::make_shared<TakeNode>(node_, count < 0 ? -1 : count));
}

Dataset Dataset::prefetch(std::int64_t buffer_size) const {
  if (buffer_size < 0 && buffer_size != kAutotune) {
    throw InvalidArgumentError(
        fmt::format("buffer_size must be >= 0 or AUTOTUNE (-1), got {}", buffer_size));
  }
  return Dataset(std::make_shared<PrefetchNode>(node_, buffer_size));
}

std::int64_t Dataset::cardinality() const { return node_->cardinality(); }

Dataset::Iterator Dataset::begin() const { return Iterator(node_->make_iterator()); }

// ---- Iterator -----------------------------------------------------------------------------

Dataset::Iterator::Iterator(std::unique_ptr<detail::IteratorImpl> impl) : impl_(std::move(impl)) {
  advance();
}
Dataset::Iterator::Iterator(Iterator&&) noexcept = default;
Dataset::Iterator& Dataset::Iterator::operator=(Iterator&&) noexcept = default;
Dataset::Iterator::~Iterator() = default;

Dataset::Iterator& Dataset::Iterator::operator++() {
  advance();
  return *this;
}

void Dataset::Iterator::advance() {
  if (done_) return;
  current_.clear();
  if (!impl_->next(current_)) {
    done_ = true;
    current_.clear();
  }
}

}  // namespace eagle::data
