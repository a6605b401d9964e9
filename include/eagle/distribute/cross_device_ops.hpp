// How MirroredStrategy combines one value per replica (TensorFlow's tf.distribute.CrossDeviceOps).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "eagle/distribute/per_replica.hpp"
#include "eagle/tensor.hpp"

namespace eagle::distribute {

// values[i] is replica i's value; all have one shape and dtype (InvalidArgumentError otherwise,
// from AddN).
class CrossDeviceOps {
 public:
  virtual ~CrossDeviceOps() = default;
  virtual std::string name() const = 0;
  // The sum (or mean) of the values, on `destination`.
  virtual Tensor reduce(ReduceOp op, const std::vector<Tensor>& values,
                        const std::string& destination) = 0;
  // The sum (or mean) of the values, one copy on each of `destinations` (bit-identical copies).
  virtual std::vector<Tensor> all_reduce(ReduceOp op, const std::vector<Tensor>& values,
                                         const std::vector<std::string>& destinations) = 0;
};

// TensorFlow's ReductionToOneDevice: copies every value to one device, AddN there (divided by the
// count for MEAN), then copies the result to each destination (Identity). The device is
// `reduce_to_device`, else the first destination. Logs TensorFlow's
// "Reduce to <device> then broadcast to (<destinations>)." at INFO, the first 10 times.
//
// It is what eagle uses on every kind of device today. NcclAllReduce (NCCL's all-reduce across
// distinct physical CUDA GPUs) is owed: until it exists a strategy over distinct CUDA GPUs
// selects this one, with TensorFlow's "Nccl kernel is not found" warning.
class ReductionToOneDevice : public CrossDeviceOps {
 public:
  explicit ReductionToOneDevice(std::optional<std::string> reduce_to_device = std::nullopt);
  std::string name() const override { return "ReductionToOneDevice"; }
  Tensor reduce(ReduceOp op, const std::vector<Tensor>& values,
                const std::string& destination) override;
  std::vector<Tensor> all_reduce(ReduceOp op, const std::vector<Tensor>& values,
                                 const std::vector<std::string>& destinations) override;

 private:
  Tensor sum_on(const std::string& device, ReduceOp op, const std::vector<Tensor>& values,
                const std::vector<std::string>& destinations);
  std::optional<std::string> reduce_to_device_;
};

}  // namespace eagle::distribute
