// reshape, transpose, expand_dims, squeeze, concat, slice, stack, unstack, split, tile, pad,
// reverse, broadcast_to, shape, tensordot.
#include <algorithm>
#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "eagle/ops.hpp"
#include "opdefs/attrs.hpp"
#include "ops/op_support.hpp"

namespace eagle {

Tensor reshape(const Tensor& x, const std::vector<std::int64_t>& shape) {
  ops::check_defined(x, opdefs::OpId::kReshape);
  const std::int64_t count = x.num_elements();
  int inferred = -1;
  std::int64_t known = 1;
  for (int i = 0; i < static_cast<int>(shape.size()); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0) {
        ops::throw_invalid(opdefs::OpId::kReshape,
                           fmt::format("Only one input size may be -1, not both "
                                       "{} and {}",
                                       inferred, i));
      }
      inferred = i;
    } else if (shape[i] < 0) {
      ops::throw_invalid(opdefs::OpId::kReshape,
                         fmt::format("Size {} must be non-negative, not {}", i, shape[i]));
    } else {
      // As TensorShape::AddDim: a count past int64 would wrap (undefined behaviour) and could
      // even match the input's count.
      if (shape[i] != 0 && known > std::numeric_limits<std::int64_t>::max() / shape[i]) {
        ops::throw_invalid(opdefs::OpId::kReshape,
                           fmt::format("Encountered overflow when multiplying "
                                       "{} with {}, result: -1",
                                       known, shape[i]));
      }
      known *= shape[i];
    }
  }
  if (shape.size() > static_cast<std::size_t>(Shape::kMaxRank)) {
    ops::throw_invalid(opdefs::OpId::kReshape,
                       fmt::format("Shape rank exceeds the maximum of {}", Shape::kMaxRank));
  }
  std::vector<std::int64_t> dims = shape;
  if (inferred >= 0) {
    // TensorFlow's ReshapeOp: when the requested sizes hold a 0, zero dimensions are left out of
    // both products, so [0, 3] -> [0, -1] infers 3 (and [-1, 0] infers 3 too).
    const bool sizes_have_zero = std::find(shape.begin(), shape.end(), 0) != shape.end();
    // Without their zeros the products can pass int64 ([0, 2^40, 2^40] has no elements).
    const auto multiply = [](std::int64_t& into, std::int64_t by) {
      const std::int64_t before = into;
      if (__builtin_mul_overflow(before, by, &into)) {
        ops::throw_invalid(opdefs::OpId::kReshape,
                           fmt::format("Encountered overflow when multiplying "
                                       "{} with {}, result: -1",
                                       before, by));
      }
    };
    std::int64_t product = 1;
    for (std::int64_t s : shape) {
      if (s > 0) multiply(product, s);
    }
    std::int64_t input_count = 1;
    bool input_has_zero = false;
    for (std::int64_t d : x.shape()) {
      if (d > 0 || !sizes_have_zero) {
        multiply(input_count, d);
      } else {
        input_has_zero = true;
      }
    }
    if (!input_has_zero && input_count % product != 0) {
      ops::throw_invalid(opdefs::OpId::kReshape,
                         fmt::format("Input to reshape is a tensor with {} values, "
                                     "but the requested shape requires a multiple "
                                     "of {}",
                                     count, product));
    }
    dims[static_cast<std::size_t>(inferred)] = input_count / product;
  } else if (known != count) {
    ops::throw_invalid(opdefs::OpId::kReshape,
                       fmt::format("Input to reshape is a tensor with {} values, "
                                   "but the requested shape has {}",
                                   count, known));
  }
  return ops::run_unary(opdefs::OpId::kReshape, x, Shape(dims), x.dtype());
}

