// libFuzzer target for the creation ops (constant, constant_from_buffer, fill, zeros, ones, range,
// random_uniform/normal): arbitrary shapes (any rank, negative, zero and huge dimensions, element
// counts past int64), value counts, values and dtypes. A valid request must give a tensor with
// exactly the requested shape, dtype and values; an invalid one must throw InvalidArgumentError,
// or ResourceExhaustedError for a tensor too large to allocate. Anything else (another exception,
// a sanitizer report, a broken invariant) is a crash. Build and run: see docs/fuzzing.md.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;

// __builtin_trap rather than assert: the check must stay on in any build mode.
void require(bool condition) {
  if (!condition) __builtin_trap();
}

constexpr DType kDTypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt32,   DType::kInt64,
                             DType::kBool,    DType::kFloat16, DType::kBFloat16};
// Values are compared only for tensors this small: larger ones are checked by shape and dtype.
constexpr std::int64_t kMaxCheckedElements = 1 << 12;
// Up to this many bytes an allocation must succeed; above it ResourceExhaustedError is a valid
// answer. The runs make ASan refuse allocations above 64 MiB (docs/fuzzing.md), so huge requests
// take the out-of-memory path. (Not lower: libFuzzer itself allocates 20 MiB at start.)
constexpr double kMayExhaustBytes = 64.0 * (1 << 20);

// What a request must produce: a tensor, InvalidArgumentError with this message (empty: any
// non-empty message), or possibly ResourceExhaustedError when the tensor is huge.
struct Expect {
  bool invalid = false;
  std::string message;
  bool may_exhaust = false;
};

std::int64_t pick_dim(FuzzedDataProvider& p) {
  switch (p.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
    case 1:
    case 2:
      return p.ConsumeIntegralInRange<std::int64_t>(0, 4);
    case 3:
      return -p.ConsumeIntegralInRange<std::int64_t>(1, 3);
    case 4: {  // powers of two and their neighbours reach every overflow boundary
      const std::int64_t power = std::int64_t{1} << p.ConsumeIntegralInRange<int>(0, 62);
      return power + p.ConsumeIntegralInRange<std::int64_t>(-1, 1);
    }
    case 5:
      return std::numeric_limits<std::int64_t>::max();
    case 6:
      return std::numeric_limits<std::int64_t>::min();
    default:
      return p.ConsumeIntegral<std::int64_t>();
  }
}

// The rule of Shape::push_back: rank <= 8, dimensions >= 0, every running product fits int64.
std::optional<std::int64_t> reference_count(const std::vector<std::int64_t>& dims) {
  if (dims.size() > static_cast<std::size_t>(Shape::kMaxRank)) return std::nullopt;
  std::int64_t n = 1;
  for (std::int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

// Builds the requested shape; a shape Shape refuses must be refused with InvalidArgumentError
// exactly when the reference says so. Returns nothing for refused shapes.
std::optional<Shape> make_shape(FuzzedDataProvider& p) {
  std::vector<std::int64_t> dims(p.ConsumeIntegralInRange<std::size_t>(0, 10));
  for (auto& d : dims) d = pick_dim(p);
  const std::optional<std::int64_t> count = reference_count(dims);
  try {
    const Shape shape(dims);
    require(count.has_value() && shape.num_elements() == *count);
    require(shape.rank() == static_cast<int>(dims.size()) && shape.to_vector() == dims);
    return shape;
  } catch (const eagle::InvalidArgumentError& e) {
    require(!count.has_value() && e.what()[0] != '\0');
    return std::nullopt;
  }
}

double pick_value(FuzzedDataProvider& p) {
  switch (p.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
      return p.ConsumeIntegralInRange<int>(-3, 3);
    case 1:
      return p.ConsumeIntegralInRange<int>(-3, 3) + 0.5;
    case 2:
      return std::numeric_limits<double>::quiet_NaN();
    case 3:
      return (p.ConsumeBool() ? 1 : -1) * std::numeric_limits<double>::infinity();
    case 4:  // around the int32 and int64 limits
      return std::ldexp(p.ConsumeBool() ? 1.0 : -1.0, p.ConsumeBool() ? 31 : 63) +
             p.ConsumeIntegralInRange<int>(-2, 2) * (p.ConsumeBool() ? 1.0 : 1024.0);
    default:
      return p.ConsumeFloatingPoint<double>();
  }
}

// The value of `v` stored as `dtype`: raw bytes as the tensor must hold them (bool as 0/1).
template <class From>
std::vector<unsigned char> stored(From v, DType dtype) {
  std::vector<unsigned char> out(eagle::dtype_size(dtype));
  eagle::visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    T x;
    if constexpr (std::is_same_v<T, eagle::float16> || std::is_same_v<T, eagle::bfloat16>) {
      x = T(static_cast<float>(v));
    } else if constexpr (std::is_same_v<T, bool>) {
      x = v != From{};
    } else {
      x = static_cast<T>(v);
    }
    std::memcpy(out.data(), &x, sizeof(T));
    return 0;
  });
  return out;
}

