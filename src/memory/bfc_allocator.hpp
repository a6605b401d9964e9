// Best-fit-with-coalescing allocator over a RegionProvider: the policy behind every GPU
// allocator (and the simulated GPUs'), with TensorFlow's limit, growth and OOM behaviour
// (docs/design.md, "Device memory"). See Note [BFC allocator] in bfc_allocator.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "eagle/dtype.hpp"
#include "eagle/shape.hpp"
#include "memory/region_provider.hpp"

namespace eagle::memory {

class BfcAllocator {
 public:
  static constexpr std::size_t kMinChunkBytes = 256;  // granule and alignment of every chunk
  static constexpr std::size_t kInitialGrowthRegionBytes = std::size_t{2} << 20;  // 2 MiB

  struct Options {
    std::size_t limit = 0;      // most bytes ever held from the provider at once
    bool allow_growth = false;  // false: one region of the whole limit, at the first allocation
  };

  struct Stats {
    std::size_t bytes_in_use = 0;  // live chunks (rounded sizes)
    std::size_t peak_bytes_in_use = 0;
    std::size_t bytes_reserved = 0;  // held from the provider
    std::size_t bytes_limit = 0;
    std::int64_t num_allocs = 0;         // successful allocations so far
    std::int64_t num_ooms = 0;           // ResourceExhaustedError thrown so far
    std::size_t largest_free_block = 0;  // largest single free chunk (TF's largest_free_block)
    int num_regions = 0;
  };

  // `name` ("GPU_0_bfc") and `device_name` (the full device name) appear in the OOM message.
  // The provider must outlive the allocator.
  BfcAllocator(std::string name, std::string device_name, RegionProvider& provider,
               Options options);
  // Returns every region to the provider, live chunks included.
  ~BfcAllocator();
  BfcAllocator(const BfcAllocator&) = delete;
  BfcAllocator& operator=(const BfcAllocator&) = delete;

  // A 256-byte-aligned block of at least `bytes` bytes (rounded up to 256; 0 bytes gets a
  // 256-byte chunk, so every allocation is a distinct pointer that deallocate accepts). Throws
  // ResourceExhaustedError with TensorFlow's OOM text naming `shape` and `dtype`; the allocator
  // is unchanged by a failed call except for stats().num_ooms and regions released to retry.
  void* allocate(std::size_t bytes, const Shape& shape, DType dtype);
  // Frees a block from allocate (nullptr: no-op) and merges it with free neighbours. A pointer
  // this allocator did not hand out is a bug in eagle: it is reported and the process aborts.
  void deallocate(void* ptr) noexcept;

  // Returns fully free regions to the provider; the bytes returned.
  std::size_t release_unused();

  Stats stats() const;
  void reset_peak();  // peak = current
  // Sizes of the regions held, in the order they were taken.
  std::vector<std::size_t> region_sizes() const;
  // For tests: walks every region, bin and table; "" when consistent, else what is wrong.
  std::string check_invariants() const;

  const std::string& name() const { return name_; }
  const std::string& device_name() const { return device_name_; }
  std::size_t limit() const { return limit_; }
  bool allow_growth() const { return allow_growth_; }

 private:
  using ChunkHandle = std::uint32_t;
  static constexpr ChunkHandle kNoChunk = ~ChunkHandle{0};
  static constexpr int kNumBins = 56;  // bin b: sizes [256 << b, 256 << (b + 1)); all of size_t

  // A free chunk's entry in its bin, ordered by (size, address): best fit is lower_bound.
  struct FreeKey {
    std::size_t size;
    std::uintptr_t addr;
    ChunkHandle chunk;
  };
  struct FreeKeyLess {
    bool operator()(const FreeKey& a, const FreeKey& b) const {
      return a.size != b.size ? a.size < b.size : a.addr < b.addr;
    }
  };

  // Nodes of the bins' sets: fixed-size slots carved from blocks and recycled through a free
  // list, so that inserting and erasing free chunks allocates nothing in steady state.
  class NodePool {
   public:
    NodePool() = default;
    ~NodePool();
    NodePool(const NodePool&) = delete;
    NodePool& operator=(const NodePool&) = delete;
    void* allocate(std::size_t bytes);
    void deallocate(void* p, std::size_t bytes) noexcept;

