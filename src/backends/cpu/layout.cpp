#include "cpu/layout.hpp"

#include <algorithm>
#include <cstring>

namespace eagle::cpu {
namespace {

using std::int64_t;
using Byte = unsigned char;

// One dimension of a strided copy: `size` elements, `in_stride` / `out_stride` elements apart.
struct Dim {
  int64_t size;
  int64_t in_stride;
  int64_t out_stride;
};

// Copies one element of type E (a fixed-size unsigned integer) without aliasing concerns.
template <class E>
inline void copy_one(Byte* dst, const Byte* src) {
  E v;
  std::memcpy(&v, src, sizeof(E));
  std::memcpy(dst, &v, sizeof(E));
}

// out[i * out_stride_p + j] = in[i + j * in_stride_l] for i < np, j < nl (element units),
// in square tiles so that both the strided reads and the strided writes stay in cache.
template <class E>
void transpose_2d(const Byte* in, Byte* out, int64_t np, int64_t nl, int64_t in_stride_l,
                  int64_t out_stride_p) {
  constexpr int64_t kTile = 32;
  constexpr int64_t es = sizeof(E);
  for (int64_t i0 = 0; i0 < np; i0 += kTile) {
    const int64_t i1 = std::min(np, i0 + kTile);
    for (int64_t j0 = 0; j0 < nl; j0 += kTile) {
      const int64_t j1 = std::min(nl, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i) {
        Byte* o = out + (i * out_stride_p) * es;
        const Byte* s = in + i * es;
        for (int64_t j = j0; j < j1; ++j) copy_one<E>(o + j * es, s + j * in_stride_l * es);
      }
    }
  }
}

// Runs body(in_offset, out_offset) (element units) for every index of `dims` in row-major
// order.
template <class Body>
void for_each_index(const std::vector<Dim>& dims, Body&& body) {
  const int r = static_cast<int>(dims.size());
  int64_t count = 1;
  for (const Dim& d : dims) count *= d.size;
  int64_t idx[Shape::kMaxRank + 1] = {};
  int64_t in_off = 0;
  int64_t out_off = 0;
  for (int64_t c = 0; c < count; ++c) {
    body(in_off, out_off);
    for (int a = r - 1; a >= 0; --a) {
      if (++idx[a] < dims[a].size) {
        in_off += dims[a].in_stride;
        out_off += dims[a].out_stride;
        break;
      }
      idx[a] = 0;
      in_off -= (dims[a].size - 1) * dims[a].in_stride;
      out_off -= (dims[a].size - 1) * dims[a].out_stride;
    }
  }
}

template <class E>
void transpose_typed(const Byte* in, Byte* out, const std::vector<Dim>& dims) {
  constexpr int64_t es = sizeof(E);
  const int r = static_cast<int>(dims.size());
  const Dim& last = dims[r - 1];
  if (last.in_stride == 1) {
    // The input's contiguous dimension stays last: copy contiguous runs.
    const std::vector<Dim> outer(dims.begin(), dims.end() - 1);
    const std::size_t run = static_cast<std::size_t>(last.size * es);
    for_each_index(outer,
                   [&](int64_t i, int64_t o) { std::memcpy(out + o * es, in + i * es, run); });
    return;
  }
  // The input's contiguous dimension p moved elsewhere: tiled 2-D transposes of (p, last).
  int p = 0;
  while (dims[p].in_stride != 1) ++p;
  std::vector<Dim> rest;
  for (int a = 0; a < r - 1; ++a) {
    if (a != p) rest.push_back(dims[a]);
  }
  const int64_t np = dims[p].size;
  const int64_t out_stride_p = dims[p].out_stride;
  for_each_index(rest, [&](int64_t i, int64_t o) {
    transpose_2d<E>(in + i * es, out + o * es, np, last.size, last.in_stride, out_stride_p);
  });
}

}  // namespace

void transpose(const void* in, const Shape& in_shape, const std::vector<int>& perm,
               std::size_t element_size, void* out) {
  const int rank = in_shape.rank();
  const int64_t n = in_shape.num_elements();
  if (n == 0) return;
  int64_t in_strides[Shape::kMaxRank + 1];
  int64_t sizes[Shape::kMaxRank + 1];
  int order[Shape::kMaxRank + 1];
  for (int a = 0; a < rank; ++a) {
    sizes[a] = in_shape[a];
    order[a] = perm[a];
  }
  int full_rank = rank;
  std::size_t es = element_size;
  if (es != 1 && es != 2 && es != 4 && es != 8) {
    // Any other element size: a trailing byte dimension that stays in place.
    sizes[rank] = static_cast<int64_t>(es);
    order[rank] = rank;
    full_rank = rank + 1;
    es = 1;
  }
  int64_t stride = 1;
  for (int a = full_rank - 1; a >= 0; --a) {
    in_strides[a] = stride;
    stride *= sizes[a];
  }
  // Output dimensions in output order, without size-1 dimensions, merging neighbours that are
  // also neighbours (in the same order) in the input.
  std::vector<Dim> dims;
  for (int k = 0; k < full_rank; ++k) {
    const int64_t size = sizes[order[k]];
    if (size == 1) continue;
    const int64_t s = in_strides[order[k]];
    if (!dims.empty() && dims.back().in_stride == s * size) {
      dims.back().size *= size;
      dims.back().in_stride = s;
    } else {
      dims.push_back({size, s, 0});
    }
  }
  const std::size_t bytes = static_cast<std::size_t>(n) * element_size;
  if (dims.size() <= 1) {  // identity up to size-1 dimensions
    std::memcpy(out, in, bytes);
    return;
  }
  int64_t out_stride = 1;
  for (int a = static_cast<int>(dims.size()) - 1; a >= 0; --a) {
    dims[a].out_stride = out_stride;
    out_stride *= dims[a].size;
  }
  const Byte* src = static_cast<const Byte*>(in);
  Byte* dst = static_cast<Byte*>(out);
  switch (es) {
    case 1:
      transpose_typed<std::uint8_t>(src, dst, dims);
      break;
    case 2:
      transpose_typed<std::uint16_t>(src, dst, dims);
      break;
    case 4:
      transpose_typed<std::uint32_t>(src, dst, dims);
      break;
    default:
      transpose_typed<std::uint64_t>(src, dst, dims);
      break;
  }
}

void concat(const std::vector<const void*>& inputs, const std::vector<Shape>& shapes, int axis,
            std::size_t element_size, void* out) {
  if (inputs.empty()) return;
  const Shape& s0 = shapes[0];
  // An empty output needs no copy, and is detected before multiplying sizes out: past a zero
  // dimension a Shape's sizes are unbounded (only running products are checked), so outer * inner
  // of a zero-element input could overflow. A non-empty input bounds them.
  bool any = false;
  for (const Shape& s : shapes) any = any || s.num_elements() != 0;
  if (!any) return;
  int64_t outer = 1;
  for (int a = 0; a < axis; ++a) outer *= s0[a];
  int64_t inner = 1;
  for (int a = axis + 1; a < s0.rank(); ++a) inner *= s0[a];
  if (outer == 0 || inner == 0) return;
  const std::size_t m = inputs.size();
  std::vector<std::size_t> chunk(m);
  std::size_t out_chunk = 0;
  for (std::size_t i = 0; i < m; ++i) {
    chunk[i] = static_cast<std::size_t>(shapes[i][axis] * inner) * element_size;
    out_chunk += chunk[i];
  }
  if (out_chunk == 0) return;
  Byte* dst = static_cast<Byte*>(out);
  if (outer == 1) {
    for (std::size_t i = 0; i < m; ++i) {
      if (chunk[i] == 0) continue;
      std::memcpy(dst, inputs[i], chunk[i]);
      dst += chunk[i];
    }
    return;
  }
  for (std::size_t i = 0; i < m; ++i) {
    if (chunk[i] == 0) continue;
    const Byte* src = static_cast<const Byte*>(inputs[i]);
    Byte* d = dst;
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(d, src, chunk[i]);
      src += chunk[i];
      d += out_chunk;
    }
    dst += chunk[i];
  }
}