// Whether `v` converts to integer dtype `dtype` exactly, as tf.constant requires.
bool fits_integer(double v, DType dtype) {
  const double limit = dtype == DType::kInt32 ? 2147483648.0 : 9223372036854775808.0;
  return std::isfinite(v) && v == std::trunc(v) && v >= -limit && v < limit;
}

// Encodes a C++ value the way constant() does; nullopt when the conversion must be refused.
std::optional<std::vector<unsigned char>> encode(double v, DType dtype) {
  if (eagle::is_integer(dtype) && !fits_integer(v, dtype)) return std::nullopt;
  return stored(v, dtype);
}

std::vector<unsigned char> repeat(const std::vector<unsigned char>& one, std::int64_t n) {
  std::vector<unsigned char> out;
  for (std::int64_t i = 0; i < n; ++i) out.insert(out.end(), one.begin(), one.end());
  return out;
}

// The tensor has exactly the shape and dtype asked for, and (when small and given) the values.
void check_tensor(const Tensor& t, const Shape& shape, DType dtype,
                  const std::vector<unsigned char>* values) {
  require(t.defined() && t.shape() == shape && t.dtype() == dtype);
  require(t.num_elements() == shape.num_elements() && t.rank() == shape.rank());
  if (shape.num_elements() > kMaxCheckedElements) return;
  const auto n = static_cast<std::size_t>(shape.num_elements());
  eagle::visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    const std::vector<T> got = t.template to_vector<T>();
    require(got.size() == n);
    if (!values) return 0;
    require(values->size() == n * sizeof(T));
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        require(got[i] == ((*values)[i] != 0));
      } else {
        require(std::memcmp(&got[i], values->data() + i * sizeof(T), sizeof(T)) == 0);
      }
    }
    return 0;
  });
}

double tensor_bytes(const Shape& shape, DType dtype) {
  return static_cast<double>(shape.num_elements()) * static_cast<double>(eagle::dtype_size(dtype));
}

// Runs `make`; checks the tensor against (shape, dtype, values) or the error against `expect`.
template <class Make>
void run(const Expect& expect, const Shape& shape, DType dtype,
         const std::vector<unsigned char>* values, Make&& make) {
  try {
    const Tensor t = make();
    require(!expect.invalid);
    check_tensor(t, shape, dtype, values);
  } catch (const eagle::InvalidArgumentError& e) {
    require(expect.invalid && e.what()[0] != '\0');
    require(expect.message.empty() || expect.message == e.what());
  } catch (const eagle::ResourceExhaustedError& e) {
    require(!expect.invalid && expect.may_exhaust && e.what()[0] != '\0');
  }
}

std::string misfit(std::int64_t count, const Shape& shape) {
  return fmt::format("Eager constant of {} values does not fit shape {}, which has {} elements",
                     count, shape.to_string(), shape.num_elements());
}

// constant_from_buffer with any count: the raw form every constant goes through.
void fuzz_from_buffer(FuzzedDataProvider& p, DType dtype, const Shape& shape) {
  const std::size_t size = eagle::dtype_size(dtype);
  const std::int64_t needed = shape.num_elements();
  std::int64_t count = 1;
  switch (p.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      count = needed;
      break;
    case 1:
      count = 1;
      break;
    case 2:
      count = p.ConsumeIntegralInRange<std::int64_t>(-2, 8);
      break;
    default:
      count = p.ConsumeIntegral<std::int64_t>();
  }
  // The buffer really holds min(count, 64 Ki) values; a larger count must be refused before it
  // is read, so it is only passed when it cannot be the right count.
  const std::int64_t held = std::max<std::int64_t>(1, std::min<std::int64_t>(count, 1 << 16));
  if (count > held && (count == needed || count == 1)) return;
  std::vector<unsigned char> data = p.ConsumeBytes<unsigned char>(held * size);
  data.resize(held * size);

  Expect expect;
  std::vector<unsigned char> values;
  if (count == needed) {
    values = data;
    values.resize(count * size);
  } else if (count == 1) {
    expect.may_exhaust = tensor_bytes(shape, dtype) > kMayExhaustBytes;
    if (needed <= kMaxCheckedElements) {
      values = repeat({data.begin(), data.begin() + size}, needed);
    }
  } else {
    expect.invalid = true;
    expect.message = misfit(count, shape);
  }
  if (dtype == DType::kBool) {
    for (auto& b : values) b = b != 0;
  }
  run(expect, shape, dtype, values.empty() && needed ? nullptr : &values,
      [&] { return eagle::constant_from_buffer(data.data(), count, dtype, shape); });
}

