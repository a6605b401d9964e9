// How MirroredStrategy combines one value per replica (TensorFlow's tf.distribute.CrossDeviceOps).
#pragma once

#include <memory>
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
  // MirroredStrategy calls this once at construction with its devices (full names): an op that
  // cannot run on them throws here (InvalidArgumentError), not at the first step, and may set up
  // what it needs for them. The default accepts every device set.
  virtual void prepare(const std::vector<std::string>& devices) { (void)devices; }
};

// TensorFlow's ReductionToOneDevice: copies every value to one device, AddN there (divided by the
// count for MEAN), then copies the result to each destination (Identity). The device is
// `reduce_to_device`, else the first destination. Logs TensorFlow's
// "Reduce to <device> then broadcast to (<destinations>)." at INFO, the first 10 times.
//
// MirroredStrategy selects it for virtual GPUs, simulated GPUs, CPUs, and distinct CUDA GPUs when
// NCCL cannot be loaded (Note [MirroredStrategy construction log]).
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

namespace detail {
class NcclCommunicatorCache;
}

// TensorFlow's NcclAllReduce: NVIDIA NCCL's all-reduce (sum) across distinct physical CUDA GPUs,
// NCCL being loaded at run time (Note [NcclAllReduce] in src/distribute/nccl_all_reduce.cpp).
// MirroredStrategy selects it for replicas on distinct CUDA GPUs when NCCL loads. all_reduce
// sums values[i] (on destinations[i]'s GPU; copied there first if it is elsewhere) into a fresh
// buffer on each GPU with one grouped NCCL call per value, each value sent as `num_packs`
// contiguous pieces (0 and 1: one piece; MirroredStrategy has already packed the gradients into
// one flat buffer per dtype). Communicators are made once per device set with ncclCommInitAll.
// dtypes: float32, float64, float16, bfloat16, int32, int64. reduce() to one destination goes
// through ReductionToOneDevice, as TensorFlow's does.
class NcclAllReduce : public CrossDeviceOps {
 public:
  // num_packs < 0: InvalidArgumentError "NCCL all-reduce requires num_packs >= 0, but <n> is
  // specified" (TensorFlow's ValueError).
  explicit NcclAllReduce(int num_packs = 1);
  ~NcclAllReduce() override;
  std::string name() const override { return "NcclAllReduce"; }
  int num_packs() const { return num_packs_; }
  Tensor reduce(ReduceOp op, const std::vector<Tensor>& values,
                const std::string& destination) override;
  std::vector<Tensor> all_reduce(ReduceOp op, const std::vector<Tensor>& values,
                                 const std::vector<std::string>& destinations) override;
  // InvalidArgumentError "NcclAllReduce cannot run on (<devices>): <reason>" unless the devices
  // are distinct CUDA GPUs of this process and NCCL loads; then makes their communicators.
  void prepare(const std::vector<std::string>& devices) override;

 private:
  int num_packs_;
  ReductionToOneDevice to_one_device_;
  std::unique_ptr<detail::NcclCommunicatorCache> communicators_;
};

}  // namespace eagle::distribute
