#include "cpu/reduce.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <type_traits>

#include "cpu/intra_op_pool.hpp"
#include "cpu/numeric.hpp"

namespace eagle::cpu {
EAGLE_CPU_ISA_BEGIN
namespace {

using std::int64_t;

// Returns `src` as an array of C, converting the 16-bit floats into `buf` (n elements).
template <class T, class C>
inline const C* load(const T* src, int64_t n, C* buf) {
  if constexpr (std::is_same_v<T, C>) {
    (void)n;
    (void)buf;
    return src;
  } else {
    for (int64_t i = 0; i < n; ++i) buf[i] = static_cast<float>(src[i]);
    return buf;
  }
}

// Accumulator types of a sum: integers wrap through their unsigned twins; float32 partial sums
// (blocks of a few thousand elements) are combined in double.
template <class C>
struct SumTypes {
  using acc = C;
  using wide = C;
};
template <>
struct SumTypes<float> {
  using acc = float;
  using wide = double;
};
template <>
struct SumTypes<std::int32_t> {
  using acc = std::uint32_t;
  using wide = std::uint32_t;
};
template <>
struct SumTypes<std::int64_t> {
  using acc = std::uint64_t;
  using wide = std::uint64_t;
};

// An Op folds values of the compute type C into an Acc (step, combine); blocks of Acc results
// are folded into a Wide (widen).
template <class C>
struct SumOp {
  using Acc = typename SumTypes<C>::acc;
  using Wide = typename SumTypes<C>::wide;
  static constexpr bool kChunked = !std::is_same_v<Acc, Wide>;
  static Acc identity() { return Acc(0); }
  static Wide wide_identity() { return Wide(0); }
  static Acc step(Acc a, C x) { return a + static_cast<Acc>(x); }
  static Acc combine(Acc a, Acc b) { return a + b; }
  static Wide widen(Wide w, Acc a) { return w + static_cast<Wide>(a); }
  static Wide merge(Wide a, Wide b) { return a + b; }
};

// NaN-propagating max/min: a NaN accumulator stays, a NaN input replaces the accumulator.
// Written as selects on comparisons so that the loops vectorize.
template <class C>
struct MaxOp {
  using Acc = C;
  using Wide = C;
  static constexpr bool kChunked = false;
  static C identity() {
    if constexpr (std::is_floating_point_v<C>) {
      return -std::numeric_limits<C>::infinity();
    } else {
      return std::numeric_limits<C>::lowest();
    }
  }
  static C wide_identity() { return identity(); }
  static C step(C a, C x) {
    if constexpr (std::is_floating_point_v<C>) {
      return ((a != a) | (x < a)) ? a : x;
    } else {
      return x > a ? x : a;
    }
  }
  static C combine(C a, C b) { return step(a, b); }
  static C widen(C a, C b) { return step(a, b); }
  static C merge(C a, C b) { return step(a, b); }
};

template <class C>
struct MinOp {
  using Acc = C;
  using Wide = C;
  static constexpr bool kChunked = false;
  static C identity() {
    if constexpr (std::is_floating_point_v<C>) {
      return std::numeric_limits<C>::infinity();
    } else {
      return std::numeric_limits<C>::max();
    }
  }
  static C wide_identity() { return identity(); }
  static C step(C a, C x) {
    if constexpr (std::is_floating_point_v<C>) {
      return ((a != a) | (x > a)) ? a : x;
    } else {
      return x < a ? x : a;
    }
  }
  static C combine(C a, C b) { return step(a, b); }
  static C widen(C a, C b) { return step(a, b); }
  static C merge(C a, C b) { return step(a, b); }
};

// Products: integers wrap through their unsigned twins, floats multiply in their compute type.
template <class C>
struct ProdOp {
  using Acc = typename SumTypes<C>::acc;  // unsigned twins for integers, C otherwise
  using Wide = Acc;
  static constexpr bool kChunked = false;
  static Acc identity() { return Acc(1); }
  static Wide wide_identity() { return Wide(1); }
  static Acc step(Acc a, C x) { return a * static_cast<Acc>(x); }
  static Acc combine(Acc a, Acc b) { return a * b; }
  static Wide widen(Wide w, Acc a) { return w * a; }
  static Wide merge(Wide a, Wide b) { return a * b; }
};

// Any / All over bool.
template <bool kAll>
struct LogicalOp {
  using Acc = bool;
  using Wide = bool;
  static constexpr bool kChunked = false;
  static bool identity() { return kAll; }
  static bool wide_identity() { return kAll; }
  static bool step(bool a, bool x) { return kAll ? (a & x) : (a | x); }
  static bool combine(bool a, bool b) { return step(a, b); }
  static bool widen(bool a, bool b) { return step(a, b); }
  static bool merge(bool a, bool b) { return step(a, b); }
};

// Converts a finished accumulator of `count` elements into the output value.
template <class T, class Wide>
inline T finalize(ReduceKind kind, Wide w, int64_t count) {
  if constexpr (std::is_integral_v<T>) {
    const T v = static_cast<T>(w);  // two's complement wrap (unsigned -> signed is modular)
    if (kind == ReduceKind::kMean) return count == 0 ? T(0) : static_cast<T>(v / count);
    return v;
  } else {
    using C = compute_t<T>;
    if (kind == ReduceKind::kMean) {
      if (count == 0) return T(std::numeric_limits<C>::quiet_NaN());
      return T(static_cast<C>(w / static_cast<Wide>(count)));
    }
    return T(static_cast<C>(w));
  }
}

// Folds a contiguous run with several independent accumulators (vectorizes, shortens the
// dependency chain, and for sums reduces rounding error).
template <class Op, class C>
typename Op::Acc reduce_block(const C* x, int64_t n) {
  using Acc = typename Op::Acc;
  constexpr int kLanes = 16;
  Acc acc[kLanes];
  for (int j = 0; j < kLanes; ++j) acc[j] = Op::identity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) acc[j] = Op::step(acc[j], x[i + j]);
  }
  for (; i < n; ++i) acc[0] = Op::step(acc[0], x[i]);
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int j = 0; j < w; ++j) acc[j] = Op::combine(acc[j], acc[j + w]);
  }
  return acc[0];
}

