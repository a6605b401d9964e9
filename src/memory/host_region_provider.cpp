#include "memory/host_region_provider.hpp"

#include <sys/mman.h>
#include <unistd.h>

namespace eagle::memory {

namespace {

std::size_t physical_memory_bytes() noexcept {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size);
}

}  // namespace

HostRegionProvider::HostRegionProvider(std::size_t capacity) : capacity_(capacity) {}

void* HostRegionProvider::allocate_region(std::size_t bytes) noexcept {
  if (bytes == 0) return nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++allocate_calls_;
    if (fail_next_ > 0) {
      --fail_next_;
      return nullptr;
    }
    if (capacity_ != kUnlimited && bytes > capacity_ - outstanding_bytes_) return nullptr;
    // Counted before mapping so that concurrent callers cannot both pass the capacity check.
    outstanding_bytes_ += bytes;
    ++outstanding_regions_;
  }
  // MAP_NORESERVE: no swap is reserved and nothing is committed until a page is touched.
  void* ptr = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (ptr == MAP_FAILED) {
    std::lock_guard<std::mutex> lock(mutex_);
    outstanding_bytes_ -= bytes;
    --outstanding_regions_;
    return nullptr;
  }
  return ptr;
}

void HostRegionProvider::free_region(void* ptr, std::size_t bytes) noexcept {
  if (ptr == nullptr) return;
  ::munmap(ptr, bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  outstanding_bytes_ -= bytes;
  --outstanding_regions_;
}

std::size_t HostRegionProvider::total_bytes() const noexcept {
  return capacity_ != kUnlimited ? capacity_ : physical_memory_bytes();
}

std::size_t HostRegionProvider::free_bytes() const noexcept {
  const std::size_t total = total_bytes();
  std::lock_guard<std::mutex> lock(mutex_);
  return outstanding_bytes_ < total ? total - outstanding_bytes_ : 0;
}

void HostRegionProvider::fail_next_allocations(int count) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  fail_next_ = count > 0 ? count : 0;
}

std::size_t HostRegionProvider::bytes_outstanding() const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  return outstanding_bytes_;
}

int HostRegionProvider::regions_outstanding() const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  return outstanding_regions_;
}

long long HostRegionProvider::allocate_calls() const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  return allocate_calls_;
}

}  // namespace eagle::memory
