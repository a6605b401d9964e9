// constant, zeros/ones/fill, range, random_uniform/normal, identity, cast.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "eagle/ops.hpp"
#include "eagle/random_seed.hpp"
#include "opdefs/attrs.hpp"
#include "ops/op_support.hpp"
#include "runtime/context.hpp"

namespace eagle {
namespace {

// Note [Constant placement]
// A constant is data, not an op (docs/guide.md, "How an op is placed"): without a scope it lives
// on CPU:0, where TensorFlow keeps eager constants too; under a scope it goes to the scope's
// device. It never prints a placement line and it is always placed softly: TensorFlow builds the
// host tensor first and lets the consuming op report an impossible device (seed 003 shows the
// error on MatMul, not on the constants before it: samples/soft_placement.cpp). The Const
// pseudo-op carries this through the same placer and kernel table as every other op.

// Converts `count` values to `dtype` in host memory.
template <class From>
std::vector<unsigned char> encode(const From* values, std::size_t count, DType dtype) {
  std::vector<unsigned char> bytes(count * dtype_size(dtype));
  visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* out = reinterpret_cast<T*>(bytes.data());
    for (std::size_t i = 0; i < count; ++i) {
      if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
        out[i] = T(static_cast<float>(values[i]));
      } else if constexpr (std::is_same_v<T, bool>) {
        out[i] = values[i] != From{};
      } else if constexpr (std::is_integral_v<T> && std::is_floating_point_v<From>) {
        // T's range is [-2^k, 2^k), both bounds exact in double; outside it static_cast is UB.
        constexpr double kLowest = static_cast<double>(std::numeric_limits<T>::lowest());
        if (!std::isfinite(values[i]) || values[i] != std::trunc(values[i]) ||
            values[i] < kLowest || values[i] >= -kLowest) {
          throw InvalidArgumentError(fmt::format("Cannot convert {} to EagerTensor of dtype {}",
                                                 values[i], dtype_name(dtype)));
        }
        out[i] = static_cast<T>(values[i]);
      } else {
        out[i] = static_cast<T>(values[i]);
      }
    }
    return 0;
  });
  return bytes;
}

// A string constant (Note [String tensors]): `data` points at `count` std::strings.
Tensor constant_strings(const std::string* data, std::int64_t count, const Shape& shape) {
  const std::int64_t needed = shape.num_elements();
  if (count != needed) {  // one value fills the shape (constant_from_buffer checked the count)
    const std::vector<std::string> filled(static_cast<std::size_t>(needed), data[0]);
    return constant_strings(filled.data(), needed, shape);
  }
  const opdefs::OpAttrs attrs{opdefs::ConstAttrs{data}};
  const runtime::TensorSpec output{shape, DType::kString};
  return runtime::execute1(
      {opdefs::OpId::kConst, DType::kString, nullptr, 0, &output, 1, attrs, true});
}

}  // namespace

Tensor constant_from_buffer(const void* data, std::int64_t count, DType dtype, const Shape& shape) {
  if (data == nullptr && count != 0) {
    throw InvalidArgumentError(
        fmt::format("Eager constant of {} values has no data (a null pointer)", count));
  }
  const std::int64_t needed = shape.num_elements();
  if (count != needed && count != 1) {
    throw InvalidArgumentError(
        fmt::format("Eager constant of {} values does not fit shape {}, which has {} elements",
                    count, shape.to_string(), needed));
  }
  if (dtype == DType::kString) {
    return constant_strings(static_cast<const std::string*>(data), count, shape);
  }
  if (count != needed) {
    // One value fills the shape, like tf.constant(0., shape=[2, 3]). The host buffer comes from
    // malloc, which reports failure as nullptr (a huge std::vector would throw std::bad_alloc, or
    // wrap its byte count around), and failing is the host's out-of-memory error.
    const std::size_t size = dtype_size(dtype);
    std::size_t total = 0;
    const std::unique_ptr<unsigned char, void (*)(void*)> filled(
        __builtin_mul_overflow(static_cast<std::size_t>(needed), size, &total)
            ? nullptr
            : static_cast<unsigned char*>(std::malloc(total ? total : 1)),
        &std::free);
    if (!filled) {
      throw ResourceExhaustedError(
          fmt::format("OOM when allocating tensor with shape{} and type {} on {} by allocator cpu",
                      shape.to_string(), dtype_runtime_name(dtype),
                      runtime::Context::get().host_device().name()));
    }
    for (std::int64_t i = 0; i < needed; ++i) std::memcpy(filled.get() + i * size, data, size);
    return constant_from_buffer(filled.get(), needed, dtype, shape);
  }
  std::vector<unsigned char> normalized;
  if (dtype == DType::kBool) {  // any nonzero byte is true; stored as exactly 0 or 1
    const auto* bytes = static_cast<const unsigned char*>(data);
    normalized.assign(bytes, bytes + count);
    for (auto& b : normalized) b = b != 0;
    data = normalized.data();
  }
  const opdefs::OpAttrs attrs{opdefs::ConstAttrs{data}};
  const runtime::TensorSpec output{shape, dtype};
  return runtime::execute1({opdefs::OpId::kConst, dtype, nullptr, 0, &output, 1, attrs, true});
}

Tensor constant(const TensorData& values, const ShapeArg& shape, std::optional<DType> dtype) {
  if (dtype && static_cast<int>(*dtype) >= kNumDTypes) {
    ops::throw_invalid(
        opdefs::OpId::kConst,
        fmt::format("DType value {} is not a valid eagle::DType", static_cast<int>(*dtype)));
  }
  const Shape inferred = values.shape();  // checks the nesting before the dtype
  const DType d = dtype ? *dtype : values.inferred_dtype();
  if (d == DType::kString) {
    const std::vector<std::string> strings = values.to_strings();
    return constant_from_buffer(strings.data(), values.num_values(), d, shape ? *shape : inferred);
  }
  const std::vector<unsigned char> bytes = values.to_bytes(d);
  return constant_from_buffer(bytes.data(), values.num_values(), d, shape ? *shape : inferred);
}

