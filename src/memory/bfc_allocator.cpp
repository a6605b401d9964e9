#include "memory/bfc_allocator.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "memory/valgrind_annotations.hpp"

namespace eagle::memory {

// Note [BFC allocator]
// ~~~~~~~~~~~~~~~~~~~~
// Best-fit with coalescing, after TensorFlow's BFCAllocator, over memory taken from a
// RegionProvider (cudaMalloc on a GPU, MAP_NORESERVE host memory on a simulated one). The
// allocator never touches the memory it manages: all bookkeeping lives in host-side records.
//
// Chunks. Every region is cut into contiguous chunks whose sizes are multiples of 256 bytes (so
// every pointer is 256-aligned, as cudaMalloc's are). A chunk record holds its address, size,
// in-use flag and its left/right neighbours in the same region; chunks of different regions are
// never linked, so they never merge. Records live in one vector and are recycled through a free
// list (handles are indices), and live pointers map to their chunk through an open-addressing
// table: once the allocator has seen its high-water mark of chunks, allocate and deallocate do
// no heap allocation.
//
// Bins. A free chunk of size s sits in bin floor(log2(s / 256)), an ordered set keyed by
// (size, address) whose nodes come from a private free-list pool, and a 64-bit mask says which
// bins are non-empty. A request of n bytes looks first in its own bin (lower_bound: the smallest
// chunk >= n, lowest address on ties), then takes the smallest chunk of the next non-empty bin
// (one count-trailing-zeros on the mask): every chunk there is larger than anything in n's bin,
// so this is the exact best fit in O(log k) for k free chunks of that size class. The chosen
// chunk is split when larger than n; the remainder (a multiple of 256) goes back to its bin.
// Freeing merges the chunk with a free right and left neighbour, so no two free chunks are ever
// adjacent, and a region whose chunks are all free is one chunk.
//
// Regions and growth (docs/guide.md, "Configuring devices"; docs/design.md, "Device memory").
// Without growth the first allocation takes one region of the whole limit (rounded down to 256
// bytes). With growth the first region is min(limit, 2 MiB) and the planned size of the next
// doubles, as in TensorFlow's BFCAllocator::Extend: a request
// larger than the plan doubles the plan until it covers the request and gets a region of that
// size (the plan is then not doubled again); a region taken at the plan doubles it. So regions
// are 2 MiB times a power of two, capped at what the limit leaves: 2, 4, 8, ... MiB, and a
// 20 MiB request after a 4 MiB region gets 32 MiB (the next plan still 32). The earlier rule
// (max(twice the largest region, the request)) gave a second live 256 MiB block a 512 MiB
// region: reserved / peak 1.5 in bench/allocator_churn's window case, now 1.0 with the same
// two regions. The sum of regions never exceeds the limit. If the provider refuses the planned
// region but the request is smaller, the request alone is asked for (the device may
// be shared: TensorFlow likewise shrinks its ask before giving up).
//
// Out of memory. When no free chunk fits and no region can be added, every fully free region
// is returned to the provider (a cache flush, as tinygrad does) and, if that freed anything,
// the allocation is tried once more: the released bytes count against the limit again, so a
// region of the right size may now be taken. Only then does allocate throw
// ResourceExhaustedError with TensorFlow's text. Nothing is changed by the failure beyond
// stats().num_ooms and the regions released, so the device stays usable. A request larger than
// the limit fails at once, without flushing anything.
//
// One mutex guards everything; the fast path under it is a bin lookup, a split or a merge, and
// a table update. release_unused() is the flush above on demand (release_unused_memory).

namespace {

constexpr std::size_t kGranule = BfcAllocator::kMinChunkBytes;

std::size_t round_down(std::size_t n) { return n / kGranule * kGranule; }

std::size_t saturating_double(std::size_t n) {
  return n > std::numeric_limits<std::size_t>::max() / 2 ? std::numeric_limits<std::size_t>::max()
                                                         : n * 2;
}

}  // namespace

// ---- AddressTable -------------------------------------------------------------------------------

BfcAllocator::AddressTable::AddressTable() : slots_(1024, Slot{0, kNoChunk}), shift_(64 - 10) {}

std::size_t BfcAllocator::AddressTable::home(std::uintptr_t addr) const noexcept {
  // Fibonacci hashing of the address without its always-zero low bits; the top bits index.
  return static_cast<std::size_t>(((addr >> 8) * 0x9E3779B97F4A7C15ull) >> shift_);
}

void BfcAllocator::AddressTable::reserve_one_more() {
  if ((size_ + 1) * 2 > slots_.size()) grow();
}

void BfcAllocator::AddressTable::grow() {
  std::vector<Slot> old(slots_.size() * 2, Slot{0, kNoChunk});
  old.swap(slots_);
  --shift_;
  size_ = 0;
  for (const Slot& s : old) {
    if (s.addr != 0) insert(s.addr, s.chunk);
  }
}

void BfcAllocator::AddressTable::insert(std::uintptr_t addr, ChunkHandle chunk) noexcept {
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = home(addr);
  while (slots_[i].addr != 0) i = (i + 1) & mask;
  slots_[i] = Slot{addr, chunk};
  ++size_;
}

BfcAllocator::ChunkHandle BfcAllocator::AddressTable::find(std::uintptr_t addr) const noexcept {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = home(addr); slots_[i].addr != 0; i = (i + 1) & mask) {
    if (slots_[i].addr == addr) return slots_[i].chunk;
  }
  return kNoChunk;
}

