// libFuzzer target for the shape ops (reshape, transpose, slice, expand_dims, squeeze, concat) on
// small tensors whose element i holds the value i, with arbitrary arguments: -1 sizes, duplicate,
// negative and out-of-range axes, wrong argument lengths, and zero-element inputs with huge
// dimensions. Every result is checked against a reference computed here (its shape, and the
// element each output position must come from); every refusal must be an InvalidArgumentError
// whose message names the op. Build and run: see docs/fuzzing.md.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;
using Dims = std::vector<std::int64_t>;

// __builtin_trap rather than assert: the check must stay on in any build mode.
void require(bool condition) {
  if (!condition) __builtin_trap();
}

// FUZZ_TRACE=1 prints each call, to turn a crashing input into a regression test.
void trace(const char* op, const Dims& in, const std::string& args) {
  static const bool on = std::getenv("FUZZ_TRACE") != nullptr;
  if (on) fmt::print(stderr, "{}(x of shape [{}], {})\n", op, fmt::join(in, ","), args);
}

constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
constexpr DType kDTypes[] = {DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64};

// The rule of Shape::push_back: rank <= 8, dimensions >= 0, every running product fits int64.
bool representable(const Dims& dims) {
  if (dims.size() > static_cast<std::size_t>(Shape::kMaxRank)) return false;
  std::int64_t n = 1;
  for (std::int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return false;
  }
  return true;
}

std::int64_t count_of(const Dims& dims) {
  std::int64_t n = 1;
  for (std::int64_t d : dims) n *= d;
  return n;
}

// Row-major multi-index <-> flat offset (only used for tensors with elements, so small).
Dims unravel(std::int64_t flat, const Dims& dims) {
  Dims index(dims.size());
  for (std::size_t i = dims.size(); i-- > 0;) {
    index[i] = flat % dims[i];
    flat /= dims[i];
  }
  return index;
}
std::int64_t ravel(const Dims& index, const Dims& dims) {
  std::int64_t flat = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) flat = flat * dims[i] + index[i];
  return flat;
}

// A tensor of `dtype` with the given dims whose element i is first + i.
Tensor iota(const Dims& dims, DType dtype, std::int64_t first) {
  const Shape shape(dims);
  std::vector<double> v(static_cast<std::size_t>(shape.num_elements()));
  std::iota(v.begin(), v.end(), static_cast<double>(first));
  return eagle::cast(eagle::constant_from_buffer(v.data(), static_cast<std::int64_t>(v.size()),
                                                 DType::kFloat64, shape),
                     dtype);
}

// The values of a tensor as int64 (exact: every value here is a small integer).
std::vector<std::int64_t> values(const Tensor& t) {
  return eagle::cast(t, DType::kInt64).to_vector<std::int64_t>();
}

// The input's dimensions: mostly small; sometimes a zero-element tensor with a huge dimension
// (dimension 0 is then 0, so the shape stays valid whatever follows).
Dims pick_dims(FuzzedDataProvider& p) {
  Dims dims(p.ConsumeIntegralInRange<std::size_t>(0, p.ConsumeBool() ? 4 : 8));
  const int max_dim = dims.size() > 5 ? 2 : 4;
  for (auto& d : dims) d = p.ConsumeIntegralInRange<std::int64_t>(0, max_dim);
  if (dims.size() >= 2 && p.ConsumeIntegralInRange<int>(0, 7) == 0) {
    dims[0] = 0;
    for (std::size_t i = 1; i < dims.size(); ++i) {
      if (p.ConsumeBool()) {
        dims[i] = (std::int64_t{1} << p.ConsumeIntegralInRange<int>(31, 62)) +
                  p.ConsumeIntegralInRange<std::int64_t>(-1, 1);
      }
    }
  }
  return dims;
}

std::int64_t pick_i64(FuzzedDataProvider& p, std::int64_t lo, std::int64_t hi) {
  switch (p.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return kI64Max;
    case 1:
      return std::numeric_limits<std::int64_t>::min();
    case 2:
      return -1;
    case 3:
      return p.ConsumeIntegral<std::int64_t>();
    default:
      return p.ConsumeIntegralInRange<std::int64_t>(lo, hi);
  }
}

