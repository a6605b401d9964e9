#include "eagle/random_seed.hpp"

#include <mutex>
#include <random>

namespace eagle::random {
namespace {

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;

// splitmix64's finaliser: nearby inputs give unrelated outputs.
std::uint64_t mix(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct State {
  std::mutex mutex;
  std::optional<std::uint64_t> global;
  std::uint64_t drawn = 0;  // seeds taken from the global seed's sequence since set_seed
  std::uint64_t fresh = 0;  // seeds drawn without any seed
};

State& state() {
  static State s;
  return s;
}

std::uint64_t entropy() {
  static const std::uint64_t base =
      std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
  return base;
}

}  // namespace

void set_seed(std::optional<std::uint64_t> seed) {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.global = seed;
  s.drawn = 0;
}

std::optional<std::uint64_t> global_seed() {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  return s.global;
}

std::uint64_t get_seed(std::optional<std::uint64_t> op_seed) {
  State& s = state();
  std::unique_lock<std::mutex> lock(s.mutex);
  if (!s.global) {
    if (op_seed) return *op_seed;
    const std::uint64_t n = s.fresh++;
    lock.unlock();
    return entropy() ^ (n * kGolden);
  }
  const std::uint64_t global = *s.global;
  if (op_seed) return *op_seed ^ mix(global) ^ mix(kDefaultGlobalSeed);
  return mix(mix(global) + ++s.drawn * kGolden);
}

}  // namespace eagle::random
