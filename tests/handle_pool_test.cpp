// HandleAllocator (Note [Handle pool]): a thread's freed handle blocks are handed out again, a
// block freed on another thread joins that thread's cache, and a thread's cache is released when
// it exits (leak-checked under LeakSanitizer, where the cache is off and every block is the
// heap's). The tensors every op makes go through it (runtime/tensor_impl.cpp).
#include <catch2/catch.hpp>

#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "eagle/eagle.hpp"
#include "runtime/handle_pool.hpp"
#include "runtime/tensor_access.hpp"

using eagle::runtime::HandleAllocator;
using eagle::runtime::kHandlePool;

namespace {

struct Handle {
  explicit Handle(int v) : value(v) {}
  int value;
  char payload[100] = {};
};

std::shared_ptr<Handle> make(int v) {
  return std::allocate_shared<Handle>(HandleAllocator<Handle>(), v);
}

}  // namespace

TEST_CASE("a freed handle's block is the next handle's on the same thread") {
  auto a = make(1);
  const void* block = a.get();
  a.reset();
  auto b = make(2);
  CHECK(b->value == 2);
  // Under AddressSanitizer the pool is off (every handle is the heap's, so a use after free
  // stays visible) and where a block goes is the heap's business.
  if (kHandlePool) CHECK(b.get() == block);
}

TEST_CASE("handles made on one thread and freed on another are cached there and stay sound") {
  std::vector<std::shared_ptr<Handle>> made;
  for (int i = 0; i < 3000; ++i) made.push_back(make(i));  // past one thread's cache of 1024
  std::thread other([&] {
    made.clear();  // freed here: 1024 kept in this thread's cache, the rest to the heap
    std::vector<std::shared_ptr<Handle>> again;
    for (int i = 0; i < 2000; ++i) again.push_back(make(-i));
    for (int i = 0; i < 2000; ++i) REQUIRE(again[static_cast<std::size_t>(i)]->value == -i);
  });  // the thread's cached blocks are released when it exits
  other.join();
  CHECK(made.empty());
  auto last = make(7);
  CHECK(last->value == 7);
}

TEST_CASE("tensor handles come from the pool: freed tensors' handles are the next ones'") {
  std::set<const void*> freed;
  {
    std::vector<eagle::Tensor> first;
    for (int i = 0; i < 10; ++i) first.push_back(eagle::fill({2}, static_cast<float>(i)));
    for (const eagle::Tensor& t : first) freed.insert(eagle::runtime::impl_of(t).get());
  }
  std::vector<eagle::Tensor> second;
  int reused = 0;
  for (int i = 0; i < 10; ++i) {
    second.push_back(eagle::fill({2}, static_cast<float>(i)));
    reused += static_cast<int>(freed.count(eagle::runtime::impl_of(second.back()).get()));
    CHECK(second.back().to_vector<float>() ==
          std::vector<float>{static_cast<float>(i), static_cast<float>(i)});
  }
  if (kHandlePool) CHECK(reused == 10);
}
