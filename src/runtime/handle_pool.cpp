#include "runtime/handle_pool.hpp"

namespace eagle::runtime::detail {
namespace {

constexpr int kCachedBlocks = 1024;  // per size class and thread
constexpr std::size_t kClasses = kLargestBlock / kHandleGranule;

struct Node {
  Node* next;
};

// One thread's lists (Note [Handle pool]).
struct Lists {
  Node* head[kClasses] = {};
  int count[kClasses] = {};

  ~Lists() {
    for (std::size_t c = 0; c < kClasses; ++c) {
      while (head[c] != nullptr) {
        Node* n = head[c];
        head[c] = n->next;
        ::operator delete(static_cast<void*>(n));
      }
    }
  }
};

// initial-exec, constant-initialized: reached with one %fs-relative load.
__attribute__((tls_model("initial-exec"))) thread_local Lists* t_lists = nullptr;
__attribute__((tls_model("initial-exec"))) thread_local bool t_lists_gone = false;

// Frees the thread's lists when it exits; blocks freed after that go to the heap.
struct ListsOwner {
  ~ListsOwner() {
    delete t_lists;
    t_lists = nullptr;
    t_lists_gone = true;
  }
};

// The calling thread's lists, made on its first use (registering their release at its exit);
// null once they are released.
Lists* lists() {
  if (t_lists != nullptr) return t_lists;
  if (t_lists_gone) return nullptr;
  thread_local ListsOwner owner;  // constructed here once per thread: its destructor runs at exit
  (void)owner;
  t_lists = new Lists;
  return t_lists;
}

std::size_t size_class(std::size_t size) {
  return (size + kHandleGranule - 1) / kHandleGranule - 1;
}

std::size_t class_bytes(std::size_t size) { return (size_class(size) + 1) * kHandleGranule; }

}  // namespace

void* take_handle_block(std::size_t size) {
  if (Lists* l = lists()) {
    const std::size_t c = size_class(size);
    if (Node* n = l->head[c]) {
      l->head[c] = n->next;
      --l->count[c];
      return n;
    }
  }
  // Blocks of a class are all class_bytes long, so any may serve any size of the class.
  return ::operator new(class_bytes(size));
}

void give_handle_block(void* block, std::size_t size) noexcept {
  if (Lists* l = lists()) {
    const std::size_t c = size_class(size);
    if (l->count[c] < kCachedBlocks) {
      l->head[c] = new (block) Node{l->head[c]};
      ++l->count[c];
      return;
    }
  }
  ::operator delete(block);
}

}  // namespace eagle::runtime::detail
