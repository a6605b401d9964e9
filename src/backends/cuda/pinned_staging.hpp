// Host <-> device copies through page-locked (pinned) staging buffers.
//
// Pageable host memory cannot be read by the GPU's copy engines directly: the driver stages it
// anyway, synchronously for device -> host. Owning the staging buffers lets an upload return as
// soon as the bytes are in pinned memory and the copy is queued (the op that made the tensor does
// not wait for the GPU), and lets large transfers overlap the host-side memcpy of one chunk with
// the DMA of the previous one. Each buffer carries an event: it is reused only once the copy that
// last used it has finished.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <vector>

namespace eagle::cuda {

class PinnedStaging {
 public:
  // Buffers are made on first use, with device `ordinal` current (their events belong to it).
  explicit PinnedStaging(int ordinal) : ordinal_(ordinal) {}
  ~PinnedStaging();
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;

  // Queues host `src` -> device `dst` on `stream`; returns once `src` may be reused (the copy
  // itself may still be running). The caller has made device `ordinal` current.
  void upload(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);
  // Device `src` -> host `dst`, queued on `stream` behind the work that produces `src`; returns
  // when the bytes are in `dst`, having waited for that copy only.
  void download(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);

  static constexpr std::size_t kChunkBytes = std::size_t{4} << 20;
  static constexpr int kNumBuffers = 4;

 private:
  struct Buffer {
    void* host = nullptr;
    cudaEvent_t done = nullptr;  // recorded after the last copy through `host`
    bool pending = false;        // `done` was recorded and not yet waited for
  };
  // Makes the buffers; false when pinned memory cannot be had (then copies go direct).
  bool ensure_buffers();
  // Waits until buffer `i`'s last copy is done.
  void wait(Buffer& buffer);

  int ordinal_;
  std::mutex mutex_;  // one transfer at a time per device: the buffers are shared
  std::vector<Buffer> buffers_;
  bool unavailable_ = false;  // cudaHostAlloc failed once: use pageable copies from then on
  int next_ = 0;              // round robin: the buffer the next chunk goes through
};

}  // namespace eagle::cuda