Tensor transpose(const Tensor& x, const std::vector<int>& perm) {
  ops::check_defined(x, opdefs::OpId::kTranspose);
  const int rank = x.rank();
  opdefs::TransposeAttrs attrs{perm};
  if (perm.empty()) {
    for (int i = rank - 1; i >= 0; --i) attrs.perm.push_back(i);
  }
  if (static_cast<int>(attrs.perm.size()) != rank) {
    ops::throw_invalid(opdefs::OpId::kTranspose,
                       fmt::format("transpose expects a vector of size {}. But input(1) is a "
                                   "vector of size {}",
                                   rank, attrs.perm.size()));
  }
  // As TensorFlow: a negative entry counts from the end, then each must be in range and seen once.
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  for (int& p : attrs.perm) {
    if (p < 0) p += rank;
    if (p < 0 || p >= rank) {
      ops::throw_invalid(opdefs::OpId::kTranspose,
                         fmt::format("{} is out of range [0 .. {})", p, rank));
    }
    seen[static_cast<std::size_t>(p)] = true;
  }
  for (int i = 0; i < rank; ++i) {
    if (!seen[static_cast<std::size_t>(i)]) {
      ops::throw_invalid(opdefs::OpId::kTranspose,
                         fmt::format("{} is missing from {{{}}}.", i, fmt::join(attrs.perm, ",")));
    }
  }
  Shape out;
  for (int p : attrs.perm) out.push_back(x.shape()[p]);
  return ops::run_unary(opdefs::OpId::kTranspose, x, out, x.dtype(),
                        opdefs::OpAttrs{std::move(attrs)});
}

Tensor expand_dims(const Tensor& x, int axis) {
  ops::check_defined(x, opdefs::OpId::kExpandDims);
  const int rank = x.rank();
  if (axis < -rank - 1 || axis > rank) {
    ops::throw_invalid(
        opdefs::OpId::kExpandDims,
        fmt::format("Tried to expand dim index {} for tensor with {} dimensions.", axis, rank));
  }
  const int at = axis < 0 ? axis + rank + 1 : axis;
  if (rank == Shape::kMaxRank) {
    ops::throw_invalid(opdefs::OpId::kExpandDims,
                       fmt::format("Shape rank exceeds the maximum of {}", Shape::kMaxRank));
  }
  Shape out;
  for (int i = 0; i < rank; ++i) {
    if (i == at) out.push_back(1);
    out.push_back(x.shape()[i]);
  }
  if (at == rank) out.push_back(1);
  return ops::run_unary(opdefs::OpId::kExpandDims, x, out, x.dtype());
}

Tensor squeeze(const Tensor& x, const std::vector<int>& axes) {
  ops::check_defined(x, opdefs::OpId::kSqueeze);
  const Shape& in = x.shape();
  std::vector<bool> drop(static_cast<std::size_t>(in.rank()), axes.empty());
  if (axes.empty()) {
    for (int i = 0; i < in.rank(); ++i) drop[i] = in[i] == 1;
  }
  for (int axis : axes) {
    if (axis < -in.rank() || axis >= in.rank()) {
      ops::throw_invalid(opdefs::OpId::kSqueeze,
                         fmt::format("Tried to squeeze dim index {} for tensor with "
                                     "{} dimensions.",
                                     axis, in.rank()));
    }
    const int a = axis < 0 ? axis + in.rank() : axis;
    if (in[a] != 1) {
      ops::throw_invalid(opdefs::OpId::kSqueeze, fmt::format("Can not squeeze dim[{}], expected a "
                                                             "dimension of 1, got {}",
                                                             a, in[a]));
    }
    drop[a] = true;
  }
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  return ops::run_unary(opdefs::OpId::kSqueeze, x, out, x.dtype());
}