int pick_axis(FuzzedDataProvider& p, int rank) {
  switch (p.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return std::numeric_limits<int>::min();
    case 1:
      return std::numeric_limits<int>::max();
    default:
      return p.ConsumeIntegralInRange<int>(-rank - 2, rank + 2);
  }
}

// Runs an op. `expected` dims: the result must have them and, when it has elements, hold at
// each position the input element that `source` names (-1: skip). Without dims the op must
// refuse with an InvalidArgumentError that names it.
template <class Op, class Source>
void check(const char* name, const std::optional<Dims>& expected, DType dtype, Op&& op,
           Source&& source) {
  try {
    const Tensor t = op();
    require(expected.has_value());
    require(t.shape().to_vector() == *expected && t.dtype() == dtype);
    if (t.num_elements() == 0) return;
    const std::vector<std::int64_t> got = values(t);
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(got.size()); ++i) {
      require(got[static_cast<std::size_t>(i)] == source(unravel(i, *expected)));
    }
  } catch (const eagle::InvalidArgumentError& e) {
    require(!expected.has_value());
    const std::string message = e.what();
    require(message.find(std::string("[Op:") + name + "]") != std::string::npos);
  }
}

void fuzz_reshape(FuzzedDataProvider& p, const Tensor& x, const Dims& in, DType dtype) {
  Dims shape(p.ConsumeIntegralInRange<std::size_t>(0, 9));
  const std::int64_t count = count_of(in);
  for (auto& d : shape) {
    d = p.ConsumeIntegralInRange<int>(0, 3) ? p.ConsumeIntegralInRange<std::int64_t>(-1, 6)
                                            : pick_i64(p, -3, count + 1);
  }
  if (p.ConsumeBool() && !shape.empty()) shape[0] = p.ConsumeBool() ? -1 : count;
  // TensorFlow's rule: one -1 at most, no other negative size, the product of the known sizes
  // without overflow; -1 takes count / known, which must divide evenly and not by zero.
  std::optional<Dims> expected;
  int inferred = -1;
  std::int64_t known = 1;
  bool ok = shape.size() <= static_cast<std::size_t>(Shape::kMaxRank);
  for (std::size_t i = 0; ok && i < shape.size(); ++i) {
    if (shape[i] == -1) {
      ok = inferred < 0;
      inferred = static_cast<int>(i);
    } else {
      ok = shape[i] >= 0 && !__builtin_mul_overflow(known, shape[i], &known);
    }
  }
  if (ok) {
    Dims dims = shape;
    if (inferred >= 0) {
      ok = known != 0 && count % known == 0;
      if (ok) dims[static_cast<std::size_t>(inferred)] = count / known;
    } else {
      ok = known == count;
    }
    if (ok) expected = dims;
  }
  trace("reshape", in, fmt::format("{{{}}}", fmt::join(shape, ",")));
  check(
      "Reshape", expected, dtype, [&] { return eagle::reshape(x, shape); },
      [&](const Dims& index) { return ravel(index, *expected); });
}

void fuzz_transpose(FuzzedDataProvider& p, const Tensor& x, const Dims& in, DType dtype) {
  const int rank = static_cast<int>(in.size());
  std::vector<int> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  switch (p.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:  // a real permutation
      for (int i = rank - 1; i > 0; --i) std::swap(perm[i], perm[p.ConsumeIntegralInRange(0, i)]);
      break;
    case 1:
      perm.clear();
      break;
    default:
      perm.resize(p.ConsumeIntegralInRange<std::size_t>(0, 9));
      for (int& a : perm) a = pick_axis(p, rank);
  }
  std::vector<int> effective = perm;
  if (perm.empty()) {
    for (int i = rank - 1; i >= 0; --i) effective.push_back(i);
  }
  std::vector<int> sorted = effective;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> identity(rank);
  std::iota(identity.begin(), identity.end(), 0);
  std::optional<Dims> expected;
  if (sorted == identity) {
    Dims dims;
    for (int a : effective) dims.push_back(in[a]);
    // Known limit, as in TensorFlow: a zero-element input whose permuted dimensions overflow
    // a running product has no representable output shape (docs/fuzzing.md).
    if (representable(dims)) {
      expected = dims;
    } else {
      try {
        eagle::transpose(x, perm);
        require(false);
      } catch (const eagle::InvalidArgumentError&) {
      }
      return;
    }
  }
  trace("transpose", in, fmt::format("{{{}}}", fmt::join(perm, ",")));
  check(
      "Transpose", expected, dtype, [&] { return eagle::transpose(x, perm); },
      [&](const Dims& out) {
        Dims index(in.size());
        for (std::size_t i = 0; i < out.size(); ++i) index[effective[i]] = out[i];
        return ravel(index, in);
      });
}