BfcAllocator::ChunkHandle BfcAllocator::AddressTable::erase(std::uintptr_t addr) noexcept {
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = home(addr);
  while (slots_[i].addr != addr) {
    if (slots_[i].addr == 0) return kNoChunk;
    i = (i + 1) & mask;
  }
  const ChunkHandle chunk = slots_[i].chunk;
  // Backward-shift deletion: pull later entries of the probe run into the hole when their home
  // slot does not lie cyclically in (hole, j].
  for (std::size_t j = (i + 1) & mask; slots_[j].addr != 0; j = (j + 1) & mask) {
    const std::size_t k = home(slots_[j].addr);
    const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
    if (!stays) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i] = Slot{0, kNoChunk};
  --size_;
  return chunk;
}

// ---- NodePool
// -------------------------------------------------------------------------------------

BfcAllocator::NodePool::~NodePool() {
  for (void* b : blocks_) ::operator delete(b);
}

void* BfcAllocator::NodePool::allocate(std::size_t bytes) {
  if (bytes > kSlotBytes) return ::operator new(bytes);  // never for a set's nodes
  if (free_ == nullptr) {
    blocks_.reserve(blocks_.size() + 1);
    char* block = static_cast<char*>(::operator new(kSlotBytes* kSlotsPerBlock));
    blocks_.push_back(block);
    for (std::size_t i = kSlotsPerBlock; i-- > 0;) {
      auto* slot = reinterpret_cast<FreeSlot*>(block + i * kSlotBytes);
      slot->next = free_;
      free_ = slot;
    }
  }
  FreeSlot* slot = free_;
  free_ = slot->next;
  return slot;
}

void BfcAllocator::NodePool::deallocate(void* p, std::size_t bytes) noexcept {
  if (bytes > kSlotBytes) {
    ::operator delete(p);
    return;
  }
  auto* slot = static_cast<FreeSlot*>(p);
  slot->next = free_;
  free_ = slot;
}

// ---- BfcAllocator -------------------------------------------------------------------------------

BfcAllocator::BfcAllocator(std::string name, std::string device_name, RegionProvider& provider,
                           Options options)
    : name_(std::move(name)),
      device_name_(std::move(device_name)),
      provider_(provider),
      limit_(options.limit),
      usable_limit_(round_down(options.limit)),
      allow_growth_(options.allow_growth),
      next_region_bytes_(std::min(usable_limit_, kInitialGrowthRegionBytes)) {
  bins_.reserve(kNumBins);
  for (int b = 0; b < kNumBins; ++b) bins_.emplace_back(PoolAllocator<FreeKey>(&node_pool_));
  chunks_.reserve(256);
  regions_.reserve(64);
}

