// Keras 3's weight regularizers (keras.regularizers): a penalty of a weight's value that a layer
// adds to its losses() (docs/guide.md, "Regularization").
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "eagle/io/json.hpp"
#include "eagle/tensor.hpp"

namespace eagle::keras::regularizers {

class Regularizer {
 public:
  virtual ~Regularizer() = default;
  // The penalty of x: a scalar of x's dtype.
  virtual Tensor operator()(const Tensor& x) const = 0;
  // Keras's class name: "L1", "L2", "L1L2", "OrthogonalRegularizer".
  virtual std::string class_name() const = 0;
  // Keras's get_config: {"l2": 0.01}, {"factor": 0.01, "mode": "rows"}, ...
  virtual eagle::io::Json get_config() const = 0;
};

// l1 * sum(|x|). A negative, infinite or NaN factor: InvalidArgumentError (Keras's text).
class L1 : public Regularizer {
 public:
  explicit L1(double l1 = 0.01);
  Tensor operator()(const Tensor& x) const override;
  std::string class_name() const override { return "L1"; }
  eagle::io::Json get_config() const override;
  double l1() const { return l1_; }

 private:
  double l1_;
};

// l2 * sum(x^2).
class L2 : public Regularizer {
 public:
  explicit L2(double l2 = 0.01);
  Tensor operator()(const Tensor& x) const override;
  std::string class_name() const override { return "L2"; }
  eagle::io::Json get_config() const override;
  double l2() const { return l2_; }

 private:
  double l2_;
};

// l1 * sum(|x|) + l2 * sum(x^2), each term only when its factor is not 0 (both 0 by default, as
// Keras 3's class, which keras.regularizers.l1_l2 names too).
class L1L2 : public Regularizer {
 public:
  explicit L1L2(double l1 = 0.0, double l2 = 0.0);
  Tensor operator()(const Tensor& x) const override;
  std::string class_name() const override { return "L1L2"; }
  eagle::io::Json get_config() const override;
  double l1() const { return l1_; }
  double l2() const { return l2_; }

 private:
  double l1_;
  double l2_;
};

// Encourages orthogonal rows (mode "rows") or columns ("columns") of a rank-2 weight:
// factor * 0.5 * sum(|off-diagonal of the normalized Gram matrix|) / (size * (size - 1) / 2).
class OrthogonalRegularizer : public Regularizer {
 public:
  explicit OrthogonalRegularizer(double factor = 0.01, std::string mode = "rows");
  Tensor operator()(const Tensor& x) const override;
  std::string class_name() const override { return "OrthogonalRegularizer"; }
  eagle::io::Json get_config() const override;

 private:
  double factor_;
  std::string mode_;
};

// By Keras's name, at its defaults: "l1", "l2", "l1_l2", "orthogonal_regularizer",
// or a class name. Another: InvalidArgumentError (Keras's "Could not interpret regularizer
// identifier" text).
std::shared_ptr<const Regularizer> get(const std::string& name);

// Keras 3's serialized form, as .keras configs hold it: {"module": "keras.regularizers",
// "class_name": "L2", "config": {"l2": 0.01}, "registered_name": null}.
eagle::io::Json serialize(const Regularizer& regularizer);
// The regularizer of a serialized form (one of the four classes, Keras's arguments); another
// class: UnimplementedError naming it; a malformed one: InvalidArgumentError.
std::shared_ptr<const Regularizer> deserialize(const eagle::io::Json& json);

// A layer's regularizer argument (kernel_regularizer = ...): none, a Keras name, or an object.
class RegularizerArg {
 public:
  RegularizerArg() = default;
  RegularizerArg(std::nullptr_t) {}                             // NOLINT: implicit by design
  RegularizerArg(const char* name) : name_(name) {}             // NOLINT: implicit by design
  RegularizerArg(std::string name) : name_(std::move(name)) {}  // NOLINT: implicit by design
  template <class R, class = std::enable_if_t<std::is_base_of_v<Regularizer, R>>>
  RegularizerArg(std::shared_ptr<R> regularizer)  // NOLINT: implicit by design
      : regularizer_(std::move(regularizer)) {}
  // The regularizer (a name resolved by get()), or nullptr.
  std::shared_ptr<const Regularizer> get() const;

 private:
  std::string name_;
  std::shared_ptr<const Regularizer> regularizer_;
};

}  // namespace eagle::keras::regularizers