// Folds one contiguous row of n elements.
template <class Op, class T>
typename Op::Wide reduce_row(const T* x, int64_t n) {
  using C = compute_t<T>;
  using Acc = typename Op::Acc;
  if (n < 32) {
    Acc acc = Op::identity();
    for (int64_t i = 0; i < n; ++i) acc = Op::step(acc, static_cast<C>(x[i]));
    return Op::widen(Op::wide_identity(), acc);
  }
  constexpr int64_t kBlock = 2048;
  C buf[is_half_v<T> ? kBlock : 1];
  typename Op::Wide total = Op::wide_identity();
  for (int64_t b0 = 0; b0 < n; b0 += kBlock) {
    const int64_t nb = std::min(kBlock, n - b0);
    total = Op::widen(total, reduce_block<Op>(load(x + b0, nb, buf), nb));
  }
  return total;
}

// Columns per tile: 2048 keeps the accumulators (8 KiB float, 16 KiB double) in L1 and reads each
// row in 8 KiB runs that the prefetchers follow; 256-column tiles (1 KiB runs, 16 KiB apart) made
// reduce_sum over axis 0 of [4096, 4096] twice as slow as NumPy.
constexpr int64_t kTile = 2048;

template <class Op, class C>
inline void accumulate_row(typename Op::Acc* acc, const C* x, int64_t w) {
  if (w == kTile) {  // constant trip count: vectorizes even under GCC's cheap cost model
    for (int64_t j = 0; j < kTile; ++j) acc[j] = Op::step(acc[j], x[j]);
  } else {
    for (int64_t j = 0; j < w; ++j) acc[j] = Op::step(acc[j], x[j]);
  }
}

// Four rows `stride` apart at once: a quarter of the accumulator loads and stores.
template <class Op, class C>
inline void accumulate_4rows(typename Op::Acc* acc, const C* x, int64_t stride, int64_t w) {
  const C* x1 = x + stride;
  const C* x2 = x1 + stride;
  const C* x3 = x2 + stride;
  if (w == kTile) {
    for (int64_t j = 0; j < kTile; ++j) {
      acc[j] = Op::step(Op::step(Op::step(Op::step(acc[j], x[j]), x1[j]), x2[j]), x3[j]);
    }
  } else {
    for (int64_t j = 0; j < w; ++j) {
      acc[j] = Op::step(Op::step(Op::step(Op::step(acc[j], x[j]), x1[j]), x2[j]), x3[j]);
    }
  }
}