Tensor concat(const std::vector<Tensor>& values, int axis) {
  if (values.empty()) {
    ops::throw_invalid(opdefs::OpId::kConcatV2, "ConcatOp needs at least one input tensor");
  }
  const int n = static_cast<int>(values.size());
  ops::check_same_dtype(opdefs::OpId::kConcatV2, values.data(), n);
  const Shape& first = values[0].shape();
  if (first.rank() == 0) {
    ops::throw_invalid(opdefs::OpId::kConcatV2,
                       "Can't concatenate scalars (use eagle::expand_dims first)");
  }
  const int a = ops::normalize_axis(opdefs::OpId::kConcatV2, axis, first.rank());
  Shape out = first;
  for (int i = 1; i < n; ++i) {
    const Shape& s = values[i].shape();
    if (s.rank() != first.rank()) {
      ops::throw_invalid(
          opdefs::OpId::kConcatV2,
          fmt::format("ConcatOp : Ranks of all input tensors should match: shape[0] = {} vs. "
                      "shape[{}] = {}",
                      first.to_string(), i, s.to_string()));
    }
    for (int d = 0; d < s.rank(); ++d) {
      if (d != a && s[d] != first[d]) {
        ops::throw_invalid(opdefs::OpId::kConcatV2,
                           fmt::format("ConcatOp : Dimension {} in both shapes must be equal: "
                                       "shape[0] = {} vs. shape[{}] = {}",
                                       d, first.to_string(), i, s.to_string()));
      }
    }
    // Inputs without elements may have any dimension: their sum can pass int64.
    if (__builtin_add_overflow(out[a], s[a], &out[a])) {
      ops::throw_invalid(opdefs::OpId::kConcatV2,
                         fmt::format("ConcatOp : Dimension {} of the output overflows int64: "
                                     "shape[0] = {} vs. shape[{}] = {}",
                                     a, first.to_string(), i, s.to_string()));
    }
  }
  // The output must be a valid Shape too: with a zero dimension after the axis the inputs' running
  // products stay small while the output's, with the summed size, can pass int64.
  try {
    static_cast<void>(Shape(out.to_vector()));
  } catch (const InvalidArgumentError& e) {
    ops::throw_invalid(opdefs::OpId::kConcatV2, e.what());
  }
  return runtime::execute1(opdefs::OpId::kConcatV2, values[0].dtype(), values.data(), n, out,
                           values[0].dtype(), opdefs::OpAttrs{opdefs::AxisAttrs{a}});
}

Tensor slice(const Tensor& x, const std::vector<std::int64_t>& begin,
             const std::vector<std::int64_t>& size) {
  ops::check_defined(x, opdefs::OpId::kSlice);
  const Shape& in = x.shape();
  const auto rank = static_cast<std::size_t>(in.rank());
  if (begin.size() != rank || size.size() != rank) {
    ops::throw_invalid(opdefs::OpId::kSlice,
                       fmt::format("Expected begin and size arguments to be 1-D tensors of size "
                                   "{}, but got shapes [{}] and [{}] instead.",
                                   rank, begin.size(), size.size()));
  }
  Shape out;
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t dim = in[static_cast<int>(i)];
    if (begin[i] < 0 || begin[i] > dim) {
      ops::throw_invalid(
          opdefs::OpId::kSlice,
          fmt::format("Expected begin[{}] in [0, {}], but got {}", i, dim, begin[i]));
    }
    const std::int64_t s = size[i] == -1 ? dim - begin[i] : size[i];
    if (s < 0 || s > dim - begin[i]) {
      ops::throw_invalid(
          opdefs::OpId::kSlice,
          fmt::format("Expected size[{}] in [0, {}], but got {}", i, dim - begin[i], size[i]));
    }
    out.push_back(s);
  }
  return ops::run_unary(opdefs::OpId::kSlice, x, out, x.dtype(),
                        opdefs::OpAttrs{opdefs::SliceAttrs{begin}});
}

namespace {

// TensorFlow's Python check for stack/unstack axes (a ValueError there, without an [Op:]).
int stack_axis(int axis, int rank) {
  if (axis < -rank || axis >= rank) {
    throw InvalidArgumentError(
        fmt::format("Argument `axis` = {} not in range [{}, {})", axis, -rank, rank));
  }
  return axis < 0 ? axis + rank : axis;
}

// An output shape built a dimension at a time as TensorShape::AddDimWithStatus does: a negative
// size (an int64 sum or product that wrapped) and an element count past int64 are TensorFlow's
// errors, raised at the dimension where the kernel would raise them.
class ShapeBuilder {
 public:
  explicit ShapeBuilder(opdefs::OpId op) : op_(op) {}
  void add(std::int64_t d) {
    if (d < 0) ops::throw_invalid(op_, fmt::format("Expected a non-negative size, got {}", d));
    std::int64_t next = 0;
    if (__builtin_mul_overflow(count_, d, &next)) {
      ops::throw_invalid(op_, fmt::format("Encountered overflow when multiplying {} with {}, "
                                          "result: -1",
                                          count_, d));
    }
    count_ = next;
    shape_.push_back(d);
  }
  const Shape& shape() const { return shape_; }

