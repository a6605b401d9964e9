#include "cluster/attrs_codec.hpp"

#include <cstring>
#include <type_traits>

#include "eagle/errors.hpp"

namespace eagle::cluster {
namespace {

using namespace opdefs;

class Writer {
 public:
  template <class T>
  std::enable_if_t<std::is_arithmetic_v<T>> field(const T& value) {
    out_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void field(const std::string& value) {
    field(static_cast<std::uint64_t>(value.size()));
    out_.append(value);
  }
  template <class T>
  void field(const std::vector<T>& values) {
    field(static_cast<std::uint64_t>(values.size()));
    for (const T& value : values) field(value);
  }
  template <class T>
  std::enable_if_t<std::is_class_v<T>> field(const T& value) {
    fields(*this, const_cast<T&>(value));  // a Writer only reads the fields
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  template <class T>
  std::enable_if_t<std::is_arithmetic_v<T>> field(T& value) {
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
  }
  void field(std::string& value) {
    const std::uint64_t size = count();
    value.assign(take(size), size);
  }
  template <class T>
  void field(std::vector<T>& values) {
    values.resize(count());
    for (T& value : values) field(value);
  }
  template <class T>
  std::enable_if_t<std::is_class_v<T>> field(T& value) {
    fields(*this, value);
  }
  bool done() const { return at_ == in_.size(); }

 private:
  // A length no longer than what is left (each element takes a byte at least).
  std::uint64_t count() {
    std::uint64_t n = 0;
    field(n);
    if (n > in_.size() - at_) malformed();
    return n;
  }
  const char* take(std::size_t bytes) {
    if (bytes > in_.size() - at_) malformed();
    const char* p = in_.data() + at_;
    at_ += bytes;
    return p;
  }
  [[noreturn]] static void malformed() {
    throw InvalidArgumentError("Malformed op attributes in a remote call");
  }
  const std::string& in_;
  std::size_t at_ = 0;
};

// Each struct's fields in declaration order (opdefs/attrs.hpp). A field added there must be added
// here: one left out would reach the task as its default (attrs_codec_test round-trips each kind).
template <class A>
void fields(A&, NoAttrs&) {}
template <class A>
void fields(A& a, ReduceAttrs& x) {
  a.field(x.axes);
}
template <class A>
void fields(A& a, AxisAttrs& x) {
  a.field(x.axis);
}
template <class A>
void fields(A& a, MatMulAttrs& x) {
  a.field(x.transpose_a);
  a.field(x.transpose_b);
}
template <class A>
void fields(A& a, TransposeAttrs& x) {
  a.field(x.perm);
}
template <class A>
void fields(A& a, SliceAttrs& x) {
  a.field(x.begin);
}
template <class A>
void fields(A&, ConstAttrs&) {
  throw UnimplementedError(
      "A constant's host data cannot be sent as an attribute; it is sent as a value");
}
template <class A>
void fields(A& a, FillAttrs& x) {
  a.field(x.value);
}
template <class A>
void fields(A& a, RangeAttrs& x) {
  a.field(x.start);
  a.field(x.delta);
}
template <class A>
void fields(A& a, RandomAttrs& x) {
  a.field(x.seed);
  a.field(x.a);
  a.field(x.b);
}
template <class A>
void fields(A& a, TopKAttrs& x) {
  a.field(x.k);
  a.field(x.sorted);
}
template <class A>
void fields(A& a, TileAttrs& x) {
  a.field(x.multiples);
}
template <class A>
void fields(A& a, PadAttrs& x) {
  a.field(x.before);
  a.field(x.after);
  a.field(x.constant_value);
  a.field(x.symmetric);
}
template <class A>
void fields(A& a, ReverseAttrs& x) {
  a.field(x.axes);
}
template <class A>
void fields(A& a, ScanAttrs& x) {
  a.field(x.axis);
  a.field(x.exclusive);
  a.field(x.reverse);
}
template <class A>
void fields(A& a, GatherAttrs& x) {
  a.field(x.axis);
  a.field(x.batch_dims);
}
template <class A>
void fields(A& a, GatherNdAttrs& x) {
  a.field(x.batch_dims);
}
template <class A>
void fields(A& a, StridedSliceAttrs& x) {
  a.field(x.begin);
  a.field(x.end);
  a.field(x.strides);
  a.field(x.begin_mask);
  a.field(x.end_mask);
  a.field(x.ellipsis_mask);
  a.field(x.new_axis_mask);
  a.field(x.shrink_axis_mask);
  a.field(x.start);
  a.field(x.step);
  a.field(x.size);
}
template <class A>
void fields(A& a, EinsumOperand& x) {
  a.field(x.dims);
  a.field(x.strides);
  a.field(x.reduce);
  a.field(x.copy);
}
template <class A>
void fields(A& a, EinsumAttrs& x) {
  a.field(x.equation);
  a.field(x.input_subscripts);
  a.field(x.output_subscripts);
  a.field(x.operands);
  a.field(x.a_shape);
  a.field(x.b_shape);
  a.field(x.product_shape);
  a.field(x.transpose_a);
  a.field(x.transpose_b);
  a.field(x.out_dims);
  a.field(x.out_strides);
  a.field(x.out_copy);
}
template <class A>
void fields(A& a, OptimizerAttrs& x) {
  a.field(x.lr);
  a.field(x.beta1);
  a.field(x.beta2);
  a.field(x.beta1_power);
  a.field(x.beta2_power);
  a.field(x.momentum);
  a.field(x.rho);
  a.field(x.epsilon);
  a.field(x.nesterov);
  a.field(x.step);
  a.field(x.u_product);
}
template <class A>
void fields(A& a, Conv2DAttrs& x) {
  a.field(x.batch);
  a.field(x.in_height);
  a.field(x.in_width);
  a.field(x.in_channels);
  a.field(x.filter_height);
  a.field(x.filter_width);
  a.field(x.out_channels);
  a.field(x.out_height);
  a.field(x.out_width);
  a.field(x.stride_h);
  a.field(x.stride_w);
  a.field(x.dilation_h);
  a.field(x.dilation_w);
  a.field(x.pad_top);
  a.field(x.pad_bottom);
  a.field(x.pad_left);
  a.field(x.pad_right);
  a.field(x.same);
  a.field(x.groups);
}
template <class A>
void fields(A& a, FusedConv2DAttrs& x) {
  a.field(x.conv);
  a.field(x.relu);
}
template <class A>
void fields(A& a, Pool2DAttrs& x) {
  a.field(x.batch);
  a.field(x.in_height);
  a.field(x.in_width);
  a.field(x.channels);
  a.field(x.window_h);
  a.field(x.window_w);
  a.field(x.out_height);
  a.field(x.out_width);
  a.field(x.stride_h);
  a.field(x.stride_w);
  a.field(x.pad_top);
  a.field(x.pad_bottom);
  a.field(x.pad_left);
  a.field(x.pad_right);
  a.field(x.same);
}
template <class A>
void fields(A& a, LeakyReluAttrs& x) {
  a.field(x.alpha);
}
template <class A>
void fields(A& a, OneHotAttrs& x) {
  a.field(x.depth);
  a.field(x.axis);
  a.field(x.on_value);
  a.field(x.off_value);
}
template <class A>
void fields(A& a, FusedBatchNormAttrs& x) {
  a.field(x.epsilon);
  a.field(x.exponential_avg_factor);
  a.field(x.is_training);
}
template <class A>
void fields(A& a, SegmentAttrs& x) {
  a.field(x.num_segments);
}
template <class A>
void fields(A& a, CheckNumericsAttrs& x) {
  a.field(x.message);
}
template <class A>
void fields(A& a, IdentityNAttrs& x) {
  if (x.grad_fn) {
    throw UnimplementedError(
        "A custom gradient's function cannot run on another task: call eagle::custom_gradient "
        "under a local device scope");
  }
  a.field(x.num_outputs);
}
template <class A>
void fields(A& a, StringJoinAttrs& x) {
  a.field(x.separator);
}
template <class A>
void fields(A& a, StringLengthAttrs& x) {
  a.field(x.utf8_chars);
}
template <class A>
void fields(A& a, AsStringAttrs& x) {
  a.field(x.precision);
  a.field(x.scientific);
  a.field(x.shortest);
  a.field(x.width);
  a.field(x.fill);
}
template <class A>
void fields(A& a, ReduceJoinAttrs& x) {
  a.field(x.axes);
  a.field(x.keep_dims);
  a.field(x.separator);
}

template <std::size_t I = 0>
OpAttrs decode_alternative(std::size_t index, Reader& reader) {
  if constexpr (I < std::variant_size_v<OpAttrs>) {
    if (index == I) {
      std::variant_alternative_t<I, OpAttrs> value{};
      fields(reader, value);
      return OpAttrs{std::move(value)};
    }
    return decode_alternative<I + 1>(index, reader);
  } else {
    throw InvalidArgumentError("Malformed op attributes in a remote call");
  }
}

}  // namespace

std::string encode_attrs(const OpAttrs& attrs) {
  Writer writer;
  writer.field(static_cast<std::uint32_t>(attrs.index()));
  std::visit([&](const auto& value) { writer.field(value); }, attrs);
  return writer.take();
}

OpAttrs decode_attrs(const std::string& bytes) {
  Reader reader(bytes);
  std::uint32_t index = 0;
  reader.field(index);
  OpAttrs attrs = decode_alternative(index, reader);
  if (!reader.done()) throw InvalidArgumentError("Malformed op attributes in a remote call");
  return attrs;
}

}  // namespace eagle::cluster
