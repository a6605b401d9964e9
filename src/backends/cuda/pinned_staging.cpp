#include "pinned_staging.hpp"

#include <algorithm>
#include <cstring>

#include "cuda_check.hpp"

namespace eagle::cuda {

PinnedStaging::~PinnedStaging() {
  for (Buffer& buffer : buffers_) {
    if (buffer.done != nullptr) {
      cuda_succeeded(cudaEventSynchronize(buffer.done));
      cuda_succeeded(cudaEventDestroy(buffer.done));
    }
    if (buffer.host != nullptr) cuda_succeeded(cudaFreeHost(buffer.host));
  }
}

bool PinnedStaging::ensure_buffers() {
  if (!buffers_.empty()) return true;
  if (unavailable_) return false;
  std::vector<Buffer> made(kNumBuffers);
  bool ok = true;
  for (Buffer& buffer : made) {
    ok = ok && cuda_succeeded(cudaHostAlloc(&buffer.host, kChunkBytes, cudaHostAllocPortable)) &&
         cuda_succeeded(cudaEventCreateWithFlags(&buffer.done, cudaEventDisableTiming));
  }
  if (!ok) {  // e.g. RLIMIT_MEMLOCK in a container: correct, only slower
    for (Buffer& buffer : made) {
      if (buffer.done != nullptr) cuda_succeeded(cudaEventDestroy(buffer.done));
      if (buffer.host != nullptr) cuda_succeeded(cudaFreeHost(buffer.host));
    }
    unavailable_ = true;
    return false;
  }
  buffers_ = std::move(made);
  return true;
}

void PinnedStaging::wait(Buffer& buffer) {
  if (!buffer.pending) return;
  buffer.pending = false;
  EAGLE_CUDA_CHECK(cudaEventSynchronize(buffer.done));
}

void PinnedStaging::upload(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!ensure_buffers()) {
    EAGLE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
    // A pageable source may be reused once the call returns only after this.
    EAGLE_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
  }
  auto* out = static_cast<unsigned char*>(dst);
  const auto* in = static_cast<const unsigned char*>(src);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t chunk = std::min(kChunkBytes, bytes - done);
    Buffer& buffer = buffers_[next_];
    next_ = (next_ + 1) % kNumBuffers;
    wait(buffer);
    std::memcpy(buffer.host, in + done, chunk);
    EAGLE_CUDA_CHECK(
        cudaMemcpyAsync(out + done, buffer.host, chunk, cudaMemcpyHostToDevice, stream));
    EAGLE_CUDA_CHECK(cudaEventRecord(buffer.done, stream));
    buffer.pending = true;
    done += chunk;
  }
}

void PinnedStaging::download(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!ensure_buffers()) {
    EAGLE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    EAGLE_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
  }
  auto* out = static_cast<unsigned char*>(dst);
  const auto* in = static_cast<const unsigned char*>(src);
  // Up to kNumBuffers chunks in flight; each is copied out once its own copy has finished.
  struct InFlight {
    Buffer* buffer;
    std::size_t offset;
    std::size_t size;
  };
  std::vector<InFlight> queue;
  std::size_t first = 0;  // queue[first..] are in flight
  const auto drain_one = [&] {
    InFlight& f = queue[first++];
    wait(*f.buffer);
    std::memcpy(out + f.offset, f.buffer->host, f.size);
  };
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t chunk = std::min(kChunkBytes, bytes - done);
    if (queue.size() - first == static_cast<std::size_t>(kNumBuffers)) drain_one();
    Buffer& buffer = buffers_[next_];
    next_ = (next_ + 1) % kNumBuffers;
    wait(buffer);  // an upload's chunk may still be using it
    EAGLE_CUDA_CHECK(
        cudaMemcpyAsync(buffer.host, in + done, chunk, cudaMemcpyDeviceToHost, stream));
    EAGLE_CUDA_CHECK(cudaEventRecord(buffer.done, stream));
    buffer.pending = true;
    queue.push_back(InFlight{&buffer, done, chunk});
    done += chunk;
  }
  while (first < queue.size()) drain_one();
}

}  // namespace eagle::cuda
