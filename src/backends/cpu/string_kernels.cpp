// The CPU's string kernels (Note [String tensors] in runtime/tensor_impl.cpp): elements are
// std::string objects the output's storage already constructed, assigned here one by one.
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "cpu/register_kernels.hpp"
#include "eagle/half.hpp"
#include "kernels/registration.hpp"
#include "runtime/kernel_context.hpp"
#include "runtime/tensor_impl.hpp"

namespace eagle::cpu {
namespace {

using runtime::DeviceType;
using runtime::KernelContext;

const std::string* strings_of(const runtime::TensorImpl& tensor) {
  return tensor.data<const std::string>();
}

// Const: the front-end's strings (ConstAttrs::host_data points at them).
void const_strings(KernelContext& ctx) {
  std::string* out = ctx.allocate_output()->data<std::string>();
  const auto* in = static_cast<const std::string*>(ctx.attrs<opdefs::ConstAttrs>().host_data);
  const std::int64_t n = ctx.output_shape().num_elements();
  for (std::int64_t i = 0; i < n; ++i) out[i] = in[i];
}

// Identity, Reshape, ExpandDims, Squeeze, and AsString of strings: the same strings, shared.
void alias_strings(KernelContext& ctx) {
  ctx.set_output(0, runtime::alias_tensor(ctx.input(0), ctx.output_shape()));
}

// The offset in an input of shape `in` of each element of `out`, NumPy's broadcasting: the
// front-end checked that the shapes broadcast.
std::vector<std::int64_t> broadcast_offsets(const Shape& in, const Shape& out) {
  const int rank = out.rank();
  std::vector<std::int64_t> strides(static_cast<std::size_t>(rank), 0);
  std::int64_t stride = 1;
  for (int axis = in.rank() - 1; axis >= 0; --axis) {
    const int out_axis = axis + rank - in.rank();
    strides[static_cast<std::size_t>(out_axis)] = in[axis] == 1 ? 0 : stride;
    stride *= in[axis];
  }
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(out.num_elements()));
  std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
  std::int64_t offset = 0;
  for (std::int64_t& o : offsets) {
    o = offset;
    for (int axis = rank - 1; axis >= 0; --axis) {  // next index, row-major
      const auto a = static_cast<std::size_t>(axis);
      offset += strides[a];
      if (++index[a] < out[axis]) break;
      offset -= strides[a] * index[a];
      index[a] = 0;
    }
  }
  return offsets;
}

template <bool kEqual>
void compare_strings(KernelContext& ctx) {
  bool* out = ctx.allocate_output()->data<bool>();
  const Shape& shape = ctx.output_shape();
  const std::vector<std::int64_t> x = broadcast_offsets(ctx.input(0).shape(), shape);
  const std::vector<std::int64_t> y = broadcast_offsets(ctx.input(1).shape(), shape);
  const std::string* a = strings_of(ctx.input(0));
  const std::string* b = strings_of(ctx.input(1));
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = (a[x[i]] == b[y[i]]) == kEqual;
}

void string_join(KernelContext& ctx) {
  std::string* out = ctx.allocate_output()->data<std::string>();
  const std::string& separator = ctx.attrs<opdefs::StringJoinAttrs>().separator;
  const std::int64_t n = ctx.output_shape().num_elements();
  for (std::int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < ctx.num_inputs(); ++k) {
      const runtime::TensorImpl& input = ctx.input(k);
      if (k > 0) out[i] += separator;
      out[i] += strings_of(input)[input.shape().rank() == 0 ? 0 : i];
    }
  }
}

void string_length(KernelContext& ctx) {
  std::int32_t* out = ctx.allocate_output()->data<std::int32_t>();
  const bool utf8 = ctx.attrs<opdefs::StringLengthAttrs>().utf8_chars;
  const std::string* in = strings_of(ctx.input(0));
  const std::int64_t n = ctx.output_shape().num_elements();
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t length = static_cast<std::int64_t>(in[i].size());
    if (utf8) {  // every byte but the continuation bytes (10xxxxxx) starts a character
      length = 0;
      for (char c : in[i]) length += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }
    out[i] = static_cast<std::int32_t>(length);
  }
}

// TensorFlow's printf format for AsString (as_string_op.cc): "%", the fill flag, the width,
// ".precision", then the conversion.
std::string as_string_format(const opdefs::AsStringAttrs& attrs, const char* conversion) {
  std::string format = "%" + attrs.fill;
  if (attrs.width > -1) format += std::to_string(attrs.width);
  if (attrs.precision > -1) format += "." + std::to_string(attrs.precision);
  return format + conversion;
}