BfcAllocator::~BfcAllocator() {
  for (const Region& r : regions_) provider_.free_region(reinterpret_cast<void*>(r.base), r.size);
}

int BfcAllocator::bin_index(std::size_t size) noexcept {
  return 63 - __builtin_clzll(static_cast<unsigned long long>(size / kGranule));
}

BfcAllocator::ChunkHandle BfcAllocator::new_chunk() {
  if (free_chunk_ != kNoChunk) {
    const ChunkHandle h = free_chunk_;
    free_chunk_ = chunks_[h].next;
    chunks_[h] = Chunk{};
    return h;
  }
  chunks_.emplace_back();
  return static_cast<ChunkHandle>(chunks_.size() - 1);
}

void BfcAllocator::delete_chunk(ChunkHandle h) noexcept {
  chunks_[h] = Chunk{};
  chunks_[h].next = free_chunk_;
  free_chunk_ = h;
}

void BfcAllocator::insert_free(ChunkHandle h) {
  Chunk& c = chunks_[h];
  const int b = bin_index(c.size);
  c.in_use = false;
  c.bin_pos = bins_[b].insert(FreeKey{c.size, c.addr, h}).first;
  nonempty_bins_ |= std::uint64_t{1} << b;
}

void BfcAllocator::remove_free(ChunkHandle h) noexcept {
  const int b = bin_index(chunks_[h].size);
  bins_[b].erase(chunks_[h].bin_pos);
  if (bins_[b].empty()) nonempty_bins_ &= ~(std::uint64_t{1} << b);
}

BfcAllocator::ChunkHandle BfcAllocator::find_free_chunk(std::size_t rounded) const noexcept {
  const int b = bin_index(rounded);
  if (nonempty_bins_ >> b & 1) {
    const FreeSet& bin = bins_[b];
    auto it = bin.lower_bound(FreeKey{rounded, 0, kNoChunk});
    if (it != bin.end()) return it->chunk;
  }
  const std::uint64_t larger = b + 1 < 64 ? nonempty_bins_ & (~std::uint64_t{0} << (b + 1)) : 0;
  if (larger == 0) return kNoChunk;
  return bins_[__builtin_ctzll(larger)].begin()->chunk;
}

void* BfcAllocator::take_chunk(ChunkHandle h, std::size_t rounded) {
  // Everything that may allocate comes before the first change, so a bad_alloc leaves the
  // allocator as it was.
  live_.reserve_one_more();
  const bool split = chunks_[h].size > rounded;
  const ChunkHandle rest = split ? new_chunk() : kNoChunk;
  remove_free(h);
  if (split) {
    Chunk& c = chunks_[h];
    Chunk& r = chunks_[rest];
    r.addr = c.addr + rounded;
    r.size = c.size - rounded;
    r.prev = h;
    r.next = c.next;
    if (c.next != kNoChunk) chunks_[c.next].prev = rest;
    c.next = rest;
    c.size = rounded;
    insert_free(rest);
  }
  Chunk& c = chunks_[h];
  c.in_use = true;
  live_.insert(c.addr, h);
  bytes_in_use_ += c.size;
  peak_bytes_in_use_ = std::max(peak_bytes_in_use_, bytes_in_use_);
  ++num_allocs_;
  // Note [Valgrind annotations]
  EAGLE_VALGRIND_MAKE_UNDEFINED(reinterpret_cast<void*>(c.addr), c.size);
  return reinterpret_cast<void*>(c.addr);
}

