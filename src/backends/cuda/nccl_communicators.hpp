// One NCCL communicator per CUDA device of a set, made together with ncclCommInitAll in this
// process, and the grouped all-reduce over them (Note [NcclAllReduce] in
// src/distribute/nccl_all_reduce.cpp).
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "cuda_device.hpp"
#include "nccl_library.hpp"

namespace eagle::cuda {

class NcclCommunicators {
 public:
  // ncclCommInitAll over the devices' CUDA ordinals, rank i on devices[i]; the ordinals must be
  // distinct (NCCL refuses two ranks on one GPU). Throws (check_nccl) when NCCL fails.
  NcclCommunicators(const NcclLibrary& nccl, std::vector<CudaDevice*> devices);
  ~NcclCommunicators();  // waits for each device, then ncclCommDestroy of each
  NcclCommunicators(const NcclCommunicators&) = delete;
  NcclCommunicators& operator=(const NcclCommunicators&) = delete;

  const std::vector<CudaDevice*>& devices() const { return devices_; }

  // outputs[i] = the sum over ranks of inputs[i], `count` elements of `datatype` on devices[i],
  // queued on each device's stream in one ncclGroupStart/End from this thread (the call returns
  // once every rank's work is queued). Each buffer goes as `chunks` >= 1 contiguous
  // ncclAllReduce calls of nearly equal size. One call at a time per communicator set.
  void all_reduce_sum(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                      std::size_t count, std::size_t element_size, NcclDataType datatype,
                      int chunks);

 private:
  const NcclLibrary& nccl_;
  std::vector<CudaDevice*> devices_;
  std::vector<NcclComm> comms_;
  std::mutex mutex_;  // NCCL communicators are not thread-safe
};

}  // namespace eagle::cuda