Tensor scalar_like(const Tensor& like, double value) {
  ops::check_defined(like, opdefs::OpId::kConst);
  const DType d = like.dtype();
  if (d == DType::kString) {  // "a" * 2: TensorFlow's TypeError text
    throw InvalidArgumentError(
        fmt::format("Cannot convert {} to EagerTensor of dtype string", value));
  }
  return constant_from_buffer(encode(&value, 1, d).data(), 1, d, Shape{});
}

Tensor fill(const Shape& shape, double value, DType dtype) {
  return runtime::execute1(opdefs::OpId::kFill, dtype, nullptr, 0, shape, dtype,
                           opdefs::OpAttrs{opdefs::FillAttrs{value}});
}
Tensor zeros(const Shape& shape, DType dtype) { return fill(shape, 0, dtype); }
Tensor ones(const Shape& shape, DType dtype) { return fill(shape, 1, dtype); }

Tensor range(double start, double limit, double delta, DType dtype) {
  if (delta == 0)
    ops::throw_invalid(opdefs::OpId::kRange, fmt::format("Requires delta != 0: {}", delta));
  if ((delta > 0 && start > limit) || (delta < 0 && start < limit)) {
    ops::throw_invalid(opdefs::OpId::kRange,
                       fmt::format("Requires start {} limit when delta {} 0: {}/{}",
                                   delta > 0 ? "<=" : ">=", delta > 0 ? ">" : "<", start, limit));
  }
  const double count = std::ceil(std::fabs((limit - start) / delta));
  if (!std::isfinite(count) || count > 9e15) {
    ops::throw_invalid(opdefs::OpId::kRange,
                       fmt::format("Range of {} elements is too large", count));
  }
  const opdefs::OpAttrs attrs{opdefs::RangeAttrs{start, delta}};
  const Shape shape{static_cast<std::int64_t>(count)};
  return runtime::execute1(opdefs::OpId::kRange, dtype, nullptr, 0, shape, dtype, attrs);
}
Tensor range(int limit) { return range(0, limit, 1, DType::kInt32); }
Tensor range(int start, int limit, int delta) { return range(start, limit, delta, DType::kInt32); }

Tensor random_uniform(const Shape& shape, double minval, double maxval, DType dtype,
                      std::optional<std::uint64_t> seed) {
  if (is_integer(dtype)) {
    // As tf.random.uniform, whose bounds are tensors of the dtype: a fraction would truncate to
    // an empty range ([-0.5, 0.5) -> [0, 0)) and the kernels would divide by its size of 0.
    for (const double bound : {minval, maxval}) {
      if (std::isfinite(bound) && bound != std::trunc(bound)) {
        ops::throw_invalid(
            opdefs::OpId::kRandomUniform,
            fmt::format("Cannot convert {} to EagerTensor of dtype {}", bound, dtype_name(dtype)));
      }
    }
    if (!(minval < maxval)) {
      ops::throw_invalid(opdefs::OpId::kRandomUniform,
                         fmt::format("Need minval < maxval: {} >= {}", minval, maxval));
    }
    const double limit = dtype == DType::kInt32 ? 2147483648.0 : 9223372036854775808.0;
    // maxval is exclusive but still a value of the dtype: 2^63 would overflow the kernels' int64.
    if (minval < -limit || maxval >= limit) {
      ops::throw_invalid(opdefs::OpId::kRandomUniform,
                         fmt::format("minval {} and maxval {} must lie within the range of {}",
                                     minval, maxval, dtype_name(dtype)));
    }
  }
  const opdefs::OpAttrs attrs{opdefs::RandomAttrs{random::get_seed(seed), minval, maxval}};
  return runtime::execute1(opdefs::OpId::kRandomUniform, dtype, nullptr, 0, shape, dtype, attrs);
}

Tensor random_normal(const Shape& shape, double mean, double stddev, DType dtype,
                     std::optional<std::uint64_t> seed) {
  const opdefs::OpAttrs attrs{opdefs::RandomAttrs{random::get_seed(seed), mean, stddev}};
  return runtime::execute1(opdefs::OpId::kRandomStandardNormal, dtype, nullptr, 0, shape, dtype,
                           attrs);
}

Tensor truncated_normal(const Shape& shape, double mean, double stddev, DType dtype,
                        std::optional<std::uint64_t> seed) {
  const opdefs::OpAttrs attrs{opdefs::RandomAttrs{random::get_seed(seed), mean, stddev}};
  return runtime::execute1(opdefs::OpId::kTruncatedNormal, dtype, nullptr, 0, shape, dtype, attrs);
}

Tensor identity(const Tensor& x) {
  ops::check_defined(x, opdefs::OpId::kIdentity);
  return ops::run_unary(opdefs::OpId::kIdentity, x, x.shape(), x.dtype());
}

Tensor cast(const Tensor& x, DType dtype) {
  ops::check_defined(x, opdefs::OpId::kCast);
  if (static_cast<int>(dtype) >= kNumDTypes) {
    ops::throw_invalid(
        opdefs::OpId::kCast,
        fmt::format("DType value {} is not a valid eagle::DType", static_cast<int>(dtype)));
  }
  if (x.dtype() == dtype) return x;  // as tf.cast: nothing to do, no op runs
  return ops::run_unary(opdefs::OpId::kCast, x, x.shape(), dtype);
}

}  // namespace eagle