// Columns [j0, j0 + w) of in: [r, inner] -> out[j0, j0 + w); accumulates whole rows of the tile so
// that the accumulators stay in L1.
template <class Op, class T>
void reduce_column_tile(ReduceKind kind, const T* base, int64_t r, int64_t inner, int64_t j0,
                        int64_t w, T* obase) {
  using C = compute_t<T>;
  using Acc = typename Op::Acc;
  using Wide = typename Op::Wide;
  // Sums in float32 restart their accumulators every kChunkRows rows (bounded error).
  constexpr int64_t kChunkRows = Op::kChunked ? 128 : std::numeric_limits<int64_t>::max();
  Acc acc[kTile];
  Wide wide[kTile];
  C buf[is_half_v<T> ? kTile : 1];
  for (int64_t j = 0; j < w; ++j) wide[j] = Op::wide_identity();
  int64_t r0 = 0;
  while (r0 < r) {
    const int64_t r1 = (r - r0 > kChunkRows) ? r0 + kChunkRows : r;
    for (int64_t j = 0; j < w; ++j) acc[j] = Op::identity();
    int64_t i = r0;
    if constexpr (!is_half_v<T>) {
      for (; i + 4 <= r1; i += 4) accumulate_4rows<Op>(acc, base + i * inner + j0, inner, w);
    }
    for (; i < r1; ++i) accumulate_row<Op>(acc, load(base + i * inner + j0, w, buf), w);
    for (int64_t j = 0; j < w; ++j) wide[j] = Op::widen(wide[j], acc[j]);
    r0 = r1;
  }
  for (int64_t j = 0; j < w; ++j) obase[j0 + j] = finalize<T>(kind, wide[j], r);
}

// in: [outer, r, inner] -> out: [outer, inner], one (outer index, column tile) per task.
template <class Op, class T>
void reduce_columns(ReduceKind kind, const T* in, int64_t outer, int64_t r, int64_t inner, T* out) {
  const int64_t tiles = (inner + kTile - 1) / kTile;
  const int64_t tile_bytes = r * std::min(kTile, inner) * static_cast<int64_t>(sizeof(T));
  parallel_for(outer * tiles, tile_bytes, [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t o = u / tiles;
      const int64_t j0 = (u % tiles) * kTile;
      reduce_column_tile<Op>(kind, in + o * r * inner, r, inner, j0, std::min(kTile, inner - j0),
                             out + o * inner);
    }
  });
}

// Rows longer than this are folded in blocks of this many elements whose results are merged in
// order; the blocks of one row may run on different threads (Note [Intra-op parallelism]), and
// the value is the same on any number of threads.
constexpr int64_t kRowBlock = int64_t{1} << 16;

template <class Op, class T>
typename Op::Wide reduce_long_row(const T* x, int64_t n) {
  typename Op::Wide total = reduce_row<Op>(x, std::min(n, kRowBlock));
  for (int64_t b0 = kRowBlock; b0 < n; b0 += kRowBlock) {
    total = Op::merge(total, reduce_row<Op>(x + b0, std::min(kRowBlock, n - b0)));
  }
  return total;
}

// in: [outer, r, inner] -> out: [outer, inner].
template <class Op, class T>
void reduce_3d(ReduceKind kind, const T* in, int64_t outer, int64_t r, int64_t inner, T* out) {
  if (inner != 1) return reduce_columns<Op>(kind, in, outer, r, inner, out);
  const int64_t row_bytes = r * static_cast<int64_t>(sizeof(T));
  if (outer > 1 || r <= kRowBlock) {
    parallel_for(outer, row_bytes, [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        out[o] = finalize<T>(kind, reduce_long_row<Op>(in + o * r, r), r);
      }
    });
    return;
  }
  // One long row: its blocks in parallel, merged in order as reduce_long_row does.
  using Wide = typename Op::Wide;
  const int64_t blocks = (r + kRowBlock - 1) / kRowBlock;
  std::unique_ptr<Wide[]> partial(new Wide[static_cast<std::size_t>(blocks)]);
  parallel_for(blocks, kRowBlock * static_cast<int64_t>(sizeof(T)), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      partial[b] = reduce_row<Op>(in + b * kRowBlock, std::min(kRowBlock, r - b * kRowBlock));
    }
  });
  Wide total = partial[0];
  for (int64_t b = 1; b < blocks; ++b) total = Op::merge(total, partial[b]);
  out[0] = finalize<T>(kind, total, r);
}