 private:
  opdefs::OpId op_;
  Shape shape_;
  std::int64_t count_ = 1;
};

// a * b and a + b as int64 arithmetic that wraps, as TensorFlow's kernels compute sizes.
std::int64_t wrapping_mul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

std::vector<Tensor> run_split(opdefs::OpId op, const Tensor& x, int axis,
                              const std::vector<Shape>& shapes) {
  std::vector<runtime::TensorSpec> specs;
  specs.reserve(shapes.size());
  for (const Shape& s : shapes) specs.push_back({s, x.dtype()});
  const opdefs::OpAttrs attrs{opdefs::AxisAttrs{axis}};
  return runtime::execute_n(
      {op, x.dtype(), &x, 1, specs.data(), static_cast<int>(specs.size()), attrs});
}

// Split's and SplitV's check of split_dim (TensorFlow prints the rank with a '-' before it).
int split_axis(opdefs::OpId op, int axis, int rank) {
  if (axis < -rank || axis >= rank) {
    ops::throw_invalid(
        op, fmt::format("-input rank(-{}) <= split_dim < input rank ({}), but got {}", rank, rank,
                        axis));
  }
  return axis < 0 ? axis + rank : axis;
}

}  // namespace

Tensor stack(const std::vector<Tensor>& values, int axis) {
  if (values.empty()) return zeros({0});  // as tf.stack([])
  const int n = static_cast<int>(values.size());
  for (int i = 0; i < n; ++i) ops::check_defined(values[i], opdefs::OpId::kPack, i);
  const Tensor& first = values[0];
  const int a = stack_axis(axis, first.rank() + 1);
  ops::check_same_dtype(opdefs::OpId::kPack, values.data(), n);
  for (int i = 1; i < n; ++i) {
    if (values[i].shape() != first.shape()) {
      ops::throw_invalid(opdefs::OpId::kPack,
                         fmt::format("Shapes of all inputs must match: values[0].shape "
                                     "= {} != values[{}].shape = {}",
                                     first.shape().to_string(), i, values[i].shape().to_string()));
    }
  }
  if (first.rank() == Shape::kMaxRank) {
    ops::throw_invalid(opdefs::OpId::kPack,
                       fmt::format("Shape rank exceeds the maximum of {}", Shape::kMaxRank));
  }
  std::vector<std::int64_t> dims = first.shape().to_vector();
  dims.insert(dims.begin() + a, n);
  return runtime::execute1(opdefs::OpId::kPack, first.dtype(), values.data(), n, Shape(dims),
                           first.dtype(), opdefs::OpAttrs{opdefs::AxisAttrs{a}});
}

std::vector<Tensor> unstack(const Tensor& x, int axis) {
  ops::check_defined(x, opdefs::OpId::kUnpack);
  const int a = stack_axis(axis, x.rank());
  std::vector<std::int64_t> dims = x.shape().to_vector();
  const std::int64_t count = dims[static_cast<std::size_t>(a)];
  dims.erase(dims.begin() + a);
  if (count > std::numeric_limits<int>::max()) {
    ops::throw_invalid(opdefs::OpId::kUnpack, fmt::format("Cannot unstack {} tensors", count));
  }
  return run_split(opdefs::OpId::kUnpack, x, a,
                   std::vector<Shape>(static_cast<std::size_t>(count), Shape(dims)));
}

std::vector<Tensor> split(const Tensor& x, int num_split, int axis) {
  ops::check_defined(x, opdefs::OpId::kSplit);
  // The attribute's own check comes first: TensorFlow refuses the op before running it.
  if (num_split < 1) {
    ops::throw_invalid(opdefs::OpId::kSplit,
                       fmt::format("Value for attr 'num_split' of {} must be at least "
                                   "minimum 1",
                                   num_split));
  }
  const int a = split_axis(opdefs::OpId::kSplit, axis, x.rank());
  const std::int64_t size = x.shape()[a];
  if (size % num_split != 0) {
    ops::throw_invalid(opdefs::OpId::kSplit,
                       fmt::format("Number of ways to split should evenly divide the "
                                   "split dimension, but got split_dim {} (size = "
                                   "{}) and num_split {}",
                                   a, size, num_split));
  }
  Shape part = x.shape();
  part[a] = size / num_split;
  return run_split(opdefs::OpId::kSplit, x, a,
                   std::vector<Shape>(static_cast<std::size_t>(num_split), part));
}

