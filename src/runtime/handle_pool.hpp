// A per-thread cache of freed blocks for the handles every op makes (TensorImpl, Storage), used
// through std::allocate_shared with HandleAllocator.
//
// Note [Handle pool]
// ~~~~~~~~~~~~~~~~~~
// Each op makes a Storage and a TensorImpl, each one block of a shared_ptr control block and the
// object, and frees the handles of the tensors that die. glibc keeps 7 freed blocks of a size per
// thread (tcache); past that a free goes through its bins, and a later larger malloc walks them
// all (malloc_consolidate). Here each thread keeps up to kCachedBlocks freed blocks per 16-byte
// size class (up to kLargestBlock bytes) in intrusive lists and hands them out first; a block
// freed on another thread than the one that took it joins the freeing thread's lists (blocks of
// one class are interchangeable memory). A thread's cached blocks are released when it exits.
// The thread's lists are reached through one initial-exec thread-local pointer (no
// __tls_get_addr call per op; the lists themselves are on the heap, so libeagle's static TLS
// stays small enough to be dlopen'ed). Under AddressSanitizer the cache is off, so a use after
// free of a handle is still found. docs/performance.md ("Dispatch cost as an instruction count")
// has what it saved.
#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace eagle::runtime {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kHandlePool = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kHandlePool = false;
#else
inline constexpr bool kHandlePool = true;
#endif
#else
inline constexpr bool kHandlePool = true;
#endif

namespace detail {
inline constexpr std::size_t kHandleGranule = 16;
inline constexpr std::size_t kLargestBlock = 512;
// A block of `size` bytes (at most kLargestBlock, new's default alignment) from the calling
// thread's cache or the heap; give_handle_block returns one of the same size.
void* take_handle_block(std::size_t size);
void give_handle_block(void* block, std::size_t size) noexcept;
}  // namespace detail

// The allocator allocate_shared rebinds to its control block type: one block at a time from the
// thread's cache (Note [Handle pool]), anything else from the heap.
template <class T>
class HandleAllocator {
 public:
  using value_type = T;
  HandleAllocator() = default;
  template <class U>
  HandleAllocator(const HandleAllocator<U>&) noexcept {}  // NOLINT: rebinding is implicit

  T* allocate(std::size_t n) {
    if (kPooled && n == 1) return static_cast<T*>(detail::take_handle_block(sizeof(T)));
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (kPooled && n == 1) return detail::give_handle_block(p, sizeof(T));
    std::allocator<T>().deallocate(p, n);
  }

  template <class U>
  bool operator==(const HandleAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const HandleAllocator<U>&) const noexcept {
    return false;
  }

 private:
  static constexpr bool kPooled = kHandlePool && sizeof(T) <= detail::kLargestBlock &&
                                  alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__;
};

}  // namespace eagle::runtime