template <class T>
void dispatch_3d(ReduceKind kind, const T* in, int64_t outer, int64_t r, int64_t inner, T* out) {
  using C = compute_t<T>;
  if constexpr (std::is_same_v<T, bool>) {  // Any and All are the only bool reductions
    if (kind == ReduceKind::kAll) {
      reduce_3d<LogicalOp<true>>(kind, in, outer, r, inner, out);
    } else {
      reduce_3d<LogicalOp<false>>(kind, in, outer, r, inner, out);
    }
  } else {
    switch (kind) {
      case ReduceKind::kSum:
      case ReduceKind::kMean:
        reduce_3d<SumOp<C>>(kind, in, outer, r, inner, out);
        break;
      case ReduceKind::kProd:
        reduce_3d<ProdOp<C>>(kind, in, outer, r, inner, out);
        break;
      case ReduceKind::kMax:
        reduce_3d<MaxOp<C>>(kind, in, outer, r, inner, out);
        break;
      case ReduceKind::kMin:
        reduce_3d<MinOp<C>>(kind, in, outer, r, inner, out);
        break;
      case ReduceKind::kAny:
      case ReduceKind::kAll:
        break;  // bool only
    }
  }
}

// The value of a reduction over an empty set.
template <class T>
T empty_value(ReduceKind kind) {
  using C = compute_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return kind == ReduceKind::kAll;  // all of nothing is true, any of nothing false
  } else {
    switch (kind) {
      case ReduceKind::kSum:
        return T(C(0));
      case ReduceKind::kProd:
        return T(C(1));
      case ReduceKind::kMean:
        return finalize<T>(kind, C(0), 0);
      case ReduceKind::kMax:
        return T(MaxOp<C>::identity());
      case ReduceKind::kMin:
      case ReduceKind::kAny:
      case ReduceKind::kAll:
        break;
    }
    return T(MinOp<C>::identity());
  }
}

// Note [ArgMax and NaN]: TensorFlow's ArgMax starts from (index 0, the lowest value of T) and
// takes an element only when it is strictly greater than the best so far. NaN is never greater,
// so NaNs are passed over; the first of equal maxima wins; a row with nothing above the lowest
// value (all NaN, or -inf and NaN) gives 0. ArgMin mirrors it with the highest value. The CUDA
// kernels follow the same rule, combined in any order (best_of in
// backends/cuda/reduction_kernels.cu).
template <class T, bool kMax>
compute_t<T> arg_start() {
  using C = compute_t<T>;
  if constexpr (is_half_v<T>) {  // the limits of the 16-bit type, not of float
    const T limit = T::from_bits(kMax ? 0xfbff : 0x7bff);  // float16: -/+65504
    if constexpr (std::is_same_v<T, bfloat16>) {
      return C(T::from_bits(kMax ? 0xff7f : 0x7f7f));  // bfloat16: -/+3.3895e38
    }
    return C(limit);
  } else if constexpr (kMax) {
    return std::numeric_limits<C>::lowest();
  } else {
    return std::numeric_limits<C>::max();
  }
}

template <bool kMax, class C>
inline bool arg_takes(C x, C best) {
  if constexpr (kMax) {
    return x > best;
  } else {
    return x < best;
  }
}

// The arg-reduction of one contiguous row.
template <class T, bool kMax>
int64_t arg_row(const T* x, int64_t n) {
  using C = compute_t<T>;
  C best = arg_start<T, kMax>();
  int64_t index = 0;
  for (int64_t i = 0; i < n; ++i) {
    const C v = static_cast<C>(x[i]);
    if (arg_takes<kMax>(v, best)) {
      best = v;
      index = i;
    }
  }
  return index;
}

