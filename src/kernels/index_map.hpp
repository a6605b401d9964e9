// Note [Index maps]
// ~~~~~~~~~~~~~~~~~
// Tile, Pad, PadV2, MirrorPad and ReverseV2 each read every output element from at most one input
// element, chosen dimension by dimension: output coordinate o of dimension d reads input
// coordinate
//   kCopy       o - before (Pad's constant where that is outside the input; before 0: identity)
//   kTile       o mod in
//   kReverse    in - 1 - o
//   kReflect    o - before, mirrored about the first and last element (REFLECT: [c b | a b c | b
//   a]) kSymmetric  o - before, mirrored about the edges (SYMMETRIC: [b a | a b c | c b])
// One plan describes the op and one function, shared by the CPU and the CUDA kernels, maps an
// output index to its input offset, so both backends compute the same thing by construction.
#pragma once

#include <cstdint>
#include <vector>

#include "eagle/shape.hpp"
#include "kernels/host_device.hpp"
#include "opdefs/attrs.hpp"

namespace eagle::kernels {

enum IndexMapMode : int { kCopy, kTile, kReverse, kReflect, kSymmetric };

struct IndexMap {
  int rank = 0;
  std::int64_t out_dims[Shape::kMaxRank] = {};
  std::int64_t in_dims[Shape::kMaxRank] = {};
  std::int64_t in_strides[Shape::kMaxRank] = {};
  std::int64_t before[Shape::kMaxRank] = {};
  int mode[Shape::kMaxRank] = {};
};

// The input offset (in elements) output element `i` reads, or -1 for Pad's constant.
EAGLE_HOST_DEVICE inline std::int64_t source_offset(const IndexMap& m, std::int64_t i) {
  std::int64_t offset = 0;
  for (int d = m.rank - 1; d >= 0; --d) {
    const std::int64_t q = i / m.out_dims[d];
    const std::int64_t o = i - q * m.out_dims[d];
    i = q;
    const std::int64_t n = m.in_dims[d];
    std::int64_t s = o - m.before[d];
    switch (m.mode[d]) {
      case kTile:
        s = o % n;
        break;
      case kReverse:
        s = n - 1 - o;
        break;
      case kReflect:
        if (s < 0) s = -s;
        if (s >= n) s = 2 * (n - 1) - s;
        break;
      case kSymmetric:
        if (s < 0) s = -s - 1;
        if (s >= n) s = 2 * n - 1 - s;
        break;
      default:  // kCopy
        if (s < 0 || s >= n) return -1;
        break;
    }
    offset += s * m.in_strides[d];
  }
  return offset;
}

// The plan of an op from its input shape, its output shape and a mode and offset per dimension.
inline IndexMap make_index_map(const Shape& in, const Shape& out, const std::vector<int>& modes,
                               const std::vector<std::int64_t>& before) {
  IndexMap m;
  m.rank = in.rank();
  std::int64_t stride = 1;
  for (int d = m.rank - 1; d >= 0; --d) {
    m.out_dims[d] = out[d];
    m.in_dims[d] = in[d];
    m.in_strides[d] = stride;
    stride *= in[d];
    m.mode[d] = modes[static_cast<std::size_t>(d)];
    m.before[d] = before.empty() ? 0 : before[static_cast<std::size_t>(d)];
  }
  return m;
}

inline IndexMap tile_map(const Shape& in, const Shape& out) {
  return make_index_map(in, out, std::vector<int>(static_cast<std::size_t>(in.rank()), kTile), {});
}

// Pad and PadV2 (mirror false), MirrorPad (mirror true).
inline IndexMap pad_map(const Shape& in, const Shape& out, const opdefs::PadAttrs& attrs,
                        bool mirror) {
  const int mode = !mirror ? kCopy : attrs.symmetric ? kSymmetric : kReflect;
  return make_index_map(in, out, std::vector<int>(static_cast<std::size_t>(in.rank()), mode),
                        attrs.before);
}

inline IndexMap reverse_map(const Shape& in, const std::vector<int>& axes) {
  std::vector<int> modes(static_cast<std::size_t>(in.rank()), kCopy);
  for (int a : axes) modes[static_cast<std::size_t>(a)] = kReverse;
  return make_index_map(in, in, modes, {});
}

}  // namespace eagle::kernels