void fuzz_slice(FuzzedDataProvider& p, const Tensor& x, const Dims& in, DType dtype) {
  const std::size_t rank = in.size();
  Dims begin(p.ConsumeIntegralInRange<int>(0, 7) ? rank : p.ConsumeIntegralInRange(0, 9));
  Dims size(p.ConsumeIntegralInRange<int>(0, 7) ? rank : p.ConsumeIntegralInRange(0, 9));
  for (std::size_t i = 0; i < begin.size(); ++i) {
    const std::int64_t dim = i < rank ? std::min<std::int64_t>(in[i], 8) : 3;
    begin[i] = p.ConsumeIntegralInRange<int>(0, 3) ? p.ConsumeIntegralInRange<std::int64_t>(0, dim)
                                                   : pick_i64(p, -2, dim + 2);
  }
  for (std::size_t i = 0; i < size.size(); ++i) {
    const std::int64_t dim = i < rank ? std::min<std::int64_t>(in[i], 8) : 3;
    size[i] = p.ConsumeIntegralInRange<int>(0, 3) ? p.ConsumeIntegralInRange<std::int64_t>(-1, dim)
                                                  : pick_i64(p, -2, dim + 2);
  }
  std::optional<Dims> expected;
  if (begin.size() == rank && size.size() == rank) {
    Dims dims;
    for (std::size_t i = 0; i < rank; ++i) {
      if (begin[i] < 0 || begin[i] > in[i]) break;
      const std::int64_t s = size[i] == -1 ? in[i] - begin[i] : size[i];
      if (s < 0 || s > in[i] - begin[i]) break;
      dims.push_back(s);
    }
    if (dims.size() == rank) expected = dims;
  }
  trace("slice", in, fmt::format("{{{}}}, {{{}}}", fmt::join(begin, ","), fmt::join(size, ",")));
  check(
      "Slice", expected, dtype, [&] { return eagle::slice(x, begin, size); },
      [&](const Dims& out) {
        Dims index(rank);
        for (std::size_t i = 0; i < rank; ++i) index[i] = begin[i] + out[i];
        return ravel(index, in);
      });
}

void fuzz_expand_dims(FuzzedDataProvider& p, const Tensor& x, const Dims& in, DType dtype) {
  const int rank = static_cast<int>(in.size());
  const int axis = pick_axis(p, rank);
  std::optional<Dims> expected;
  if (axis >= -rank - 1 && axis <= rank && rank < Shape::kMaxRank) {
    Dims dims = in;
    dims.insert(dims.begin() + (axis < 0 ? axis + rank + 1 : axis), 1);
    expected = dims;
  }
  trace("expand_dims", in, std::to_string(axis));
  check(
      "ExpandDims", expected, dtype, [&] { return eagle::expand_dims(x, axis); },
      [&](const Dims& out) { return ravel(out, *expected); });
}

void fuzz_squeeze(FuzzedDataProvider& p, const Tensor& x, const Dims& in, DType dtype) {
  const int rank = static_cast<int>(in.size());
  std::vector<int> axes(p.ConsumeIntegralInRange<std::size_t>(0, 4));
  for (int& a : axes) a = pick_axis(p, rank);
  std::vector<bool> drop(in.size(), false);
  bool ok = true;
  for (std::size_t i = 0; i < in.size() && axes.empty(); ++i) drop[i] = in[i] == 1;
  for (int a : axes) {
    ok = ok && a >= -rank && a < rank && in[a < 0 ? a + rank : a] == 1;
    if (ok) drop[a < 0 ? a + rank : a] = true;
  }
  std::optional<Dims> expected;
  if (ok) {
    Dims dims;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (!drop[i]) dims.push_back(in[i]);
    }
    expected = dims;
  }
  trace("squeeze", in, fmt::format("{{{}}}", fmt::join(axes, ",")));
  check(
      "Squeeze", expected, dtype, [&] { return eagle::squeeze(x, axes); },
      [&](const Dims& out) { return ravel(out, *expected); });
}

