// Keras 3's regularizers, op by op as keras/src/regularizers/regularizers.py computes them.
#include "eagle/keras/regularizers.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/python_repr.hpp"
#include "eagle/errors.hpp"
#include "eagle/ops.hpp"

namespace eagle::keras::regularizers {
namespace {

// Keras's validate_float_arg (its text runs "float." and "Received" together).
double checked_factor(double value, const char* name) {
  if (std::isinf(value) || std::isnan(value) || value < 0) {
    throw InvalidArgumentError(fmt::format(
        "Invalid value for argument {0}: expected a non-negative float.Received: {0}={1}", name,
        detail::python_float(value)));
  }
  return value;
}

void check_defined(const Tensor& x) {
  if (!x.defined()) throw InvalidArgumentError("Use of an undefined eagle::Tensor");
}

// Keras's ops.nn.normalize(x, axis, order=2): x * min(rsqrt(sum(x^2)), 1 / epsilon).
Tensor l2_normalize(const Tensor& x, int axis) {
  const Tensor inverse_norm = rsqrt(reduce_sum(square(x), axis, true));
  return x * minimum(inverse_norm, scalar_like(inverse_norm, 1.0 / 1e-7));
}

}  // namespace

L1::L1(double l1) : l1_(checked_factor(l1, "l1")) {}

Tensor L1::operator()(const Tensor& x) const {
  check_defined(x);
  return scalar_like(x, l1_) * reduce_sum(abs(x));
}

L2::L2(double l2) : l2_(checked_factor(l2, "l2")) {}

Tensor L2::operator()(const Tensor& x) const {
  check_defined(x);
  return scalar_like(x, l2_) * reduce_sum(square(x));
}

L1L2::L1L2(double l1, double l2) : l1_(checked_factor(l1, "l1")), l2_(checked_factor(l2, "l2")) {}

Tensor L1L2::operator()(const Tensor& x) const {
  check_defined(x);
  Tensor regularization = zeros({}, x.dtype());
  if (l1_ != 0.0) regularization = regularization + scalar_like(x, l1_) * reduce_sum(abs(x));
  if (l2_ != 0.0) regularization = regularization + scalar_like(x, l2_) * reduce_sum(square(x));
  return regularization;
}

OrthogonalRegularizer::OrthogonalRegularizer(double factor, std::string mode)
    : factor_(checked_factor(factor, "factor")), mode_(std::move(mode)) {
  if (mode_ != "rows" && mode_ != "columns") {
    throw InvalidArgumentError(fmt::format(
        "Invalid value for argument `mode`. Expected one of {{\"rows\", \"columns\"}}. Received: "
        "mode={}",
        mode_));
  }
}

Tensor OrthogonalRegularizer::operator()(const Tensor& x) const {
  check_defined(x);
  if (x.rank() != 2) {
    throw InvalidArgumentError(
        fmt::format("Inputs to OrthogonalRegularizer must have rank 2. Received: inputs.shape={}",
                    x.shape().to_tuple_string()));
  }
  Tensor product;
  std::int64_t size;
  if (mode_ == "rows") {
    const Tensor rows = l2_normalize(x, 1);
    product = matmul(rows, transpose(rows));
    size = x.shape()[0];
  } else {
    const Tensor columns = l2_normalize(x, 0);
    product = matmul(transpose(columns), columns);
    size = x.shape()[1];
  }
  // product * (1 - eye(size)): the diagonal zeroed.
  const Tensor index = range(static_cast<int>(size));
  const Tensor off_diagonal_mask = cast(not_equal(reshape(index, {size, 1}), index), x.dtype());
  const Tensor off_diagonal = product * off_diagonal_mask;
  const double pairs = static_cast<double>(size) * (static_cast<double>(size) - 1.0) / 2.0;
  // factor is a float32 tensor in Keras: factor * 0.5, then * the sum, then / the pairs.
  const Tensor factor = scalar_like(product, factor_);
  return factor * scalar_like(product, 0.5) * reduce_sum(abs(off_diagonal)) /
         scalar_like(product, pairs);
}

std::shared_ptr<const Regularizer> get(const std::string& name) {
  if (name == "l1" || name == "L1") return std::make_shared<L1>();
  if (name == "l2" || name == "L2") return std::make_shared<L2>();
  if (name == "l1_l2" || name == "L1L2") return std::make_shared<L1L2>();
  if (name == "orthogonal_regularizer" || name == "OrthogonalRegularizer") {
    return std::make_shared<OrthogonalRegularizer>();
  }
  throw InvalidArgumentError(fmt::format("Could not interpret regularizer identifier: {}", name));
}

eagle::io::Json L1::get_config() const { return eagle::io::Json::object().set("l1", l1_); }
eagle::io::Json L2::get_config() const { return eagle::io::Json::object().set("l2", l2_); }
eagle::io::Json L1L2::get_config() const {
  return eagle::io::Json::object().set("l1", l1_).set("l2", l2_);
}
eagle::io::Json OrthogonalRegularizer::get_config() const {
  return eagle::io::Json::object().set("factor", factor_).set("mode", mode_);
}

eagle::io::Json serialize(const Regularizer& regularizer) {
  return eagle::io::Json::object()
      .set("module", "keras.regularizers")
      .set("class_name", regularizer.class_name())
      .set("config", regularizer.get_config())
      .set("registered_name", nullptr);
}

std::shared_ptr<const Regularizer> deserialize(const eagle::io::Json& json) {
  const eagle::io::Json* class_name = json.is_object() ? json.find("class_name") : nullptr;
  const eagle::io::Json* config = json.is_object() ? json.find("config") : nullptr;
  if (class_name == nullptr || !class_name->is_string() || config == nullptr ||
      !config->is_object()) {
    throw InvalidArgumentError(
        "A serialized regularizer needs a \"class_name\" and a \"config\" object");
  }
  const auto number = [&](const char* key, double fallback) {
    const eagle::io::Json* v = config->find(key);
    return v == nullptr || v->is_null() ? fallback : v->as_number();
  };
  const std::string& cls = class_name->as_string();
  if (cls == "L1") return std::make_shared<L1>(number("l1", 0.01));
  if (cls == "L2") return std::make_shared<L2>(number("l2", 0.01));
  if (cls == "L1L2") return std::make_shared<L1L2>(number("l1", 0.0), number("l2", 0.0));
  if (cls == "OrthogonalRegularizer") {
    const eagle::io::Json* mode = config->find("mode");
    return std::make_shared<OrthogonalRegularizer>(
        number("factor", 0.01), mode != nullptr && mode->is_string() ? mode->as_string() : "rows");
  }
  throw UnimplementedError(fmt::format(
      "The regularizer class '{}' is not in eagle (it has L1, L2, L1L2, OrthogonalRegularizer)",
      cls));
}

std::shared_ptr<const Regularizer> RegularizerArg::get() const {
  if (regularizer_) return regularizer_;
  if (name_.empty()) return nullptr;
  return regularizers::get(name_);
}

}  // namespace eagle::keras::regularizers
