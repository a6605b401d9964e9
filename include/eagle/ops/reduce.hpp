// Reductions over any axes, argmax and argmin.
#pragma once

#include <initializer_list>
#include <utility>
#include <vector>

#include "eagle/tensor.hpp"

namespace eagle {

// Which axes to reduce. Negative axes count from the end; repeated axes are an error.
// Mind the two empties, which follow TensorFlow:
//   reduce_sum(x) and reduce_sum(x, {}) and reduce_sum(x, Axes::all()): every axis (axis=None);
//   reduce_sum(x, std::vector<int>{}) and reduce_sum(x, Axes::none()): no axis (axis=[]).
class Axes {
 public:
  Axes() = default;
  Axes(int axis) : axes_{axis}, all_(false) {}  // NOLINT: implicit by design
  Axes(std::initializer_list<int> axes) : axes_(axes), all_(axes.size() == 0) {}
  Axes(std::vector<int> axes) : axes_(std::move(axes)), all_(false) {}  // NOLINT
  static Axes all() { return Axes(); }
  static Axes none() { return Axes(std::vector<int>{}); }
  bool reduces_all() const { return all_; }
  const std::vector<int>& list() const { return axes_; }

 private:
  std::vector<int> axes_;
  bool all_ = true;
};

// Sum (mean, max, min) over `axes`: by default every axis, as with axis=None (see Axes for
// why `{}` and `std::vector<int>{}` differ). keepdims keeps the reduced axes with size 1.
Tensor reduce_sum(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor reduce_mean(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor reduce_max(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor reduce_min(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
// Product (integers wrap; of nothing: 1).
Tensor reduce_prod(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
// bool tensors: whether any / all elements are true (of nothing: false / true).
Tensor reduce_any(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor reduce_all(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
// Floating types, as TensorFlow's composites: the population variance and standard deviation,
// and log(sum(exp(x))) computed without overflow.
Tensor reduce_variance(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor reduce_std(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor reduce_logsumexp(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
// Index of the largest (smallest) value along `axis`, as int64: the first on ties, NaN passed
// over as in TensorFlow (a row of NaN gives 0). Every dtype, bool included.
Tensor argmax(const Tensor& x, int axis = 0);
Tensor argmin(const Tensor& x, int axis = 0);

}  // namespace eagle