// Copies the box sizes[0..rank) with element strides `strides` (the last one 1) from src into
// dst, row-major, one contiguous run of the last dimension at a time.
template <class T>
void gather_runs(const T* src, const int64_t* sizes, const int64_t* strides, int rank, T* dst) {
  const int64_t run = sizes[rank - 1];
  int64_t count = 1;
  for (int a = 0; a + 1 < rank; ++a) count *= sizes[a];
  int64_t idx[Shape::kMaxRank] = {};
  int64_t off = 0;
  for (int64_t c = 0; c < count; ++c) {
    std::copy_n(src + off, run, dst);
    dst += run;
    for (int a = rank - 2; a >= 0; --a) {
      if (++idx[a] < sizes[a]) {
        off += strides[a];
        break;
      }
      idx[a] = 0;
      off -= (sizes[a] - 1) * strides[a];
    }
  }
}

}  // namespace

template <class T>
void reduce(ReduceKind kind, const T* in, const Shape& in_shape, const std::vector<int>& axes,
            T* out) {
  const int rank = in_shape.rank();
  bool reduced[Shape::kMaxRank] = {};
  for (int a : axes) reduced[a] = true;
  int64_t out_count = 1;
  for (int a = 0; a < rank; ++a) {
    if (!reduced[a]) out_count *= in_shape[a];
  }
  if (out_count == 0) return;
  const int64_t n = in_shape.num_elements();
  if (n == 0) {  // some reduced dimension is empty
    std::fill(out, out + out_count, empty_value<T>(kind));
    return;
  }
  // Drop size-1 dimensions, merge neighbours that are both reduced or both kept.
  int64_t dims[Shape::kMaxRank];
  bool red[Shape::kMaxRank];
  int m = 0;
  for (int a = 0; a < rank; ++a) {
    if (in_shape[a] == 1) continue;
    if (m > 0 && red[m - 1] == reduced[a]) {
      dims[m - 1] *= in_shape[a];
    } else {
      dims[m] = in_shape[a];
      red[m] = reduced[a];
      ++m;
    }
  }
  int groups = 0;
  int first = -1;
  for (int g = 0; g < m; ++g) {
    if (red[g]) {
      ++groups;
      if (first < 0) first = g;
    }
  }
  if (groups == 0) {  // nothing to reduce: an elementwise finalize (mean over one element)
    dispatch_3d(kind, in, 1, 1, n, out);
    return;
  }
  if (groups == 1) {
    int64_t outer = 1;
    for (int g = 0; g < first; ++g) outer *= dims[g];
    int64_t inner = 1;
    for (int g = first + 1; g < m; ++g) inner *= dims[g];
    dispatch_3d(kind, in, outer, dims[first], inner, out);
    return;
  }
  // Several reduced groups, with kept groups between them. Output = [outer groups..., inner],
  // inner being a trailing kept group (or 1). Transpose blockwise: B consecutive indices of the
  // innermost outer group at a time are gathered (contiguous runs of the last dimension) into a
  // cache-sized scratch [B, reduced groups..., inner] and reduced as [B, r, inner].
  const bool last_kept = !red[m - 1];
  const int64_t inner = last_kept ? dims[m - 1] : 1;
  int64_t strides[Shape::kMaxRank];
  int64_t stride = 1;
  for (int g = m - 1; g >= 0; --g) {
    strides[g] = stride;
    stride *= dims[g];
  }
  int outer_groups[Shape::kMaxRank];
  int num_outer = 0;
  int64_t gather_sizes[Shape::kMaxRank];
  int64_t gather_strides[Shape::kMaxRank];
  int num_gather = 1;  // slot 0: the block of the innermost outer group
  int64_t r = 1;
  for (int g = 0; g < m; ++g) {
    if (red[g]) {
      r *= dims[g];
      gather_sizes[num_gather] = dims[g];
      gather_strides[num_gather++] = strides[g];
    } else if (g != m - 1) {
      outer_groups[num_outer++] = g;
    }
  }
  if (last_kept) {
    gather_sizes[num_gather] = inner;
    gather_strides[num_gather++] = 1;
  }
  const int q = outer_groups[num_outer - 1];  // a kept group lies between two reduced ones
  const int64_t per_index = r * inner;
  constexpr int64_t kScratchElements = int64_t{1} << 16;
  const int64_t block = std::max<int64_t>(1, std::min(dims[q], kScratchElements / per_index));
  std::unique_ptr<T[]> scratch(new T[static_cast<std::size_t>(block * per_index)]);
  gather_strides[0] = strides[q];
  int64_t idx[Shape::kMaxRank] = {};
  int64_t count = 1;
  for (int i = 0; i + 1 < num_outer; ++i) count *= dims[outer_groups[i]];
  int64_t in_off = 0;
  for (int64_t c = 0; c < count; ++c) {
    for (int64_t b0 = 0; b0 < dims[q]; b0 += block) {
      const int64_t nb = std::min(block, dims[q] - b0);
      gather_sizes[0] = nb;
      gather_runs(in + in_off + b0 * strides[q], gather_sizes, gather_strides, num_gather,
                  scratch.get());
      dispatch_3d(kind, scratch.get(), nb, r, inner, out + (c * dims[q] + b0) * inner);
    }
    for (int i = num_outer - 2; i >= 0; --i) {
      const int g = outer_groups[i];
      if (++idx[i] < dims[g]) {
        in_off += strides[g];
        break;
      }
      idx[i] = 0;
      in_off -= (dims[g] - 1) * strides[g];
    }
  }
}

