// The fixture side shared by the TensorFlow fixture tests (tf_fixture_test.cpp,
// tf_gradient_fixture_test.cpp): tensors from the generators' JSON, the eagle function each
// fixture "op" names (one table, so a gradient case calls an op exactly as a value case does),
// and the comparison of a result with TensorFlow's.
#pragma once

#include <catch2/catch.hpp>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "eagle/eagle.hpp"
#include "json_reader.hpp"

namespace eagle_test {

using eagle::DType;
using eagle::Shape;
using eagle::Tensor;

inline DType dtype_named(const std::string& name) {
  for (DType d : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64, DType::kBool,
                  DType::kFloat16, DType::kBFloat16}) {
    if (eagle::dtype_name(d) == name) return d;
  }
  throw std::runtime_error("fixture dtype " + name);
}

inline double decode(const Json& v) {
  if (v.is_bool()) return v.boolean() ? 1 : 0;
  if (v.is_number()) return v.number();
  const std::string& s = v.str();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "-0.0") return -0.0;
  throw std::runtime_error("fixture value " + s);
}

inline Shape shape_of(const Json& j) {
  std::vector<std::int64_t> dims;
  for (const Json& d : j.array()) dims.push_back(d.integer());
  return Shape(dims);
}

inline Tensor make_tensor(const Json& j) {
  const DType dtype = dtype_named(j["dtype"].str());
  const Shape shape = shape_of(j["shape"]);
  const auto& values = j["values"].array();
  return eagle::visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    std::vector<std::uint8_t> bytes(values.size() * sizeof(T));
    T* data = reinterpret_cast<T*>(bytes.data());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        data[i] = values[i].boolean();
      } else if constexpr (std::is_integral_v<T>) {
        data[i] = static_cast<T>(values[i].integer());
      } else if constexpr (std::is_floating_point_v<T>) {
        data[i] = static_cast<T>(decode(values[i]));
      } else {
        data[i] = T(static_cast<float>(decode(values[i])));
      }
    }
    return eagle::constant_from_buffer(data, static_cast<std::int64_t>(values.size()), dtype,
                                       shape);
  });
}

inline std::vector<int> ints(const Json& j) {
  std::vector<int> out;
  for (const Json& v : j.array()) out.push_back(static_cast<int>(v.integer()));
  return out;
}

using Inputs = std::vector<Tensor>;
using OpFn = std::function<Tensor(const Inputs&, const Json&)>;