   private:
    static constexpr std::size_t kSlotBytes = 64;  // a red-black tree node of a FreeKey fits
    static constexpr std::size_t kSlotsPerBlock = 256;
    struct FreeSlot {
      FreeSlot* next;
    };
    FreeSlot* free_ = nullptr;
    std::vector<void*> blocks_;
  };
  template <class T>
  struct PoolAllocator {
    using value_type = T;
    NodePool* pool;
    explicit PoolAllocator(NodePool* p) noexcept : pool(p) {}
    template <class U>
    PoolAllocator(const PoolAllocator<U>& other) noexcept : pool(other.pool) {}
    T* allocate(std::size_t n) { return static_cast<T*>(pool->allocate(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) noexcept { pool->deallocate(p, n * sizeof(T)); }
    template <class U>
    bool operator==(const PoolAllocator<U>& o) const noexcept {
      return pool == o.pool;
    }
    template <class U>
    bool operator!=(const PoolAllocator<U>& o) const noexcept {
      return pool != o.pool;
    }
  };
  using FreeSet = std::set<FreeKey, FreeKeyLess, PoolAllocator<FreeKey>>;

  // A contiguous piece of one region; prev/next are its neighbours in the same region.
  struct Chunk {
    std::uintptr_t addr = 0;
    std::size_t size = 0;
    ChunkHandle prev = kNoChunk;
    ChunkHandle next = kNoChunk;  // also links the pool's list of unused Chunk records
    bool in_use = false;
    FreeSet::iterator bin_pos{};  // valid while free
  };

  struct Region {
    std::uintptr_t base;
    std::size_t size;
    ChunkHandle first;  // stable: merging keeps the left chunk
  };

  // Live pointer -> chunk: open addressing, linear probing, backward-shift deletion.
  class AddressTable {
   public:
    AddressTable();
    void reserve_one_more();  // may grow (allocate); call before mutating anything else
    void insert(std::uintptr_t addr, ChunkHandle chunk) noexcept;
    ChunkHandle erase(std::uintptr_t addr) noexcept;  // kNoChunk when absent
    ChunkHandle find(std::uintptr_t addr) const noexcept;
    std::size_t size() const { return size_; }

   private:
    struct Slot {
      std::uintptr_t addr;  // 0: empty
      ChunkHandle chunk;
    };
    std::size_t home(std::uintptr_t addr) const noexcept;
    void grow();
    std::vector<Slot> slots_;
    std::size_t size_ = 0;
    int shift_ = 0;
  };

  void* allocate_locked(std::size_t rounded);
  ChunkHandle find_free_chunk(std::size_t rounded) const noexcept;
  void* take_chunk(ChunkHandle h, std::size_t rounded);
  bool extend(std::size_t rounded);
  std::size_t release_free_regions_locked() noexcept;

  ChunkHandle new_chunk();
  void delete_chunk(ChunkHandle h) noexcept;
  void insert_free(ChunkHandle h);
  void remove_free(ChunkHandle h) noexcept;
  static int bin_index(std::size_t size) noexcept;

  const std::string name_;
  const std::string device_name_;
  RegionProvider& provider_;
  const std::size_t limit_;
  const std::size_t usable_limit_;  // limit rounded down to kMinChunkBytes
  const bool allow_growth_;

  mutable std::mutex mutex_;
  NodePool node_pool_;  // declared before the bins, destroyed after them
  std::vector<FreeSet> bins_;
  std::uint64_t nonempty_bins_ = 0;  // bit b: bins_[b] has a free chunk
  std::vector<Chunk> chunks_;        // chunk records, recycled through free_chunk_
  ChunkHandle free_chunk_ = kNoChunk;
  AddressTable live_;
  std::vector<Region> regions_;

  std::size_t next_region_bytes_;  // growth: the size of the next extension (before capping)
  std::size_t bytes_reserved_ = 0;
  std::size_t bytes_in_use_ = 0;
  std::size_t peak_bytes_in_use_ = 0;
  std::int64_t num_allocs_ = 0;
  std::int64_t num_ooms_ = 0;
};

}  // namespace eagle::memory
