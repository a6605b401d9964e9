#include "runtime/check_numerics.hpp"

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/format.hpp"
#include "runtime/non_finite.hpp"

namespace eagle::runtime {
namespace {

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

NonFiniteCounts count_non_finite(const Tensor& t) {
  return visit_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    NonFiniteCounts c;
    if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
      for (const T v : t.to_vector<T>()) {
        double d;
        if constexpr (is_half_v<T>) {
          d = static_cast<float>(v);
        } else {
          d = static_cast<double>(v);
        }
        if (std::isnan(d)) {
          ++c.nan;
        } else if (std::isinf(d)) {
          ++(d < 0 ? c.negative_inf : c.positive_inf);
        }
      }
    }
    return c;
  });
}

// str() of a tf.Tensor: "tf.Tensor([ 1. inf], shape=(2,), dtype=float32)", the values on a line
// of their own when they take several.
std::string describe(const Tensor& t) {
  const std::string values = format_values(t);
  return fmt::format("eagle.Tensor({}{}, shape={}, dtype={})",
                     values.find('\n') == std::string::npos ? "" : "\n", values,
                     t.shape().to_tuple_string(), dtype_name(t.dtype()));
}

}  // namespace

// Note [Numerics check]
// ~~~~~~~~~~~~~~~~~~~~~
// TensorFlow's enable_check_numerics runs a CheckNumericsV2 op after each eager op with the text
// its Python callback composed; eagle checks in the dispatcher, after the kernel and before a
// tape records the op, reading the outputs on the host (a debugging mode, as TensorFlow's is).
// The text is TensorFlow's with eagle.Tensor for tf.Tensor and without the "[Op:CheckNumericsV2]"
// of an op eagle does not run.
void check_output_numerics(opdefs::OpId op, const Tensor* inputs, int num_inputs,
                           const Tensor* outputs, int num_outputs) {
  if (!opdefs::op_def(op).numerics_checked) return;  // Note [Op table]: the numerics column
  for (int slot = 0; slot < num_outputs; ++slot) {
    const Tensor& out = outputs[slot];
    if (!is_floating(out.dtype())) continue;
    const NonFiniteCounts c = count_non_finite(out);
    if (!c.any()) continue;
    std::string message = fmt::format(
        "\n\n!!! Detected Infinity or NaN in output {} of eagerly-executing op \"{}\" (# of "
        "outputs: {}) !!!\n  dtype: <dtype: '{}'>\n  shape: {}\n",
        slot, opdefs::op_name(op), num_outputs, dtype_name(out.dtype()),
        out.shape().to_tuple_string());
    if (c.negative_inf > 0) message += fmt::format("  # of -Inf elements: {}\n", c.negative_inf);
    if (c.positive_inf > 0) message += fmt::format("  # of +Inf elements: {}\n", c.positive_inf);
    if (c.nan > 0) message += fmt::format("  # of +NaN elements: {}\n", c.nan);
    if (num_inputs > 1) {
      message += fmt::format("\n  Input tensors ({}):\n", num_inputs);
      for (int i = 0; i < num_inputs; ++i) {
        message += fmt::format("         {}: {}\n", i, describe(inputs[i]));
      }
    } else if (num_inputs == 1) {
      message += fmt::format("\n  Input tensor: {}\n", describe(inputs[0]));
    }
    message += fmt::format("\n : Tensor had {} values", check_numerics_v2_status(c));
    throw InvalidArgumentError(message);
  }
}

}  // namespace eagle::runtime
