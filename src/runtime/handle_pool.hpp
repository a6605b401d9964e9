// A per-thread cache of freed blocks for the handles every op makes (TensorImpl, Storage), used
// through std::allocate_shared with HandleAllocator.
//
// Note [Handle pool]
// ~~~~~~~~~~~~~~~~~~
// Each op makes a Storage and a TensorImpl, each one block of a shared_ptr control block and the
// object, and frees the handles of the tensors that die. glibc keeps 7 freed blocks of a size per
// thread (tcache); past that a free goes through its bins, and a later larger malloc walks them
// all (malloc_consolidate): several hundred of a 1-element op's ~2,200 instructions
// (docs/performance.md, "Dispatch cost as an instruction count"). Here each thread keeps up to
// kCachedBlocks freed blocks per handle type in an intrusive list and hands them out first; a
// block freed on another thread than the one that took it joins the freeing thread's list (the
// blocks of one type are interchangeable memory). A thread's cached blocks are released when it
// exits. Under AddressSanitizer the cache is off, so a use after free of a handle is still found.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>

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

// The blocks of one size and alignment cached by the calling thread.
template <std::size_t kSize, std::size_t kAlign>
class BlockCache {
 public:
  static constexpr int kCachedBlocks = 1024;

  static void* take() {
    State& s = state();
    if (s.head != nullptr) {
      Node* n = s.head;
      s.head = n->next;
      --s.count;
      return n;
    }
    return allocate_block();
  }

  static void give(void* block) {
    State& s = state();
    if (s.count < kCachedBlocks && !s.closed) {
      s.head = new (block) Node{s.head};
      ++s.count;
      return;
    }
    free_block(block);
  }

 private:
  struct Node {
    Node* next;
  };
  // Trivially destructible, so it outlives the Closer below for the thread's last frees.
  struct State {
    Node* head = nullptr;
    int count = 0;
    bool closed = false;
  };
  // Releases the thread's cached blocks when it exits; frees after that go to the heap.
  struct Closer {
    ~Closer() {
      State& s = state_storage();
      s.closed = true;
      while (s.head != nullptr) {
        Node* n = s.head;
        s.head = n->next;
        free_block(n);
      }
      s.count = 0;
    }
  };

  // Plain new and delete where the alignment is new's own: the aligned forms go through glibc's
  // memalign, which takes nothing from its tcache.
  static void* allocate_block() {
    if constexpr (kAlign <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
      return ::operator new(kSize);
    } else {
      return ::operator new (kSize, std::align_val_t{kAlign});
    }
  }
  static void free_block(void* block) noexcept {
    if constexpr (kAlign <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
      ::operator delete(block);
    } else {
      ::operator delete (block, std::align_val_t{kAlign});
    }
  }

  // initial-exec: a thread-local of libeagle reached without __tls_get_addr (as in
  // dispatcher.cpp).
  static State& state_storage() {
    __attribute__((tls_model("initial-exec"))) static thread_local State s;
    return s;
  }
  static State& state() {
    // Constructed on the thread's first use, which registers its destructor.
    __attribute__((tls_model("initial-exec"))) static thread_local Closer closer;
    (void)closer;
    return state_storage();
  }
};

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
    if (kHandlePool && n == 1) return static_cast<T*>(Cache::take());
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (kHandlePool && n == 1) return Cache::give(p);
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
  static constexpr std::size_t kBlockSize = sizeof(T) < sizeof(void*) ? sizeof(void*) : sizeof(T);
  static constexpr std::size_t kBlockAlign =
      alignof(T) < alignof(void*) ? alignof(void*) : alignof(T);
  using Cache = detail::BlockCache<kBlockSize, kBlockAlign>;
};

}  // namespace eagle::runtime