bool BfcAllocator::extend(std::size_t rounded) {
  const std::size_t available = usable_limit_ - bytes_reserved_;
  if (rounded > available) return false;
  // Growth (TensorFlow's BFCAllocator::Extend): the planned size doubles until it covers the
  // request, and only a region taken at the planned size doubles it for the next one.
  bool increased = false;
  if (allow_growth_) {
    if (next_region_bytes_ == 0) next_region_bytes_ = rounded;  // a limit under 256 bytes
    while (next_region_bytes_ < rounded) {
      next_region_bytes_ = saturating_double(next_region_bytes_);
      increased = true;
    }
  }
  std::size_t size = allow_growth_ ? next_region_bytes_ : available;
  size = std::min(size, available);
  void* base = provider_.allocate_region(size);
  if (base == nullptr && size > rounded) {
    size = rounded;
    base = provider_.allocate_region(size);
  }
  if (base == nullptr) return false;
  EAGLE_VALGRIND_MAKE_NOACCESS(base, size);  // Note [Valgrind annotations]
  ChunkHandle h = kNoChunk;
  try {
    h = new_chunk();
    regions_.push_back(Region{reinterpret_cast<std::uintptr_t>(base), size, h});
    chunks_[h].addr = reinterpret_cast<std::uintptr_t>(base);
    chunks_[h].size = size;
    insert_free(h);
  } catch (...) {
    if (!regions_.empty() && regions_.back().first == h) regions_.pop_back();
    if (h != kNoChunk) delete_chunk(h);
    provider_.free_region(base, size);
    throw;
  }
  bytes_reserved_ += size;
  if (allow_growth_ && !increased) next_region_bytes_ = saturating_double(next_region_bytes_);
  return true;
}

void* BfcAllocator::allocate_locked(std::size_t rounded) {
  ChunkHandle h = find_free_chunk(rounded);
  if (h == kNoChunk) {
    if (!extend(rounded)) return nullptr;
    h = find_free_chunk(rounded);
  }
  return take_chunk(h, rounded);
}

void* BfcAllocator::allocate(std::size_t bytes, const Shape& shape, DType dtype) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes <= usable_limit_) {
      // bytes <= usable_limit_, a multiple of 256, so rounding up cannot overflow.
      const std::size_t rounded =
          bytes == 0 ? kGranule : (bytes + kGranule - 1) / kGranule * kGranule;
      if (void* ptr = allocate_locked(rounded)) return ptr;
      if (release_free_regions_locked() > 0) {
        if (void* ptr = allocate_locked(rounded)) return ptr;
      }
    }
    ++num_ooms_;
  }
  throw ResourceExhaustedError(
      fmt::format("OOM when allocating tensor with shape{} and type {} on {} by allocator {}",
                  shape.to_string(), dtype_runtime_name(dtype), device_name_, name_));
}

void BfcAllocator::deallocate(void* ptr) noexcept {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  ChunkHandle h = live_.erase(reinterpret_cast<std::uintptr_t>(ptr));
  if (h == kNoChunk) {
    std::fprintf(stderr, "[BfcAllocator::deallocate] %p was not allocated by %s (or was freed)\n",
                 ptr, name_.c_str());
    std::abort();
  }
  bytes_in_use_ -= chunks_[h].size;
  chunks_[h].in_use = false;
  EAGLE_VALGRIND_MAKE_NOACCESS(ptr, chunks_[h].size);  // Note [Valgrind annotations]
  const ChunkHandle next = chunks_[h].next;
  if (next != kNoChunk && !chunks_[next].in_use) {
    remove_free(next);
    chunks_[h].size += chunks_[next].size;
    chunks_[h].next = chunks_[next].next;
    if (chunks_[h].next != kNoChunk) chunks_[chunks_[h].next].prev = h;
    delete_chunk(next);
  }
  const ChunkHandle prev = chunks_[h].prev;
  if (prev != kNoChunk && !chunks_[prev].in_use) {
    remove_free(prev);
    chunks_[prev].size += chunks_[h].size;
    chunks_[prev].next = chunks_[h].next;
    if (chunks_[prev].next != kNoChunk) chunks_[chunks_[prev].next].prev = prev;
    delete_chunk(h);
    h = prev;
  }
  // A merge above has just returned a bin node to the pool, which this insert reuses; without a
  // merge the pool may have to grow, and a host bad_alloc there terminates (noexcept).
  insert_free(h);
}

