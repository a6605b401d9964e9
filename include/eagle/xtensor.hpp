// Interop with xtensor: copy a tensor into an xt::xarray and build a tensor from an expression.
#pragma once

#include <vector>

#include <xtensor/xarray.hpp>

#include "eagle/ops.hpp"
#include "eagle/tensor.hpp"

namespace eagle {

template <class T>
xt::xarray<T> to_xarray(const Tensor& t) {
  const std::vector<T> values = t.to_vector<T>();
  std::vector<std::size_t> shape(t.shape().begin(), t.shape().end());
  xt::xarray<T> out(shape);
  std::copy(values.begin(), values.end(), out.begin());
  return out;
}

// Evaluates the expression and copies it into a constant on the current placement.
template <class E>
Tensor from_xexpression(const E& expression) {
  using T = typename E::value_type;
  const xt::xarray<T> evaluated = expression;
  Shape shape;
  for (auto d : evaluated.shape()) shape.push_back(static_cast<std::int64_t>(d));
  std::vector<T> values(evaluated.begin(), evaluated.end());
  return constant(values, shape);
}

}  // namespace eagle
