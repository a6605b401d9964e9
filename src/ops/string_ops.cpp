// tf.strings: StringJoin, StringLength, AsString, ReduceJoin (validation and shape inference;
// kernels in cpu/string_kernels.cpp). Texts are TensorFlow 2.21's.
#include <algorithm>

#include <fmt/format.h>

#include "eagle/ops.hpp"
#include "opdefs/attrs.hpp"
#include "ops/op_support.hpp"

namespace eagle::strings {
namespace {

using opdefs::OpId;

void check_string(OpId op, const Tensor& input, int index) {
  ops::check_defined(input, op, index);
  if (input.dtype() != DType::kString) {
    ops::throw_invalid(op, fmt::format("cannot compute {} as input #{}(zero-based) was expected to "
                                       "be a string tensor but is a {} tensor",
                                       opdefs::op_name(op), index, dtype_name(input.dtype())));
  }
}

// "[2]", "[1,2]": TensorFlow's TensorShape::DebugString.
std::string shape_text(const Shape& shape) {
  return fmt::format("[{}]", fmt::join(shape.to_vector(), ","));
}

}  // namespace

Tensor join(const std::vector<Tensor>& inputs, const std::string& separator) {
  Shape shape;  // a scalar when every input is one (or there is none: b'')
  bool have_shape = false;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check_string(OpId::kStringJoin, inputs[i], static_cast<int>(i));
    const Shape& s = inputs[i].shape();
    if (s.rank() == 0) continue;
    if (!have_shape) {
      shape = s;
      have_shape = true;
    } else if (s != shape) {
      ops::throw_invalid(OpId::kStringJoin, fmt::format("Input shapes do not match: {} vs. {}",
                                                        shape_text(shape), shape_text(s)));
    }
  }
  return runtime::execute1(OpId::kStringJoin, DType::kString, inputs.data(),
                           static_cast<int>(inputs.size()), shape, DType::kString,
                           opdefs::OpAttrs{opdefs::StringJoinAttrs{separator}});
}

Tensor length(const Tensor& input, const std::string& unit) {
  check_string(OpId::kStringLength, input, 0);
  if (unit != "BYTE" && unit != "UTF8_CHAR") {
    ops::throw_invalid(OpId::kStringLength,
                       fmt::format("Value for attr 'unit' of \"{}\" is not in the list of "
                                   "allowed values: \"BYTE\", \"UTF8_CHAR\"",
                                   unit));
  }
  return ops::run_unary(OpId::kStringLength, input, input.shape(), DType::kInt32,
                        opdefs::OpAttrs{opdefs::StringLengthAttrs{unit == "UTF8_CHAR"}});
}

Tensor as_string(const Tensor& input, int precision, bool scientific, bool shortest, int width,
                 const std::string& fill) {
  const OpId op = OpId::kAsString;
  ops::check_defined(input, op);
  const DType dtype = input.dtype();
  // TensorFlow's kernel constructor checks, in its order.
  if (scientific && shortest) {
    ops::throw_invalid(op, "Cannot select both scientific and shortest notation");
  }
  if (fill.size() > 1) ops::throw_invalid(op, "Fill string must be one or fewer characters");
  if (!is_floating(dtype) && (scientific || shortest)) {
    ops::throw_invalid(op, fmt::format("scientific and shortest format not supported for datatype "
                                       "{}",
                                       dtype_runtime_name(dtype)));
  }
  if (!is_floating(dtype) && precision > -1) {
    ops::throw_invalid(
        op, fmt::format("precision not supported for datatype {}", dtype_runtime_name(dtype)));
  }
  if (!fill.empty() && std::string(" +-0#").find(fill[0]) == std::string::npos) {
    ops::throw_invalid(op, fmt::format("Fill argument not supported: \"{}\"", fill));
  }
  return ops::run_unary(
      op, input, input.shape(), DType::kString,
      opdefs::OpAttrs{opdefs::AsStringAttrs{precision, scientific, shortest, width, fill}});
}

Tensor reduce_join(const Tensor& inputs, const Axes& axes, bool keepdims,
                   const std::string& separator) {
  const OpId op = OpId::kReduceJoin;
  check_string(op, inputs, 0);
  const int rank = inputs.rank();
  std::vector<int> normalized;
  if (axes.reduces_all()) {
    for (int i = 0; i < rank; ++i) normalized.push_back(i);
  }
  for (int axis : axes.reduces_all() ? std::vector<int>{} : axes.list()) {
    if (axis < -rank || axis >= rank) {
      throw OutOfRangeError(fmt::format(
          "Invalid reduction dimension {} for input with {} dimension(s) [Op:ReduceJoin]", axis,
          rank));
    }
    const int positive = axis < 0 ? axis + rank : axis;
    if (std::find(normalized.begin(), normalized.end(), positive) != normalized.end()) {
      ops::throw_invalid(op, fmt::format("Duplicate reduction dimension {}", positive));
    }
    normalized.push_back(positive);
  }
  std::sort(normalized.begin(), normalized.end());
  const Shape out = ops::reduced_shape(inputs.shape(), normalized, keepdims);
  return ops::run_unary(
      op, inputs, out, DType::kString,
      opdefs::OpAttrs{opdefs::ReduceJoinAttrs{std::move(normalized), keepdims, separator}});
}

}  // namespace eagle::strings