std::size_t BfcAllocator::release_free_regions_locked() noexcept {
  std::size_t released = 0;
  for (std::size_t i = 0; i < regions_.size();) {
    const Region r = regions_[i];
    const Chunk& c = chunks_[r.first];
    if (c.in_use || c.next != kNoChunk) {
      ++i;
      continue;
    }
    remove_free(r.first);
    delete_chunk(r.first);
    // Keep the regions in the order taken (region_sizes() reports them so).
    regions_.erase(regions_.begin() + static_cast<std::ptrdiff_t>(i));
    provider_.free_region(reinterpret_cast<void*>(r.base), r.size);
    bytes_reserved_ -= r.size;
    released += r.size;
  }
  return released;
}

std::size_t BfcAllocator::release_unused() {
  std::lock_guard<std::mutex> lock(mutex_);
  return release_free_regions_locked();
}

BfcAllocator::Stats BfcAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats s;
  s.bytes_in_use = bytes_in_use_;
  s.peak_bytes_in_use = peak_bytes_in_use_;
  s.bytes_reserved = bytes_reserved_;
  s.bytes_limit = limit_;
  s.num_allocs = num_allocs_;
  s.num_ooms = num_ooms_;
  if (nonempty_bins_ != 0) {
    s.largest_free_block = bins_[63 - __builtin_clzll(nonempty_bins_)].rbegin()->size;
  }
  s.num_regions = static_cast<int>(regions_.size());
  return s;
}

void BfcAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  peak_bytes_in_use_ = bytes_in_use_;
}

std::vector<std::size_t> BfcAllocator::region_sizes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::size_t> sizes;
  for (const Region& r : regions_) sizes.push_back(r.size);
  return sizes;
}

std::string BfcAllocator::check_invariants() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t reserved = 0, in_use = 0, live = 0, free_chunks = 0;
  for (const Region& r : regions_) {
    reserved += r.size;
    std::uintptr_t expect = r.base;
    ChunkHandle prev = kNoChunk;
    bool prev_free = false;
    for (ChunkHandle h = r.first; h != kNoChunk; h = chunks_[h].next) {
      const Chunk& c = chunks_[h];
      if (c.addr != expect)
        return fmt::format("chunk {} at {:#x}, expected {:#x}", h, c.addr, expect);
      if (c.prev != prev) return fmt::format("chunk {} has a wrong left neighbour", h);
      if (c.size == 0 || c.size % kGranule != 0) return fmt::format("chunk {} size {}", h, c.size);
      if (c.in_use) {
        ++live;
        in_use += c.size;
        if (live_.find(c.addr) != h) return fmt::format("live chunk {} missing from table", h);
      } else {
        ++free_chunks;
        if (prev_free) return fmt::format("free chunk {} next to a free neighbour", h);
        const int b = bin_index(c.size);
        auto it = bins_[b].find(FreeKey{c.size, c.addr, h});
        if (it == bins_[b].end() || it->chunk != h || it != c.bin_pos) {
          return fmt::format("free chunk {} not in bin {}", h, b);
        }
      }
      prev_free = !c.in_use;
      expect = c.addr + c.size;
      prev = h;
    }
    if (expect != r.base + r.size) return fmt::format("region at {:#x} not covered", r.base);
  }
  std::size_t binned = 0;
  for (int b = 0; b < kNumBins; ++b) {
    binned += bins_[b].size();
    if (bins_[b].empty() == (nonempty_bins_ >> b & 1)) return fmt::format("bin mask bit {}", b);
  }
  if (binned != free_chunks) return fmt::format("{} binned, {} free chunks", binned, free_chunks);
  if (live != live_.size()) return fmt::format("{} live chunks, table has {}", live, live_.size());
  if (reserved != bytes_reserved_) return "reserved bytes disagree with the regions";
  if (in_use != bytes_in_use_) return "bytes in use disagree with the chunks";
  if (bytes_reserved_ > usable_limit_) return "reserved beyond the limit";
  if (peak_bytes_in_use_ < bytes_in_use_) return "peak below current";
  return "";
}

}  // namespace eagle::memory
