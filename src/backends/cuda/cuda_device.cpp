#include "cuda_device.hpp"

#include <memory>
#include <utility>

#include "cuda_check.hpp"
#include "cuda_device_guard.hpp"

namespace eagle::cuda {
namespace {

// An event used once to order two streams, destroyed right away (CUDA releases it when the
// work it marks has completed).
class OrderingEvent {
 public:
  OrderingEvent() { EAGLE_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~OrderingEvent() { cuda_succeeded(cudaEventDestroy(event_)); }
  OrderingEvent(const OrderingEvent&) = delete;
  OrderingEvent& operator=(const OrderingEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace

CudaDevice::CudaDevice(int ordinal, int logical_id, std::shared_ptr<memory::RegionProvider> memory,
                       std::size_t memory_limit, bool allow_growth)
    : GpuDevice(logical_id, std::move(memory), memory_limit, allow_growth),
      ordinal_(ordinal),
      staging_(ordinal) {
  CudaDeviceGuard guard(ordinal_);
  guard.check();
  EAGLE_CUDA_CHECK(
      cudaDeviceGetAttribute(&multiprocessor_count_, cudaDevAttrMultiProcessorCount, ordinal_));
  EAGLE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

CudaDevice::~CudaDevice() {
  if (stream_ == nullptr) return;
  CudaDeviceGuard guard(ordinal_);
  cublas_.reset();
  // Work still queued on the stream completes; its resources are released afterwards.
  cuda_succeeded(cudaStreamDestroy(stream_));
}

void CudaDevice::copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  CudaDeviceGuard guard(ordinal_);
  guard.check();
  staging_.download(dst, src, bytes, stream_);
}

void CudaDevice::copy_from_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  CudaDeviceGuard guard(ordinal_);
  guard.check();
  staging_.upload(dst, src, bytes, stream_);
}

bool CudaDevice::copy_to_device(runtime::Device& destination, void* dst, const void* src,
                                std::size_t bytes) {
  auto* target = dynamic_cast<CudaDevice*>(&destination);
  if (target == nullptr) return false;
  if (bytes == 0) return true;
  if (target == this) {
    CudaDeviceGuard guard(ordinal_);
    guard.check();
    EAGLE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
    return true;
  }
  // Note [Stream ordering]: source ready -> copy on the destination's stream -> the source's
  // stream waits for the copy before it may reuse `src`.
  CudaDeviceGuard source_guard(ordinal_);
  source_guard.check();
  OrderingEvent source_ready;
  EAGLE_CUDA_CHECK(cudaEventRecord(source_ready.get(), stream_));
  std::unique_ptr<OrderingEvent> copied;
  {
    // An event is recorded on a stream of the device that was current when it was made.
    CudaDeviceGuard target_guard(target->ordinal_);
    target_guard.check();
    copied = std::make_unique<OrderingEvent>();
    EAGLE_CUDA_CHECK(cudaStreamWaitEvent(target->stream_, source_ready.get(), 0));
    EAGLE_CUDA_CHECK(
        cudaMemcpyPeerAsync(dst, target->ordinal_, src, ordinal_, bytes, target->stream_));
    EAGLE_CUDA_CHECK(cudaEventRecord(copied->get(), target->stream_));
  }
  EAGLE_CUDA_CHECK(cudaStreamWaitEvent(stream_, copied->get(), 0));
  return true;
}

void CudaDevice::synchronize() {
  CudaDeviceGuard guard(ordinal_);
  guard.check();
  EAGLE_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

CublasHandle& CudaDevice::cublas() {
  // call_once: a handle that failed to start (throws) is tried again by the next matmul.
  std::call_once(cublas_once_, [this] {
    CudaDeviceGuard guard(ordinal_);
    guard.check();
    cublas_ = std::make_unique<CublasHandle>(*this, stream_);
  });
  return *cublas_;
}

}  // namespace eagle::cuda