// constant(std::vector<T>, shape): typed containers keep their type.
template <class T>
void fuzz_vector(FuzzedDataProvider& p, const std::optional<Shape>& shape) {
  std::vector<T> v(p.ConsumeIntegralInRange<std::size_t>(0, 64));
  std::vector<unsigned char> raw;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no references
      v[i] = p.ConsumeBool();
      raw.push_back(v[i]);
    } else {
      const auto bytes = p.ConsumeBytes<unsigned char>(sizeof(T));
      if (!bytes.empty()) std::memcpy(&v[i], bytes.data(), bytes.size());
      const auto* first = reinterpret_cast<const unsigned char*>(&v[i]);
      raw.insert(raw.end(), first, first + sizeof(T));
    }
  }
  using Stored = std::conditional_t<std::is_same_v<T, long long>, std::int64_t, T>;
  const DType dtype = eagle::dtype_of_v<Stored>;
  const auto count = static_cast<std::int64_t>(v.size());
  const Shape s = shape ? *shape : Shape{count};
  Expect expect;
  const std::vector<unsigned char>* values = &raw;
  std::vector<unsigned char> filled;
  if (count == 1 && s.num_elements() != 1) {
    expect.may_exhaust = tensor_bytes(s, dtype) > kMayExhaustBytes;
    values = nullptr;
    if (s.num_elements() <= kMaxCheckedElements) {
      filled = repeat(raw, s.num_elements());
      values = &filled;
    }
  } else if (count != s.num_elements()) {
    expect.invalid = true;
    expect.message = misfit(count, s);
  }
  run(expect, s, dtype, values, [&] { return eagle::constant(v, shape); });
}

// A single C++ value, possibly filling a shape, through each scalar overload.
void fuzz_scalar(FuzzedDataProvider& p, DType dtype, const std::optional<Shape>& shape) {
  const Shape s = shape.value_or(Shape{});
  const std::int64_t n = s.num_elements();
  Expect expect;
  expect.may_exhaust = tensor_bytes(s, dtype) > kMayExhaustBytes;
  std::optional<std::vector<unsigned char>> one;
  DType out = dtype;
  const auto check = [&](auto make) {
    if (!one) {
      expect.invalid = true;
      run(expect, s, out, nullptr, make);
      return;
    }
    const std::vector<unsigned char> values = repeat(*one, n <= kMaxCheckedElements ? n : 0);
    run(expect, s, out, n <= kMaxCheckedElements ? &values : nullptr, make);
  };
  switch (p.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: {
      const double v = pick_value(p);
      one = encode(v, dtype);
      if (!one)
        expect.message = fmt::format("Cannot convert {} to EagerTensor of dtype {}", v,
                                     eagle::dtype_name(dtype));
      return check([&] { return eagle::constant(v, shape, dtype); });
    }
    case 1: {
      const double v = pick_value(p);
      out = DType::kFloat32;
      one = encode(v, out);
      return check([&] { return eagle::constant(v, shape); });
    }
    case 2: {
      const float v = static_cast<float>(pick_value(p));
      out = DType::kFloat32;
      one = stored(v, out);
      return check([&] { return eagle::constant(v, shape); });
    }
    case 3: {
      const int v = p.ConsumeIntegral<int>();
      one = stored(v, dtype);
      return check([&] { return eagle::constant(v, shape, dtype); });
    }
    case 4: {
      const std::int64_t v = p.ConsumeIntegral<std::int64_t>();
      out = DType::kInt64;
      one = stored(v, out);
      return check([&] { return eagle::constant(v, shape); });
    }
    default: {
      const bool v = p.ConsumeBool();
      out = DType::kBool;
      one = stored(v, out);
      return check([&] { return eagle::constant(v, shape); });
    }
  }
}