namespace {

template <class T, bool kMax>
void arg_reduce(const T* in, const Shape& in_shape, int axis, std::int64_t* out) {
  using C = compute_t<T>;
  int64_t outer = 1;
  for (int a = 0; a < axis; ++a) outer *= in_shape[a];
  const int64_t len = in_shape[axis];
  int64_t inner = 1;
  for (int a = axis + 1; a < in_shape.rank(); ++a) inner *= in_shape[a];
  if (outer == 0 || inner == 0) return;
  if (len == 0) {
    std::fill(out, out + outer * inner, int64_t{0});
    return;
  }
  if (inner == 1) {
    for (int64_t o = 0; o < outer; ++o) out[o] = arg_row<T, kMax>(in + o * len, len);
    return;
  }
  C best[kTile];
  int64_t index[kTile];
  C buf[is_half_v<T> ? kTile : 1];
  for (int64_t o = 0; o < outer; ++o) {
    const T* base = in + o * len * inner;
    int64_t* obase = out + o * inner;
    for (int64_t j0 = 0; j0 < inner; j0 += kTile) {
      const int64_t w = std::min(kTile, inner - j0);
      for (int64_t j = 0; j < w; ++j) {
        best[j] = arg_start<T, kMax>();
        index[j] = 0;
      }
      for (int64_t i = 0; i < len; ++i) {
        const C* x = load(base + i * inner + j0, w, buf);
        for (int64_t j = 0; j < w; ++j) {
          const bool take = arg_takes<kMax>(x[j], best[j]);
          best[j] = take ? x[j] : best[j];
          index[j] = take ? i : index[j];
        }
      }
      for (int64_t j = 0; j < w; ++j) obase[j0 + j] = index[j];
    }
  }
}

}  // namespace

template <class T>
void argmax(const T* in, const Shape& in_shape, int axis, std::int64_t* out) {
  arg_reduce<T, true>(in, in_shape, axis, out);
}
template <class T>
void argmin(const T* in, const Shape& in_shape, int axis, std::int64_t* out) {
  arg_reduce<T, false>(in, in_shape, axis, out);
}

#define EAGLE_INSTANTIATE_REDUCE(T)                                                         \
  template void reduce<T>(ReduceKind, const T*, const Shape&, const std::vector<int>&, T*); \
  template void argmax<T>(const T*, const Shape&, int, std::int64_t*);                      \
  template void argmin<T>(const T*, const Shape&, int, std::int64_t*);

EAGLE_INSTANTIATE_REDUCE(float)
EAGLE_INSTANTIATE_REDUCE(double)
EAGLE_INSTANTIATE_REDUCE(std::int32_t)
EAGLE_INSTANTIATE_REDUCE(std::int64_t)
EAGLE_INSTANTIATE_REDUCE(float16)
EAGLE_INSTANTIATE_REDUCE(bfloat16)

template void reduce<bool>(ReduceKind, const bool*, const Shape&, const std::vector<int>&, bool*);
template void argmax<bool>(const bool*, const Shape&, int, std::int64_t*);
template void argmin<bool>(const bool*, const Shape&, int, std::int64_t*);

#undef EAGLE_INSTANTIATE_REDUCE

EAGLE_CPU_ISA_END
}  // namespace eagle::cpu