void slice(const void* in, const Shape& in_shape, const std::vector<int64_t>& begin,
           const Shape& size, std::size_t element_size, void* out) {
  const int rank = in_shape.rank();
  if (size.num_elements() == 0) return;
  // k: the outermost dimension from which on the box is one contiguous run of the input.
  int k = rank - 1;
  while (k > 0 && size[k] == in_shape[k]) --k;
  int64_t in_strides[Shape::kMaxRank];
  int64_t stride = 1;
  for (int a = rank - 1; a >= 0; --a) {
    in_strides[a] = stride;
    stride *= in_shape[a];
  }
  int64_t run = 1;
  for (int a = std::max(k, 0); a < rank; ++a) run *= size[a];
  int64_t start = 0;
  for (int a = 0; a < rank; ++a) start += begin[a] * in_strides[a];
  const Byte* src = static_cast<const Byte*>(in) + static_cast<std::size_t>(start) * element_size;
  Byte* dst = static_cast<Byte*>(out);
  const std::size_t run_bytes = static_cast<std::size_t>(run) * element_size;
  std::vector<Dim> dims;
  for (int a = 0; a < k; ++a) dims.push_back({size[a], in_strides[a], 0});
  int64_t out_stride = run;
  for (int a = k - 1; a >= 0; --a) {
    dims[a].out_stride = out_stride;
    out_stride *= size[a];
  }
  const std::size_t es = element_size;
  for_each_index(dims, [&](int64_t i, int64_t o) {
    std::memcpy(dst + static_cast<std::size_t>(o) * es, src + static_cast<std::size_t>(i) * es,
                run_bytes);
  });
}

}  // namespace eagle::cpu
