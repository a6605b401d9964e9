// reshape, transpose, expand_dims, squeeze, concat, slice.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "eagle/ops.hpp"
#include "ops/attrs.hpp"
#include "ops/op_support.hpp"

namespace eagle {

using ops::OpId;

Tensor reshape(const Tensor& x, const std::vector<std::int64_t>& shape) {
  ops::check_defined(x, OpId::kReshape);
  const std::int64_t count = x.num_elements();
  int inferred = -1;
  std::int64_t known = 1;
  for (int i = 0; i < static_cast<int>(shape.size()); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0) {
        ops::throw_invalid(OpId::kReshape, fmt::format("Only one input size may be -1, not both "
                                                       "{} and {}",
                                                       inferred, i));
      }
      inferred = i;
    } else if (shape[i] < 0) {
      ops::throw_invalid(OpId::kReshape,
                         fmt::format("Size {} must be non-negative, not {}", i, shape[i]));
    } else {
      // As TensorShape::AddDim: a count past int64 would wrap (undefined behaviour) and could
      // even match the input's count.
      if (shape[i] != 0 && known > std::numeric_limits<std::int64_t>::max() / shape[i]) {
        ops::throw_invalid(OpId::kReshape, fmt::format("Encountered overflow when multiplying "
                                                       "{} with {}, result: -1",
                                                       known, shape[i]));
      }
      known *= shape[i];
    }
  }
  if (shape.size() > static_cast<std::size_t>(Shape::kMaxRank)) {
    ops::throw_invalid(OpId::kReshape,
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
        ops::throw_invalid(OpId::kReshape, fmt::format("Encountered overflow when multiplying "
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
      ops::throw_invalid(OpId::kReshape, fmt::format("Input to reshape is a tensor with {} values, "
                                                     "but the requested shape requires a multiple "
                                                     "of {}",
                                                     count, product));
    }
    dims[static_cast<std::size_t>(inferred)] = input_count / product;
  } else if (known != count) {
    ops::throw_invalid(OpId::kReshape, fmt::format("Input to reshape is a tensor with {} values, "
                                                   "but the requested shape has {}",
                                                   count, known));
  }
  return ops::run_unary(OpId::kReshape, x, Shape(dims), x.dtype());
}

Tensor transpose(const Tensor& x, const std::vector<int>& perm) {
  ops::check_defined(x, OpId::kTranspose);
  const int rank = x.rank();
  ops::TransposeAttrs attrs{perm};
  if (perm.empty()) {
    for (int i = rank - 1; i >= 0; --i) attrs.perm.push_back(i);
  }
  if (static_cast<int>(attrs.perm.size()) != rank) {
    ops::throw_invalid(OpId::kTranspose,
                       fmt::format("transpose expects a vector of size {}. But input(1) is a "
                                   "vector of size {}",
                                   rank, attrs.perm.size()));
  }
  // As TensorFlow: a negative entry counts from the end, then each must be in range and seen once.
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  for (int& p : attrs.perm) {
    if (p < 0) p += rank;
    if (p < 0 || p >= rank) {
      ops::throw_invalid(OpId::kTranspose, fmt::format("{} is out of range [0 .. {})", p, rank));
    }
    seen[static_cast<std::size_t>(p)] = true;
  }
  for (int i = 0; i < rank; ++i) {
    if (!seen[static_cast<std::size_t>(i)]) {
      ops::throw_invalid(OpId::kTranspose,
                         fmt::format("{} is missing from {{{}}}.", i, fmt::join(attrs.perm, ",")));
    }
  }
  Shape out;
  for (int p : attrs.perm) out.push_back(x.shape()[p]);
  return ops::run_unary(OpId::kTranspose, x, out, x.dtype(), ops::OpAttrs{std::move(attrs)});
}

Tensor expand_dims(const Tensor& x, int axis) {
  ops::check_defined(x, OpId::kExpandDims);
  const int rank = x.rank();
  if (axis < -rank - 1 || axis > rank) {
    ops::throw_invalid(
        OpId::kExpandDims,
        fmt::format("Tried to expand dim index {} for tensor with {} dimensions.", axis, rank));
  }
  const int at = axis < 0 ? axis + rank + 1 : axis;
  if (rank == Shape::kMaxRank) {
    ops::throw_invalid(OpId::kExpandDims,
                       fmt::format("Shape rank exceeds the maximum of {}", Shape::kMaxRank));
  }
  Shape out;
  for (int i = 0; i < rank; ++i) {
    if (i == at) out.push_back(1);
    out.push_back(x.shape()[i]);
  }
  if (at == rank) out.push_back(1);
  return ops::run_unary(OpId::kExpandDims, x, out, x.dtype());
}

Tensor squeeze(const Tensor& x, const std::vector<int>& axes) {
  ops::check_defined(x, OpId::kSqueeze);
  const Shape& in = x.shape();
  std::vector<bool> drop(static_cast<std::size_t>(in.rank()), axes.empty());
  if (axes.empty()) {
    for (int i = 0; i < in.rank(); ++i) drop[i] = in[i] == 1;
  }
  for (int axis : axes) {
    if (axis < -in.rank() || axis >= in.rank()) {
      ops::throw_invalid(OpId::kSqueeze,
                         fmt::format("Tried to squeeze dim index {} for tensor with "
                                     "{} dimensions.",
                                     axis, in.rank()));
    }
    const int a = axis < 0 ? axis + in.rank() : axis;
    if (in[a] != 1) {
      ops::throw_invalid(OpId::kSqueeze, fmt::format("Can not squeeze dim[{}], expected a "
                                                     "dimension of 1, got {}",
                                                     a, in[a]));
    }
    drop[a] = true;
  }
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  return ops::run_unary(OpId::kSqueeze, x, out, x.dtype());
}

Tensor concat(const std::vector<Tensor>& values, int axis) {
  if (values.empty()) {
    ops::throw_invalid(OpId::kConcatV2, "ConcatOp needs at least one input tensor");
  }
  const int n = static_cast<int>(values.size());
  ops::check_same_dtype(OpId::kConcatV2, values.data(), n);
  const Shape& first = values[0].shape();
  if (first.rank() == 0) {
    ops::throw_invalid(OpId::kConcatV2, "Can't concatenate scalars (use eagle::expand_dims first)");
  }
  const int a = ops::normalize_axis(OpId::kConcatV2, axis, first.rank());
  Shape out = first;
  for (int i = 1; i < n; ++i) {
    const Shape& s = values[i].shape();
    if (s.rank() != first.rank()) {
      ops::throw_invalid(
          OpId::kConcatV2,
          fmt::format("ConcatOp : Ranks of all input tensors should match: shape[0] = {} vs. "
                      "shape[{}] = {}",
                      first.to_string(), i, s.to_string()));
    }
    for (int d = 0; d < s.rank(); ++d) {
      if (d != a && s[d] != first[d]) {
        ops::throw_invalid(OpId::kConcatV2,
                           fmt::format("ConcatOp : Dimension {} in both shapes must be equal: "
                                       "shape[0] = {} vs. shape[{}] = {}",
                                       d, first.to_string(), i, s.to_string()));
      }
    }
    // Inputs without elements may have any dimension: their sum can pass int64.
    if (__builtin_add_overflow(out[a], s[a], &out[a])) {
      ops::throw_invalid(OpId::kConcatV2,
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
    ops::throw_invalid(OpId::kConcatV2, e.what());
  }
  return runtime::execute1(OpId::kConcatV2, values[0].dtype(), values.data(), n, out,
                           values[0].dtype(), ops::OpAttrs{ops::AxisAttrs{a}});
}

Tensor slice(const Tensor& x, const std::vector<std::int64_t>& begin,
             const std::vector<std::int64_t>& size) {
  ops::check_defined(x, OpId::kSlice);
  const Shape& in = x.shape();
  const auto rank = static_cast<std::size_t>(in.rank());
  if (begin.size() != rank || size.size() != rank) {
    ops::throw_invalid(OpId::kSlice,
                       fmt::format("Expected begin and size arguments to be 1-D tensors of size "
                                   "{}, but got shapes [{}] and [{}] instead.",
                                   rank, begin.size(), size.size()));
  }
  Shape out;
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t dim = in[static_cast<int>(i)];
    if (begin[i] < 0 || begin[i] > dim) {
      ops::throw_invalid(
          OpId::kSlice, fmt::format("Expected begin[{}] in [0, {}], but got {}", i, dim, begin[i]));
    }
    const std::int64_t s = size[i] == -1 ? dim - begin[i] : size[i];
    if (s < 0 || s > dim - begin[i]) {
      ops::throw_invalid(OpId::kSlice, fmt::format("Expected size[{}] in [0, {}], but got {}", i,
                                                   dim - begin[i], size[i]));
    }
    out.push_back(s);
  }
  return ops::run_unary(OpId::kSlice, x, out, x.dtype(), ops::OpAttrs{ops::SliceAttrs{begin}});
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

}  // namespace

Tensor stack(const std::vector<Tensor>& values, int axis) {
  if (values.empty()) return zeros({0});  // as tf.stack([])
  for (std::size_t i = 0; i < values.size(); ++i)
    ops::check_defined(values[i], OpId::kConcatV2, static_cast<int>(i));
  const Tensor& first = values[0];
  const int a = stack_axis(axis, first.rank() + 1);
  for (std::size_t i = 1; i < values.size(); ++i) {
    if (values[i].dtype() != first.dtype()) {
      throw InvalidArgumentError(
          fmt::format("cannot compute Pack as input #{}(zero-based) was expected to be a {} "
                      "tensor but is a {} tensor [Op:Pack]",
                      i, dtype_runtime_name(first.dtype()), dtype_runtime_name(values[i].dtype())));
    }
    if (values[i].shape() != first.shape()) {
      throw InvalidArgumentError(fmt::format(
          "Shapes of all inputs must match: values[0].shape = {} != values[{}].shape = {} "
          "[Op:Pack]",
          first.shape().to_string(), i, values[i].shape().to_string()));
    }
  }
  std::vector<Tensor> expanded;
  expanded.reserve(values.size());
  for (const Tensor& v : values) expanded.push_back(expand_dims(v, a));
  return expanded.size() == 1 ? expanded[0] : concat(expanded, a);
}

std::vector<Tensor> unstack(const Tensor& x, int axis) {
  ops::check_defined(x, OpId::kSlice);
  const int a = stack_axis(axis, x.rank());
  const std::int64_t count = x.shape()[a];
  std::vector<std::int64_t> begin(static_cast<std::size_t>(x.rank()), 0);
  std::vector<std::int64_t> size(static_cast<std::size_t>(x.rank()), -1);
  size[static_cast<std::size_t>(a)] = 1;
  std::vector<Tensor> out;
  out.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    begin[static_cast<std::size_t>(a)] = i;
    out.push_back(squeeze(slice(x, begin, size), {a}));
  }
  return out;
}

Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  ops::check_defined(x, OpId::kMul);
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
  ops::check_defined(x, OpId::kConst);
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
  ops::check_defined(a, OpId::kMatMul, 0);
  ops::check_defined(b, OpId::kMatMul, 1);
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
  ops::check_defined(a, OpId::kMatMul, 0);
  ops::check_defined(b, OpId::kMatMul, 1);
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