std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& size_splits, int axis) {
  ops::check_defined(x, opdefs::OpId::kSplitV);
  const int num_split = static_cast<int>(size_splits.size());
  if (num_split < 1) {
    ops::throw_invalid(opdefs::OpId::kSplitV,
                       fmt::format("Value for attr 'num_split' of {} must be at "
                                   "least minimum 1",
                                   num_split));
  }
  const int a = split_axis(opdefs::OpId::kSplitV, axis, x.rank());
  const std::int64_t size = x.shape()[a];
  std::vector<std::int64_t> sizes = size_splits;
  if (num_split == 1) {
    if (sizes[0] != size) {
      ops::throw_invalid(opdefs::OpId::kSplitV,
                         fmt::format("If there is only one output, it must have the "
                                     "same size as the input. Input size: {} output "
                                     "size: {}",
                                     size, sizes[0]));
    }
    return run_split(opdefs::OpId::kSplitV, x, a, {x.shape()});
  }
  // As SplitVOpBase: one -1 at most, no other negative size, and the known sizes must add up to
  // the dimension exactly (no -1) or to at most it (the -1 takes the rest).
  int inferred = -1;
  std::int64_t determined = 0;
  for (int i = 0; i < num_split; ++i) {
    const std::int64_t s = sizes[static_cast<std::size_t>(i)];
    if (s == -1) {
      if (inferred != -1)
        ops::throw_invalid(opdefs::OpId::kSplitV, "There can only be one -1 in the input.");
      inferred = i;
    } else {
      if (s < 0) {
        ops::throw_invalid(opdefs::OpId::kSplitV,
                           fmt::format("Split size at index {} must be >= 0. Got: {}", i, s));
      }
      determined = wrapping_add(determined, s);
    }
  }
  if ((inferred == -1 && determined != size) || (inferred != -1 && determined > size)) {
    ops::throw_invalid(opdefs::OpId::kSplitV,
                       fmt::format("Determined shape must either match input shape along "
                                   "split_dim exactly if fully specified, or be less than the size "
                                   "of the input along split_dim if not fully specified.  Got: {}",
                                   determined));
  }
  if (inferred != -1) sizes[static_cast<std::size_t>(inferred)] = size - determined;
  std::vector<Shape> shapes;
  for (std::int64_t s : sizes) {
    Shape part = x.shape();
    part[a] = s;
    shapes.push_back(part);
  }
  return run_split(opdefs::OpId::kSplitV, x, a, shapes);
}

Tensor tile(const Tensor& x, const std::vector<std::int64_t>& multiples) {
  ops::check_defined(x, opdefs::OpId::kTile);
  const int rank = x.rank();
  if (static_cast<int>(multiples.size()) != rank) {
    ops::throw_invalid(opdefs::OpId::kTile,
                       fmt::format("Expected multiples argument to be a vector of "
                                   "length {} but got length {}",
                                   rank, multiples.size()));
  }
  ShapeBuilder out(opdefs::OpId::kTile);
  for (int i = 0; i < rank; ++i) {
    const std::int64_t m = multiples[static_cast<std::size_t>(i)];
    if (m < 0) {
      ops::throw_invalid(opdefs::OpId::kTile,
                         fmt::format("Expected multiples[{}] >= 0, but got {}", i, m));
    }
    out.add(wrapping_mul(x.shape()[i], m));
  }
  return ops::run_unary(opdefs::OpId::kTile, x, out.shape(), x.dtype(),
                        opdefs::OpAttrs{opdefs::TileAttrs{multiples}});
}

