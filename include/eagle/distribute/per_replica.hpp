// eagle::distribute::PerReplica<T>: one value per replica, what MirroredStrategy::run returns and
// takes (TensorFlow's PerReplica).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "eagle/tensor.hpp"

namespace eagle::distribute {

enum class ReduceOp { kSum, kMean };

template <class T>
class PerReplica {
 public:
  PerReplica() = default;
  explicit PerReplica(std::vector<T> values) : values_(std::move(values)) {}

  std::size_t size() const { return values_.size(); }
  const T& operator[](std::size_t replica) const { return values_.at(replica); }
  T& operator[](std::size_t replica) { return values_.at(replica); }
  const std::vector<T>& values() const { return values_; }
  auto begin() const { return values_.begin(); }
  auto end() const { return values_.end(); }

 private:
  std::vector<T> values_;
};

// TensorFlow's form:
//   PerReplica:{
//     0: eagle.Tensor(1.0, shape=(), dtype=float32, device=.../device:GPU:0),
//     1: eagle.Tensor(2.0, shape=(), dtype=float32, device=.../device:GPU:1)
//   }
std::string to_string(const PerReplica<Tensor>& value);
std::ostream& operator<<(std::ostream& os, const PerReplica<Tensor>& value);

}  // namespace eagle::distribute