// The eagle function each fixture "op" names.
inline const std::map<std::string, OpFn>& ops() {
  using Unary = Tensor (*)(const Tensor&);
  using Binary = Tensor (*)(const Tensor&, const Tensor&);
  static const std::map<std::string, OpFn> table = [] {
    std::map<std::string, OpFn> t;
    const std::map<std::string, Unary> unary = {{"negative", eagle::negative},
                                                {"abs", eagle::abs},
                                                {"relu", eagle::relu},
                                                {"sign", eagle::sign},
                                                {"floor", eagle::floor},
                                                {"ceil", eagle::ceil},
                                                {"round", eagle::round},
                                                {"square", eagle::square},
                                                {"reciprocal", eagle::reciprocal},
                                                {"is_nan", eagle::is_nan},
                                                {"is_inf", eagle::is_inf},
                                                {"is_finite", eagle::is_finite},
                                                {"exp", eagle::exp},
                                                {"log", eagle::log},
                                                {"log1p", eagle::log1p},
                                                {"sqrt", eagle::sqrt},
                                                {"rsqrt", eagle::rsqrt},
                                                {"erf", eagle::erf},
                                                {"sin", eagle::sin},
                                                {"cos", eagle::cos},
                                                {"tanh", eagle::tanh},
                                                {"sigmoid", eagle::sigmoid},
                                                {"logical_not", eagle::logical_not},
                                                {"softmax", eagle::softmax},
                                                {"identity", eagle::identity}};
    for (const auto& [name, fn] : unary) {
      t[name] = [fn = fn](const Inputs& in, const Json&) { return fn(in.at(0)); };
    }
    const std::map<std::string, Binary> binary = {
        {"floordiv", eagle::floordiv},
        {"floormod", eagle::floormod},
        {"truncatediv", eagle::truncatediv},
        {"truncatemod", eagle::truncatemod},
        {"squared_difference", eagle::squared_difference},
        {"logical_and", eagle::logical_and},
        {"logical_or", eagle::logical_or},
        {"maximum", eagle::maximum},
        {"minimum", eagle::minimum},
        {"pow", eagle::pow},
        {"add", eagle::add},
        {"equal", eagle::equal},
        {"subtract", eagle::subtract},
        {"multiply", eagle::multiply},
        {"divide", eagle::divide},
        {"operator==", [](const Tensor& a, const Tensor& b) { return a == b; }},
        {"operator!=", [](const Tensor& a, const Tensor& b) { return a != b; }}};
    for (const auto& [name, fn] : binary) {
      t[name] = [fn = fn](const Inputs& in, const Json&) { return fn(in.at(0), in.at(1)); };
    }
    t["matmul"] = [](const Inputs& in, const Json& a) {
      const auto flag = [&](const char* key) { return a.has(key) && a[key].boolean(); };
      return eagle::matmul(in.at(0), in.at(1), flag("transpose_a"), flag("transpose_b"));
    };
    t["argmax"] = [](const Inputs& in, const Json& a) {
      return eagle::argmax(in.at(0), static_cast<int>(a["axis"].integer()));
    };
    t["argmin"] = [](const Inputs& in, const Json& a) {
      return eagle::argmin(in.at(0), static_cast<int>(a["axis"].integer()));
    };
    t["cast"] = [](const Inputs& in, const Json& a) {
      return eagle::cast(in.at(0), dtype_named(a["dtype"].str()));
    };
    t["transpose"] = [](const Inputs& in, const Json& a) {
      return eagle::transpose(in.at(0), ints(a["perm"]));
    };
    t["reshape"] = [](const Inputs& in, const Json& a) {
      std::vector<std::int64_t> dims;
      for (const Json& d : a["shape"].array()) dims.push_back(d.integer());
      return eagle::reshape(in.at(0), dims);
    };
    t["squeeze"] = [](const Inputs& in, const Json& a) {
      return eagle::squeeze(in.at(0), ints(a["axes"]));
    };
    t["expand_dims"] = [](const Inputs& in, const Json& a) {
      return eagle::expand_dims(in.at(0), static_cast<int>(a["axis"].integer()));
    };
    t["concat"] = [](const Inputs& in, const Json& a) {
      return eagle::concat(in, static_cast<int>(a["axis"].integer()));
    };
    using Reduction = Tensor (*)(const Tensor&, const eagle::Axes&, bool);
    const std::map<std::string, Reduction> reductions = {
        {"reduce_sum", eagle::reduce_sum},   {"reduce_max", eagle::reduce_max},
        {"reduce_mean", eagle::reduce_mean}, {"reduce_min", eagle::reduce_min},
        {"reduce_prod", eagle::reduce_prod}, {"reduce_any", eagle::reduce_any},
        {"reduce_all", eagle::reduce_all},   {"reduce_variance", eagle::reduce_variance},
        {"reduce_std", eagle::reduce_std},   {"reduce_logsumexp", eagle::reduce_logsumexp}};
    for (const auto& [name, fn] : reductions) {
      t[name] = [fn = fn](const Inputs& in, const Json& a) {
        const eagle::Axes axes =
            a.has("axis") ? eagle::Axes(static_cast<int>(a["axis"].integer())) : eagle::Axes();
        const bool keepdims = a.has("keepdims") && a["keepdims"].boolean();
        return fn(in.at(0), axes, keepdims);
      };
    }
    t["add_n"] = [](const Inputs& in, const Json&) { return eagle::add_n(in); };
    t["stack"] = [](const Inputs& in, const Json& a) {
      return eagle::stack(in, static_cast<int>(a["axis"].integer()));
    };
    t["unstack"] = [](const Inputs& in, const Json& a) {
      const auto parts = eagle::unstack(in.at(0), static_cast<int>(a["axis"].integer()));
      return parts.at(static_cast<std::size_t>(a["index"].integer()));
    };
    const auto axis_of = [](const Json& a) { return static_cast<int>(a["axis"].integer()); };
    const auto int64s = [](const Json& j) {
      std::vector<std::int64_t> out;
      for (const Json& v : j.array()) out.push_back(v.integer());
      return out;
    };
    t["tile"] = [int64s](const Inputs& in, const Json& a) {
      return eagle::tile(in.at(0), int64s(a["multiples"]));
    };
    t["pad"] = [int64s](const Inputs& in, const Json& a) {
      std::vector<std::vector<std::int64_t>> paddings;
      for (const Json& row : a["paddings"].array()) paddings.push_back(int64s(row));
      const std::string mode = a.has("mode") ? a["mode"].str() : "CONSTANT";
      const double value = a.has("constant_values") ? decode(a["constant_values"]) : 0.0;
      return eagle::pad(in.at(0), paddings, mode, value);
    };
    t["reverse"] = [](const Inputs& in, const Json& a) {
      return eagle::reverse(in.at(0), ints(a["axis"]));
    };
    const auto scan_of = [axis_of](auto fn) {
      return [fn, axis_of](const Inputs& in, const Json& a) {
        const bool exclusive = a.has("exclusive") && a["exclusive"].boolean();
        const bool reverse = a.has("reverse") && a["reverse"].boolean();
        return fn(in.at(0), axis_of(a), exclusive, reverse);
      };
    };
    t["cumsum"] = scan_of(eagle::cumsum);
    t["cumprod"] = scan_of(eagle::cumprod);
    t["split"] = [int64s, axis_of](const Inputs& in, const Json& a) {
      const auto parts =
          a.has("num_split")
              ? eagle::split(in.at(0), static_cast<int>(a["num_split"].integer()), axis_of(a))
              : eagle::split(in.at(0), int64s(a["size_splits"]), axis_of(a));
      return parts.at(static_cast<std::size_t>(a["index"].integer()));
    };
    t["sort"] = [axis_of](const Inputs& in, const Json& a) {
      return eagle::sort(in.at(0), axis_of(a), a["direction"].str());
    };
    t["argsort"] = [axis_of](const Inputs& in, const Json& a) {
      return eagle::argsort(in.at(0), axis_of(a), a["direction"].str());
    };
    t["broadcast_to"] = [](const Inputs& in, const Json& a) {
      return eagle::broadcast_to(in.at(0), shape_of(a["shape"]));
    };
    t["shape"] = [](const Inputs& in, const Json&) { return eagle::shape(in.at(0)); };
    t["tensordot"] = [](const Inputs& in, const Json& a) {
      if (a.has("axes")) {
        return eagle::tensordot(in.at(0), in.at(1), static_cast<int>(a["axes"].integer()));
      }
      return eagle::tensordot(in.at(0), in.at(1), ints(a["a_axes"]), ints(a["b_axes"]));
    };
    const auto int_or = [](const Json& a, const char* key, int fallback) {
      return a.has(key) ? static_cast<int>(a[key].integer()) : fallback;
    };
    t["gather"] = [int_or](const Inputs& in, const Json& a) {
      const std::optional<int> axis =
          a.has("axis") ? std::optional<int>(int_or(a, "axis", 0)) : std::nullopt;
      return eagle::gather(in.at(0), in.at(1), axis, int_or(a, "batch_dims", 0));
    };
    t["gather_nd"] = [int_or](const Inputs& in, const Json& a) {
      return eagle::gather_nd(in.at(0), in.at(1), int_or(a, "batch_dims", 0));
    };
    t["where"] = [](const Inputs& in, const Json&) { return eagle::where(in.at(0)); };
    t["slice"] = [int64s](const Inputs& in, const Json& a) {
      return eagle::slice(in.at(0), int64s(a["begin"]), int64s(a["size"]));
    };
    t["top_k"] = [](const Inputs& in, const Json& a) {
      return eagle::top_k(in.at(0), static_cast<int>(a["k"].integer())).values;
    };
    t["unsorted_segment_sum"] = [](const Inputs& in, const Json& a) {
      return eagle::math::unsorted_segment_sum(in.at(0), in.at(1), a["num_segments"].integer());
    };
    t["identity_n"] = [](const Inputs& in, const Json& a) {
      return eagle::identity_n(in).at(static_cast<std::size_t>(a["index"].integer()));
    };
    t["check_numerics"] = [](const Inputs& in, const Json& a) {
      return eagle::debugging::check_numerics(in.at(0), a["message"].str());
    };
    t["select"] = [](const Inputs& in, const Json&) {
      return eagle::where(in.at(0), in.at(1), in.at(2));
    };
    t["boolean_mask"] = [int_or](const Inputs& in, const Json& a) {
      return eagle::boolean_mask(in.at(0), in.at(1), int_or(a, "axis", 0));
    };
    t["strided_slice"] = [](const Inputs& in, const Json& a) {
      const auto int64s = [](const Json& j) {
        std::vector<std::int64_t> out;
        for (const Json& v : j.array()) out.push_back(v.integer());
        return out;
      };
      const std::vector<int> m = ints(a["masks"]);
      return eagle::strided_slice(in.at(0), int64s(a["begin"]), int64s(a["end"]),
                                  int64s(a["strides"]), m.at(0), m.at(1), m.at(2), m.at(3),
                                  m.at(4));
    };
    t["einsum"] = [](const Inputs& in, const Json& a) {
      return eagle::einsum(a["equation"].str(), in);
    };
    return t;
  }();
  return table;
}