// Values of input k are k * 100000 + i, so each output element names its input and position.
void fuzz_concat(FuzzedDataProvider& p, const Tensor& x, const Dims& in, DType dtype) {
  const int rank = static_cast<int>(in.size());
  const int axis = rank > 0 && p.ConsumeIntegralInRange<int>(0, 3)
                       ? p.ConsumeIntegralInRange(-rank, rank - 1)
                       : pick_axis(p, rank);
  const int a = axis < 0 ? axis + rank : axis;
  std::vector<Tensor> inputs{x};
  std::vector<Dims> dims{in};
  const std::size_t n = p.ConsumeIntegralInRange<std::size_t>(0, 3);
  bool same_dtype = true;
  for (std::size_t k = 1; k <= n; ++k) {
    Dims d = in;
    switch (p.ConsumeIntegralInRange<int>(0, 5)) {
      case 0:  // another size along the axis (if the axis is valid)
        if (a >= 0 && a < rank) {
          d[a] = in[a] > 4 ? in[a] : p.ConsumeIntegralInRange<std::int64_t>(0, 3);
        }
        break;
      case 1:  // another rank or another size elsewhere
        if (p.ConsumeBool() || d.empty()) {
          d.push_back(1);
        } else {
          d[p.ConsumeIntegralInRange<std::size_t>(0, d.size() - 1)] ^= 1;
        }
        break;
      default:
        break;
    }
    if (!representable(d) || count_of(d) > 4096) d = in;  // stay small
    DType t = dtype;
    if (p.ConsumeIntegralInRange<int>(0, 7) == 0) {
      t = dtype == DType::kInt32 ? DType::kFloat32 : DType::kInt32;
      same_dtype = false;
    }
    inputs.push_back(iota(d, t, static_cast<std::int64_t>(k) * 100000));
    dims.push_back(d);
  }
  // TensorFlow's rule: same dtype (checked first), rank >= 1, axis in [-rank, rank), equal
  // sizes except along the axis; the output's size there is the sum, which must fit int64.
  std::optional<Dims> expected;
  bool ok = same_dtype && rank > 0 && axis >= -rank && axis < rank;
  Dims out = in;
  for (std::size_t k = 1; ok && k < dims.size(); ++k) {
    ok = dims[k].size() == in.size();
    for (int d = 0; ok && d < rank; ++d) ok = d == a || dims[k][d] == in[d];
    ok = ok && !__builtin_add_overflow(out[a], dims[k][a], &out[a]);
  }
  if (ok && representable(out)) expected = out;
  std::string shapes;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    shapes +=
        fmt::format("{} [{}] ", eagle::dtype_name(inputs[k].dtype()), fmt::join(dims[k], ","));
  }
  trace("concat", in, fmt::format("inputs {}axis {}", shapes, axis));
  check(
      "ConcatV2", expected, dtype, [&] { return eagle::concat(inputs, axis); },
      [&](const Dims& index) {
        Dims at = index;
        std::size_t k = 0;
        while (at[a] >= dims[k][a]) at[a] -= dims[k++][a];
        return static_cast<std::int64_t>(k) * 100000 + ravel(at, dims[k]);
      });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider p(data, size);
  const int op = p.ConsumeIntegralInRange<int>(0, 5);
  const DType dtype = p.PickValueInArray(kDTypes);
  const Dims in = pick_dims(p);
  const Tensor x = iota(in, dtype, 0);
  require(x.shape().to_vector() == in && x.dtype() == dtype);
  switch (op) {
    case 0:
      fuzz_reshape(p, x, in, dtype);
      break;
    case 1:
      fuzz_transpose(p, x, in, dtype);
      break;
    case 2:
      fuzz_slice(p, x, in, dtype);
      break;
    case 3:
      fuzz_expand_dims(p, x, in, dtype);
      break;
    case 4:
      fuzz_squeeze(p, x, in, dtype);
      break;
    default:
      fuzz_concat(p, x, in, dtype);
  }
  // The input is immutable: whatever the op did, it still holds 0, 1, 2, ...
  if (x.num_elements() > 0) {
    const std::vector<std::int64_t> v = values(x);
    for (std::size_t i = 0; i < v.size(); ++i) require(v[i] == static_cast<std::int64_t>(i));
  }
  return 0;
}