template <class... Args>
std::string printf_string(const std::string& format, Args... args) {
  const int size = std::snprintf(nullptr, 0, format.c_str(), args...);
  std::string text(static_cast<std::size_t>(size > 0 ? size : 0), '\0');
  std::snprintf(text.data(), text.size() + 1, format.c_str(), args...);
  return text;
}

template <class T>
struct AsStringKernel {
  static void run(KernelContext& ctx) {
    std::string* out = ctx.allocate_output()->data<std::string>();
    const auto& attrs = ctx.attrs<opdefs::AsStringAttrs>();
    const T* in = ctx.input(0).data<const T>();
    const std::int64_t n = ctx.output_shape().num_elements();
    if constexpr (std::is_same_v<T, bool>) {
      for (std::int64_t i = 0; i < n; ++i) out[i] = in[i] ? "true" : "false";
    } else if constexpr (std::is_integral_v<T>) {
      const std::string format = as_string_format(attrs, PRId64);
      for (std::int64_t i = 0; i < n; ++i) {
        out[i] = printf_string(format, static_cast<std::int64_t>(in[i]));
      }
    } else {
      const char* conversion = attrs.shortest ? "g" : attrs.scientific ? "e" : "f";
      const std::string format = as_string_format(attrs, conversion);
      for (std::int64_t i = 0; i < n; ++i) {
        // float16 and bfloat16 print as float, as TensorFlow's kernel does
        out[i] = printf_string(format, static_cast<double>(static_cast<float>(in[i])));
      }
    }
  }
};

template <>
struct AsStringKernel<double> {
  static void run(KernelContext& ctx) {
    std::string* out = ctx.allocate_output()->data<std::string>();
    const auto& attrs = ctx.attrs<opdefs::AsStringAttrs>();
    const double* in = ctx.input(0).data<const double>();
    const std::string format = as_string_format(attrs, attrs.shortest     ? "g"
                                                       : attrs.scientific ? "e"
                                                                          : "f");
    const std::int64_t n = ctx.output_shape().num_elements();
    for (std::int64_t i = 0; i < n; ++i) out[i] = printf_string(format, in[i]);
  }
};

void reduce_join(KernelContext& ctx) {
  std::string* out = ctx.allocate_output()->data<std::string>();
  const auto& attrs = ctx.attrs<opdefs::ReduceJoinAttrs>();
  const Shape& in_shape = ctx.input(0).shape();
  const std::string* in = strings_of(ctx.input(0));
  // The output element of each input element: the input's index without the reduced axes.
  Shape kept = in_shape;
  for (int axis : attrs.axes) kept[axis] = 1;
  const std::vector<std::int64_t> target = broadcast_offsets(kept, in_shape);
  std::vector<bool> started(static_cast<std::size_t>(ctx.output_shape().num_elements()), false);
  for (std::size_t i = 0; i < target.size(); ++i) {  // row-major: each output's in order
    const auto o = static_cast<std::size_t>(target[i]);
    if (started[o]) out[o] += attrs.separator;
    started[o] = true;
    out[o] += in[i];
  }
}

}  // namespace

void register_string_kernels(runtime::KernelTable& table) {
  using opdefs::OpId;
  constexpr DType kString = DType::kString;
  table.add(OpId::kConst, DeviceType::kCPU, kString, &const_strings);
  for (OpId op :
       {OpId::kIdentity, OpId::kReshape, OpId::kExpandDims, OpId::kSqueeze, OpId::kAsString}) {
    table.add(op, DeviceType::kCPU, kString, &alias_strings);
  }
  table.add(OpId::kEqual, DeviceType::kCPU, kString, &compare_strings<true>);
  table.add(OpId::kNotEqual, DeviceType::kCPU, kString, &compare_strings<false>);
  table.add(OpId::kStringJoin, DeviceType::kCPU, kString, &string_join);
  table.add(OpId::kStringLength, DeviceType::kCPU, kString, &string_length);
  table.add(OpId::kReduceJoin, DeviceType::kCPU, kString, &reduce_join);
  kernels::register_op<OpId::kAsString, DeviceType::kCPU, AsStringKernel>(table);
}

}  // namespace eagle::cpu
