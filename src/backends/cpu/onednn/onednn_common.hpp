// What eagle's oneDNN kernels share (cpu/onednn/onednn_conv.cpp, onednn_batch_norm.cpp): the
// engine, user scratchpads, wrapping eagle's buffers, running a primitive on an OpenMP team of a
// given size, and the primitive cache (Note [oneDNN primitives] in onednn_conv.hpp). Built only
// with EAGLE_WITH_ONEDNN.
#pragma once

#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include <dnnl.hpp>

namespace eagle::cpu::onednn {

// The CPU engine every primitive and memory is made on.
dnnl::engine& engine();

// Attributes asking for a user scratchpad (Note [oneDNN primitives]: one primitive may then run
// on several threads at once).
dnnl::primitive_attr user_scratchpad();

// A oneDNN memory over eagle's buffer (not owned).
dnnl::memory wrap(const dnnl::memory::desc& desc, const void* data);

// A buffer of the calling thread that only grows: a fresh, zeroed one per call cost more than the
// convolution (page faults and the memset).
class GrowingBuffer {
 public:
  void* get(std::size_t bytes) {
    if (bytes > capacity_) {
      data_.reset();
      data_.reset(new std::uint8_t[bytes]);
      capacity_ = bytes;
    }
    return data_.get();
  }

 private:
  std::unique_ptr<std::uint8_t[]> data_;
  std::size_t capacity_ = 0;
};

// The scratchpad of a primitive about to run on this thread, in a GrowingBuffer of the thread
// (gemm-based convolutions keep their im2col buffer there: hundreds of MB for a batch of 128
// 56x56x64 images).
dnnl::memory scratchpad_of(const dnnl::memory::desc& desc);

// primitive.execute, a dnnl::error turned into eagle's InternalError naming `what` (the
// implementation).
void execute(const dnnl::primitive& primitive, const std::string& what, dnnl::stream& stream,
             const std::unordered_map<int, dnnl::memory>& args);

// Runs a primitive to completion on the calling thread's OpenMP team of `threads` (the size it was
// made for), with this thread's scratchpad of `scratchpad` bytes added to `args`.
void run_primitive(const dnnl::primitive& primitive, const std::string& what, int threads,
                   const dnnl::memory::desc& scratchpad,
                   std::unordered_map<int, dnnl::memory> args);

// Note [oneDNN primitives]: primitives made once per (key, OpenMP team size) and kept for the
// process behind a mutex. make() runs outside the lock (creation may be slow) with the calling
// thread's team size set to `threads`, since oneDNN fixes a primitive's thread count from it.
template <class Key, class Entry>
class PrimitiveCache {
 public:
  template <class Make>
  std::shared_ptr<const Entry> get(const Key& key, int threads, Make make) {
    const std::pair<Key, int> full_key(key, threads);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = entries_.find(full_key);
      if (it != entries_.end()) return it->second;
    }
    omp_set_num_threads(threads);
    std::shared_ptr<const Entry> entry = make();
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.emplace(full_key, std::move(entry)).first->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<Key, int>, std::shared_ptr<const Entry>> entries_;
};

}  // namespace eagle::cpu::onednn