Tensor pad(const Tensor& x, const std::vector<std::vector<std::int64_t>>& paddings,
           const std::string& mode, double constant_values) {
  std::string m = mode;
  for (char& c : m) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // tf.pad picks the op: Pad for a zero constant (so -0.0 pads with +0.0), PadV2 for another,
  // MirrorPad for REFLECT and SYMMETRIC.
  opdefs::OpId op;
  if (m == "CONSTANT") {
    op = constant_values == 0 ? opdefs::OpId::kPad : opdefs::OpId::kPadV2;
  } else if (m == "REFLECT" || m == "SYMMETRIC") {
    op = opdefs::OpId::kMirrorPad;
  } else {
    throw InvalidArgumentError(
        fmt::format("Value of argument `mode` expected to be one of "
                    "\"CONSTANT\", \"REFLECT\", or \"SYMMETRIC\". Received "
                    "`mode` = {}",
                    m));
  }
  ops::check_defined(x, op);
  const int rank = x.rank();
  // The paddings as the matrix TensorFlow would make of the nested list: [0] when empty.
  std::string paddings_shape = "[0]";
  bool matrix = !paddings.empty();
  if (matrix) {
    const std::size_t columns = paddings[0].size();
    for (const auto& row : paddings) matrix = matrix && row.size() == columns;
    paddings_shape = fmt::format("[{},{}]", paddings.size(), columns);
    matrix = matrix && columns == 2;
  }
  if (!matrix) {
    ops::throw_invalid(op, "paddings must be a matrix with 2 columns: " + paddings_shape);
  }
  if (static_cast<int>(paddings.size()) != rank) {
    ops::throw_invalid(op, fmt::format("The first dimension of paddings must be the rank of "
                                       "inputs{}{} {}",
                                       paddings_shape, op == opdefs::OpId::kMirrorPad ? "," : "",
                                       x.shape().to_string()));
  }
  opdefs::PadAttrs attrs{
      {}, {}, op == opdefs::OpId::kPadV2 ? constant_values : 0.0, m == "SYMMETRIC"};
  ShapeBuilder out(op);
  for (int d = 0; d < rank; ++d) {
    const std::int64_t before = paddings[static_cast<std::size_t>(d)][0];
    const std::int64_t after = paddings[static_cast<std::size_t>(d)][1];
    const std::int64_t size = x.shape()[d];
    if (op != opdefs::OpId::kMirrorPad) {
      if (before < 0 || after < 0) {
        ops::throw_invalid(op, fmt::format("Paddings must be non-negative: {} {}", before, after));
      }
    } else {
      if (before < 0 || after < 0) {
        ops::throw_invalid(op, fmt::format("paddings must be non-negative: {} {}", before, after));
      }
      if (!attrs.symmetric && (before >= size || after >= size)) {
        ops::throw_invalid(op, fmt::format("paddings must be less than the dimension size: {}, {} "
                                           "not less than {}",
                                           before, after, size));
      }
      if (attrs.symmetric && (before > size || after > size)) {
        ops::throw_invalid(op, fmt::format("paddings must be no greater than the dimension size: "
                                           "{}, {} greater than {}",
                                           before, after, size));
      }
    }
    attrs.before.push_back(before);
    attrs.after.push_back(after);
    out.add(wrapping_add(wrapping_add(before, size), after));
  }
  return ops::run_unary(op, x, out.shape(), x.dtype(), opdefs::OpAttrs{std::move(attrs)});
}

Tensor reverse(const Tensor& x, const std::vector<int>& axis) {
  ops::check_defined(x, opdefs::OpId::kReverseV2);
  const int rank = x.rank();
  opdefs::ReverseAttrs attrs;
  // TensorFlow's ReverseV2 returns a scalar as it is, whatever the axes.
  if (rank > 0) {
    std::vector<bool> seen(static_cast<std::size_t>(rank), false);
    for (std::size_t i = 0; i < axis.size(); ++i) {
      const int a = axis[i] < 0 ? axis[i] + rank : axis[i];
      if (a < 0 || a >= rank) {
        ops::throw_invalid(opdefs::OpId::kReverseV2,
                           fmt::format("'axis'[{}] = {} is out of valid range "
                                       "[0, {}",
                                       i, axis[i], rank - 1));
      }
      if (seen[static_cast<std::size_t>(a)]) {
        ops::throw_invalid(opdefs::OpId::kReverseV2,
                           fmt::format("axis {} specified more than once.", a));
      }
      seen[static_cast<std::size_t>(a)] = true;
    }
    for (int a = 0; a < rank; ++a) {
      if (seen[static_cast<std::size_t>(a)]) attrs.axes.push_back(a);
    }
  }
  return ops::run_unary(opdefs::OpId::kReverseV2, x, x.shape(), x.dtype(),
                        opdefs::OpAttrs{std::move(attrs)});
}

Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  ops::check_defined(x, opdefs::OpId::kMul);
  const Shape& in = x.shape();
  bool fits = in.rank() <= shape.rank();
  for (int i = 1; fits && i <= in.rank(); ++i) {
    const std::int64_t d = in[in.rank() - i];
    fits = d == shape[shape.rank() - i] || d == 1;
  }
  if (!fits) {
    throw InvalidArgumentError(fmt::format("Incompatible shapes: {} vs. {} [Op:BroadcastTo]",
                                           in.to_string(), shape.to_string()));
  }
  // x * 1 is x exactly (-0.0, NaN and infinities included); bool through logical_and.
  if (x.dtype() == DType::kBool) return logical_and(x, ones(shape, DType::kBool));
  return multiply(x, ones(shape, x.dtype()));
}