// "InvalidArgumentError" -> "INVALID_ARGUMENT", as error_code_name spells it.
inline std::string code_spelling(const std::string& error_class) {
  std::string out;
  const std::string name = error_class.substr(0, error_class.size() - std::string("Error").size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (i > 0 && std::isupper(static_cast<unsigned char>(name[i]))) out.push_back('_');
    out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(name[i]))));
  }
  return out;
}

// Floats within `tolerance` of TensorFlow's, relative to max(|expected|, floor): a floor keeps
// values that should be 0 (a gradient that cancels) from needing 0 to the last bit.
inline void check_values(const Tensor& got, const Json& expected, double tolerance,
                         double floor = 1e-30) {
  CHECK(eagle::dtype_name(got.dtype()) == expected["dtype"].str());
  REQUIRE(got.shape() == shape_of(expected["shape"]));
  const auto& values = expected["values"].array();
  eagle::visit_dtype(got.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::vector<T> v = got.to_vector<T>();
    REQUIRE(v.size() == values.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      INFO("element " << i);
      if constexpr (std::is_same_v<T, bool>) {
        CHECK(v[i] == values[i].boolean());
      } else if constexpr (std::is_integral_v<T>) {
        CHECK(static_cast<long long>(v[i]) == values[i].integer());
      } else {
        double g;
        if constexpr (std::is_floating_point_v<T>) {
          g = static_cast<double>(v[i]);
        } else {  // float16, bfloat16
          g = static_cast<double>(static_cast<float>(v[i]));
        }
        const double want = decode(values[i]);
        if (std::isnan(want)) {
          CHECK(std::isnan(g));
        } else if (tolerance == 0 || std::isinf(want)) {
          CHECK(g == want);
          CHECK(std::signbit(g) == std::signbit(want));  // -0.0 is not +0.0 here
        } else {
          CHECK(std::abs(g - want) <= tolerance * std::max(std::abs(want), floor));
        }
      }
    }
    return 0;
  });
}

}  // namespace eagle_test