// The initializer-list overloads, with up to four values.
void fuzz_list(FuzzedDataProvider& p, DType dtype, const std::optional<Shape>& shape) {
  const std::size_t count = p.ConsumeIntegralInRange<std::size_t>(0, 4);
  double d[4];
  for (double& v : d) v = pick_value(p);
  const Shape s = shape ? *shape : Shape{static_cast<std::int64_t>(count)};
  const std::int64_t n = s.num_elements();
  Expect expect;
  std::vector<unsigned char> values;
  bool encodable = true;
  for (std::size_t i = 0; i < count && encodable; ++i) {
    const auto one = encode(d[i], dtype);
    if (!one) {
      expect.message = fmt::format("Cannot convert {} to EagerTensor of dtype {}", d[i],
                                   eagle::dtype_name(dtype));
      encodable = false;
    } else {
      values.insert(values.end(), one->begin(), one->end());
    }
  }
  const std::vector<unsigned char>* checked = &values;
  if (!encodable) {
    expect.invalid = true;
  } else if (count == 1 && n != 1) {
    expect.may_exhaust = tensor_bytes(s, dtype) > kMayExhaustBytes;
    values = repeat(values, n <= kMaxCheckedElements ? n : 0);
    if (n > kMaxCheckedElements) checked = nullptr;
  } else if (static_cast<std::int64_t>(count) != n) {
    expect.invalid = true;
    expect.message = misfit(static_cast<std::int64_t>(count), s);
  }
  run(expect, s, dtype, checked, [&]() -> Tensor {
    switch (count) {
      case 0:
        return eagle::constant(std::initializer_list<double>{}, shape, dtype);
      case 1:
        return eagle::constant({d[0]}, shape, dtype);
      case 2:
        return eagle::constant({d[0], d[1]}, shape, dtype);
      case 3:
        return eagle::constant({d[0], d[1], d[2]}, shape, dtype);
      default:
        return eagle::constant({d[0], d[1], d[2], d[3]}, shape, dtype);
    }
  });
}

