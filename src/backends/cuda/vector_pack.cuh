// 16-byte vector loads and stores for elementwise kernels: one LDG.128/STG.128 moves
// 16 / sizeof(T) elements, which is what it takes to reach the memory bandwidth.
#pragma once

#include <cstdint>

namespace eagle::cuda {

template <class T>
inline constexpr int kPackWidth = sizeof(T) >= 16 ? 1 : static_cast<int>(16 / sizeof(T));

template <class T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// Pack `p` of `data` (elements p * N .. p * N + N - 1).
template <int N, class T>
__device__ __forceinline__ Pack<T, N> load_pack(const T* data, std::int64_t p) {
  return reinterpret_cast<const Pack<T, N>*>(data)[p];
}
template <int N, class T>
__device__ __forceinline__ void store_pack(T* data, std::int64_t p, const Pack<T, N>& pack) {
  reinterpret_cast<Pack<T, N>*>(data)[p] = pack;
}

template <class T>
inline bool is_pack_aligned(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(Pack<T, kPackWidth<T>>) == 0;
}

}  // namespace eagle::cuda