Tensor shape(const Tensor& x) {
  ops::check_defined(x, opdefs::OpId::kConst);
  std::vector<std::int32_t> dims;
  for (std::int64_t d : x.shape()) {
    if (d > std::numeric_limits<std::int32_t>::max()) {
      throw InvalidArgumentError(
          fmt::format("Shape {} does not fit in int32 [Op:Shape]", x.shape().to_string()));
    }
    dims.push_back(static_cast<std::int32_t>(d));
  }
  return constant(dims, Shape{static_cast<std::int64_t>(dims.size())});
}

Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<int>& a_axes,
                 const std::vector<int>& b_axes) {
  ops::check_defined(a, opdefs::OpId::kMatMul, 0);
  ops::check_defined(b, opdefs::OpId::kMatMul, 1);
  if (a_axes.size() != b_axes.size()) {
    throw InvalidArgumentError(
        fmt::format("Different number of contraction axes 'a' and 'b', {} != {}.", a_axes.size(),
                    b_axes.size()));
  }
  const auto normalize = [](const std::vector<int>& axes, int rank) {
    std::vector<int> out;
    for (int axis : axes) {
      if (axis < -rank || axis >= rank) {
        throw InvalidArgumentError(
            fmt::format("tensordot axis {} is out of range for a tensor of rank {}", axis, rank));
      }
      out.push_back(axis < 0 ? axis + rank : axis);
    }
    return out;
  };
  const std::vector<int> ca = normalize(a_axes, a.rank());
  const std::vector<int> cb = normalize(b_axes, b.rank());
  // a -> [free_a..., contracted...] as a matrix [M, K]; b -> [contracted..., free_b...] as [K, N].
  std::vector<int> perm_a, perm_b;
  std::vector<std::int64_t> free_dims;
  std::int64_t m = 1, k = 1, n = 1;
  for (int i = 0; i < a.rank(); ++i) {
    if (std::find(ca.begin(), ca.end(), i) == ca.end()) {
      perm_a.push_back(i);
      free_dims.push_back(a.shape()[i]);
      m *= a.shape()[i];
    }
  }
  for (int i : ca) {
    perm_a.push_back(i);
    k *= a.shape()[i];
  }
  for (int i : cb) perm_b.push_back(i);
  for (int i = 0; i < b.rank(); ++i) {
    if (std::find(cb.begin(), cb.end(), i) == cb.end()) {
      perm_b.push_back(i);
      free_dims.push_back(b.shape()[i]);
      n *= b.shape()[i];
    }
  }
  const Tensor am = reshape(transpose(a, perm_a), {m, k});
  const Tensor bm = reshape(transpose(b, perm_b), {k, n});
  return reshape(matmul(am, bm), free_dims);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int axes) {
  ops::check_defined(a, opdefs::OpId::kMatMul, 0);
  ops::check_defined(b, opdefs::OpId::kMatMul, 1);
  if (axes < 0 || axes > a.rank() || axes > b.rank()) {
    throw InvalidArgumentError(
        fmt::format("'axes' must be at most the rank of a ({}) and b ({}) and not negative, got {}",
                    a.rank(), b.rank(), axes));
  }
  std::vector<int> a_axes, b_axes;
  for (int i = 0; i < axes; ++i) {
    a_axes.push_back(a.rank() - axes + i);
    b_axes.push_back(i);
  }
  return tensordot(a, b, a_axes, b_axes);
}

}  // namespace eagle