// fill, zeros and ones convert the double value as the kernels do: saturating, NaN -> 0.
template <class T>
T converted(double v) {
  if constexpr (std::is_same_v<T, eagle::float16> || std::is_same_v<T, eagle::bfloat16>) {
    return T(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
      return std::numeric_limits<T>::lowest();
    }
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
      return std::numeric_limits<T>::max();
    }
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

std::vector<unsigned char> converted_bytes(double v, DType dtype) {
  std::vector<unsigned char> out(eagle::dtype_size(dtype));
  eagle::visit_dtype(dtype, [&](auto tag) {
    const auto x = converted<decltype(tag)>(v);
    std::memcpy(out.data(), &x, sizeof(x));
    return 0;
  });
  return out;
}

void fuzz_fill(FuzzedDataProvider& p, DType dtype, const Shape& shape) {
  const int which = p.ConsumeIntegralInRange<int>(0, 2);
  const double v = which == 0 ? pick_value(p) : which == 1 ? 0.0 : 1.0;
  const std::int64_t n = shape.num_elements();
  Expect expect;
  expect.may_exhaust = tensor_bytes(shape, dtype) > kMayExhaustBytes;
  const std::vector<unsigned char> values =
      repeat(converted_bytes(v, dtype), n <= kMaxCheckedElements ? n : 0);
  run(expect, shape, dtype, n <= kMaxCheckedElements ? &values : nullptr, [&] {
    return which == 0   ? eagle::fill(shape, v, dtype)
           : which == 1 ? eagle::zeros(shape, dtype)
                        : eagle::ones(shape, dtype);
  });
}

void fuzz_range(FuzzedDataProvider& p, DType dtype) {
  const double start = pick_value(p);
  const double limit =
      p.ConsumeBool() ? start + p.ConsumeIntegralInRange<int>(-20, 20) : pick_value(p);
  const double delta = p.ConsumeBool() ? p.ConsumeIntegralInRange<int>(-3, 3) : pick_value(p);
  const double count = std::ceil(std::fabs((limit - start) / delta));
  Expect expect;
  expect.invalid = delta == 0 || (delta > 0 && start > limit) || (delta < 0 && start < limit) ||
                   !std::isfinite(count) || count > 9e15;
  if (dtype == DType::kBool) {  // Range has no bool kernel: NotFoundError
    try {
      eagle::range(start, limit, delta, dtype);
      require(false);
    } catch (const eagle::InvalidArgumentError& e) {
      require(expect.invalid);
    } catch (const eagle::NotFoundError& e) {
      require(!expect.invalid);
    }
    return;
  }
  Shape shape;
  std::vector<unsigned char> values;
  if (!expect.invalid) {
    shape = Shape{static_cast<std::int64_t>(count)};
    expect.may_exhaust = tensor_bytes(shape, dtype) > kMayExhaustBytes;
    for (std::int64_t i = 0; i < shape.num_elements() && i <= kMaxCheckedElements; ++i) {
      const auto one = converted_bytes(start + static_cast<double>(i) * delta, dtype);
      values.insert(values.end(), one.begin(), one.end());
    }
  }
  run(expect, shape, dtype, shape.num_elements() <= kMaxCheckedElements ? &values : nullptr,
      [&] { return eagle::range(start, limit, delta, dtype); });
}

// Random tensors: only the shape, the dtype and the uniform bounds are checked.
void fuzz_random(FuzzedDataProvider& p, DType dtype, const Shape& shape) {
  const bool uniform = p.ConsumeBool();
  const double a = pick_value(p);
  const double b = p.ConsumeBool() ? a + p.ConsumeIntegralInRange<int>(1, 100) : pick_value(p);
  const auto seed = p.ConsumeIntegral<std::uint64_t>();
  Expect expect;
  expect.may_exhaust = tensor_bytes(shape, dtype) > kMayExhaustBytes;
  bool no_kernel = dtype == DType::kBool || (!uniform && eagle::is_integer(dtype));
  if (uniform && eagle::is_integer(dtype)) {
    const double lim = dtype == DType::kInt32 ? 2147483648.0 : 9223372036854775808.0;
    const bool fraction =
        (std::isfinite(a) && a != std::trunc(a)) || (std::isfinite(b) && b != std::trunc(b));
    expect.invalid = fraction || !(a < b) || a < -lim || b >= lim;
  }
  try {
    const Tensor t = uniform ? eagle::random_uniform(shape, a, b, dtype, seed)
                             : eagle::random_normal(shape, a, b, dtype, seed);
    require(!expect.invalid && !no_kernel);
    check_tensor(t, shape, dtype, nullptr);
    if (uniform && eagle::is_integer(dtype) && shape.num_elements() <= kMaxCheckedElements) {
      eagle::visit_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          for (T x : t.template to_vector<T>()) {
            require(static_cast<double>(x) >= std::floor(a) && static_cast<double>(x) <= b);
          }
        }
        return 0;
      });
    }
  } catch (const eagle::InvalidArgumentError& e) {
    require(expect.invalid && e.what()[0] != '\0');
  } catch (const eagle::NotFoundError& e) {
    require(no_kernel && e.what()[0] != '\0');
  } catch (const eagle::ResourceExhaustedError& e) {
    require(expect.may_exhaust && !expect.invalid);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider p(data, size);
  const int op = p.ConsumeIntegralInRange<int>(0, 6);
  const DType dtype = p.PickValueInArray(kDTypes);
  const bool with_shape = op == 0 || op == 4 || op == 6 || p.ConsumeBool();
  std::optional<Shape> shape;
  if (with_shape) {
    shape = make_shape(p);
    if (!shape) return 0;  // refused as it should be
  }
  switch (op) {
    case 0:
      fuzz_from_buffer(p, dtype, *shape);
      break;
    case 1:
      switch (dtype) {
        case DType::kFloat32:
          fuzz_vector<float>(p, shape);
          break;
        case DType::kFloat64:
          fuzz_vector<double>(p, shape);
          break;
        case DType::kInt32:
          fuzz_vector<std::int32_t>(p, shape);
          break;
        case DType::kInt64:
          if (p.ConsumeBool()) {
            fuzz_vector<std::int64_t>(p, shape);
          } else {
            fuzz_vector<long long>(p, shape);
          }
          break;
        case DType::kBool:
          fuzz_vector<bool>(p, shape);
          break;
        case DType::kFloat16:
          fuzz_vector<eagle::float16>(p, shape);
          break;
        case DType::kBFloat16:
          fuzz_vector<eagle::bfloat16>(p, shape);
          break;
      }
      break;
    case 2:
      fuzz_scalar(p, dtype, shape);
      break;
    case 3:
      fuzz_list(p, dtype, shape);
      break;
    case 4:
      fuzz_fill(p, dtype, *shape);
      break;
    case 5:
      fuzz_range(p, dtype);
      break;
    default:
      fuzz_random(p, dtype, *shape);
  }
  return 0;
}
