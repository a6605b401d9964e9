#include "nccl_communicators.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "cuda_device_guard.hpp"
#include "eagle/errors.hpp"

namespace eagle::cuda {

NcclCommunicators::NcclCommunicators(const NcclLibrary& nccl, std::vector<CudaDevice*> devices)
    : nccl_(nccl), devices_(std::move(devices)) {
  std::vector<int> ordinals;
  ordinals.reserve(devices_.size());
  for (const CudaDevice* d : devices_) ordinals.push_back(d->ordinal());
  comms_.assign(devices_.size(), nullptr);
  // ncclCommInitAll makes each device current in turn; the caller's device is given back.
  const CudaDeviceGuard keep_current(ordinals.front());
  keep_current.check();
  std::string listing;
  for (int o : ordinals) listing += (listing.empty() ? "" : ", ") + std::to_string(o);
  check_nccl(nccl_,
             nccl_.comm_init_all(comms_.data(), static_cast<int>(ordinals.size()), ordinals.data()),
             fmt::format("ncclCommInitAll over CUDA devices [{}]", listing));
}

NcclCommunicators::~NcclCommunicators() {
  // No all-reduce may still be running on a communicator when it is destroyed.
  for (CudaDevice* device : devices_) {
    try {
      device->synchronize();
    } catch (const Error&) {
      // A device that failed reports it on its next use; the communicators go regardless.
    }
  }
  for (NcclComm comm : comms_) {
    if (comm != nullptr) nccl_.comm_destroy(comm);  // nothing to report from a destructor
  }
}

void NcclCommunicators::all_reduce_sum(const std::vector<const void*>& inputs,
                                       const std::vector<void*>& outputs, std::size_t count,
                                       std::size_t element_size, NcclDataType datatype,
                                       int chunks) {
  if (count == 0) return;
  const auto pieces = static_cast<std::size_t>(std::max(chunks, 1));
  const std::size_t per_piece = (count + pieces - 1) / pieces;
  std::lock_guard<std::mutex> lock(mutex_);
  check_nccl(nccl_, nccl_.group_start(), "ncclGroupStart");
  std::exception_ptr error;
  for (std::size_t rank = 0; rank < comms_.size() && !error; ++rank) {
    const auto* in = static_cast<const unsigned char*>(inputs[rank]);
    auto* out = static_cast<unsigned char*>(outputs[rank]);
    for (std::size_t begin = 0; begin < count; begin += per_piece) {
      const std::size_t n = std::min(per_piece, count - begin);
      const std::size_t offset = begin * element_size;
      try {
        check_nccl(nccl_,
                   nccl_.all_reduce(in + offset, out + offset, n, datatype, kNcclSum, comms_[rank],
                                    devices_[rank]->stream()),
                   fmt::format("ncclAllReduce on {}", devices_[rank]->name()));
      } catch (...) {
        error = std::current_exception();
        break;
      }
    }
  }
  // The group is always closed, also after a failed call inside it.
  const NcclResult ended = nccl_.group_end();
  if (error) std::rethrow_exception(error);
  check_nccl(nccl_, ended, "ncclGroupEnd");
}

}  // namespace eagle::cuda
