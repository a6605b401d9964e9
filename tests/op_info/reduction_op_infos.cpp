// OpInfo entries of the reductions (Sum, Mean, Max, Min, Prod, Any, All), ArgMax/ArgMin, the
// scans (Cumsum, Cumprod) and TopKV2 with the sorts built on it (Note [OpInfo table]).
#include "op_info/error_texts.hpp"
#include "op_info/op_info.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

namespace {

using eagle::Axes;
using eagle::InvalidArgumentError;
using V = const Inputs&;

Tensor reduce(opdefs::OpId op, const Tensor& x, const Axes& axes, bool keepdims) {
  switch (op) {
    case opdefs::OpId::kSum:
      return eagle::reduce_sum(x, axes, keepdims);
    case opdefs::OpId::kMean:
      return eagle::reduce_mean(x, axes, keepdims);
    case opdefs::OpId::kMax:
      return eagle::reduce_max(x, axes, keepdims);
    case opdefs::OpId::kMin:
      return eagle::reduce_min(x, axes, keepdims);
    case opdefs::OpId::kProd:
      return eagle::reduce_prod(x, axes, keepdims);
    case opdefs::OpId::kAny:
      return eagle::reduce_any(x, axes, keepdims);
    default:
      return eagle::reduce_all(x, axes, keepdims);
  }
}

// Every axis subset of rank 3, keepdims, empty and long axes, for one reduction.
std::vector<Sample> reduction_samples(opdefs::OpId op, DType d) {
  struct Case {
    Shape shape;
    std::vector<std::vector<int>> axes;  // {-99}: Axes() (all); {}: Axes::none()
  };
  std::vector<std::vector<int>> every_subset;
  for (int mask = 0; mask < 8; ++mask) {
    std::vector<int> a;
    for (int i = 0; i < 3; ++i) {
      if (mask & (1 << i)) a.push_back(i);
    }
    every_subset.push_back(a);
  }
  every_subset.push_back({-99});
  every_subset.push_back({-1});
  every_subset.push_back({0, -1});
  const std::vector<Case> cases = {
      {{5, 7, 9}, every_subset},
      {{4, 33, 65}, {{0}, {1}, {2}, {0, 2}, {-99}}},
      {{3, 1, 4097}, {{0}, {2}, {0, 2}, {1}}},
      {{2, 3, 0}, every_subset},
      {{}, {{-99}, {}}},
      {{0}, {{-99}, {0}}},
      {{1}, {{-99}}},
      {{1023}, {{-99}}},
      {{65537}, {{-99}}},
      {{2, 70001}, {{1}, {0}}},
      {{70001, 3}, {{0}}},
      {{257, 1025}, {{0}, {1}}},
  };
  std::vector<Sample> out;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    // Floats in [-1, 1] (sums cancel); integers over their whole range (sums wrap).
    const Tensor x =
        make(d, cases[c].shape, eagle::is_floating(d) ? Domain::kUnit : Domain::kGeneral,
             seed_of(static_cast<int>(op), c, 4));
    for (const auto& list : cases[c].axes) {
      const bool all = list.size() == 1 && list[0] == -99;
      const Axes axes = all ? Axes() : list.empty() ? Axes::none() : Axes(list);
      for (bool keepdims : {false, true}) {
        std::string what = x.shape().to_string() + " axes ";
        if (all) {
          what += "all";
        } else {
          what += "{";
          for (int a : list) what += std::to_string(a) + " ";
          what += "}";
        }
        if (keepdims) what += " keepdims";
        Tol tol = exact();
        if ((op == opdefs::OpId::kSum || op == opdefs::OpId::kMean) && eagle::is_floating(d)) {
          const Tensor magnitudes = reduce(op, abs64(x), axes, keepdims);
          const std::int64_t outs = magnitudes.num_elements();
          const std::int64_t n = outs == 0 ? 0 : x.num_elements() / outs;
          tol = sum_tol(d, n, magnitudes);
        } else if (op == opdefs::OpId::kProd && eagle::is_floating(d)) {
          // Each of the n - 1 products rounds once, whatever their order (a GPU multiplies in
          // a tree): at most (n - 1) u relative, where nothing underflows.
          const std::int64_t outs =
              x.num_elements() == 0 ? 0 : reduce(op, x, axes, keepdims).num_elements();
          const std::int64_t n = outs == 0 ? 0 : x.num_elements() / outs;
          tol = float_tol(d);
          tol.rel += static_cast<double>(n) * accumulation_eps(d);
        }
        out.push_back({what,
                       {x},
                       [op, axes, keepdims](V in) { return reduce(op, in[0], axes, keepdims); },
                       tol});
      }
    }
  }
  return out;
}

OpInfo reduction_info(opdefs::OpId op) {
  OpInfo e{op};
  e.call = [op](V x) { return reduce(op, x[0], Axes(), false); };
  e.samples = [op](DType d) {
    return eagle::with_device("/CPU:0", [&] { return reduction_samples(op, d); });
  };
  return e;
}

std::vector<ErrorCase> bad_axes(opdefs::OpId op) {
  const std::string name = str(op);
  const auto call = [op](Tensor x, Axes axes, bool keepdims = false) {
    return [op, x, axes, keepdims] { reduce(op, x, axes, keepdims); };
  };
  const Tensor x = eagle::zeros({2, 3});
  std::vector<ErrorCase> out = {
      raises<InvalidArgumentError>(
          call(x, 2),
          "Invalid reduction dimension (2 for input with 2 dimension(s) [Op:" + name + "]"),
      raises<InvalidArgumentError>(call(x, -3),
                                   "Invalid reduction dimension (-3 for input with 2 "
                                   "dimension(s) [Op:" +
                                       name + "]"),
      raises<InvalidArgumentError>(call(x, {0, 5}),
                                   "Invalid reduction dimension (5 for input with 2 "
                                   "dimension(s) [Op:" +
                                       name + "]"),
      raises<InvalidArgumentError>(call(eagle::constant(1.0), 0),
                                   "Invalid reduction dimension (0 for input with 0 dimension(s) "
                                   "[Op:" +
                                       name + "]"),
      raises<InvalidArgumentError>(call(x, {0, 0}),
                                   "Invalid reduction arguments: Axes contains duplicate "
                                   "dimension: 0 [Op:" +
                                       name + "]"),
      raises<InvalidArgumentError>(call(x, {1, -1}, true),
                                   "Invalid reduction arguments: Axes contains duplicate "
                                   "dimension: 1 [Op:" +
                                       name + "]"),
      raises<InvalidArgumentError>(call(x, {-2, 1, 0}),
                                   "Invalid reduction arguments: Axes contains duplicate "
                                   "dimension: 0 [Op:" +
                                       name + "]"),
      raises<InvalidArgumentError>(call(x, std::vector<int>{1, 1}),
                                   "Invalid reduction arguments: Axes contains duplicate "
                                   "dimension: 1 [Op:" +
                                       name + "]"),
  };
  if (op != opdefs::OpId::kAny && op != opdefs::OpId::kAll && op != opdefs::OpId::kProd) {
    out.push_back(raises<InvalidArgumentError>(call(eagle::constant({true, false}), Axes()),
                                               not_allowed(name, "bool", kNumberTypesTexts)));
  }
  return out;
}

std::vector<OpInfo> reduction_infos() {
  std::vector<OpInfo> out;
  for (opdefs::OpId op :
       {opdefs::OpId::kSum, opdefs::OpId::kMean, opdefs::OpId::kMax, opdefs::OpId::kMin,
        opdefs::OpId::kProd, opdefs::OpId::kAny, opdefs::OpId::kAll}) {
    out.push_back(reduction_info(op));
    if (op != opdefs::OpId::kAny && op != opdefs::OpId::kAll) {
      out.back().errors = [op] { return bad_axes(op); };
    }
  }
  const Shape s34{3, 4};
  out[0].gradients = {
      {"reduce_sum axis", {{Shape{2, 3, 4}}}, [](V x) { return eagle::reduce_sum(x[0], 1); }},
      {"reduce_sum all", {{Shape{2, 3}}}, [](V x) { return eagle::reduce_sum(x[0]); }}};
  out[1].gradients = {{"reduce_mean keepdims", {{Shape{2, 3, 4}}}, [](V x) {
                         return eagle::reduce_mean(x[0], {0, 2}, true);
                       }}};
  out[2].gradients = {{"reduce_max", {{s34, GradDomain::kDistinct}}, [](V x) {
                         return eagle::reduce_max(x[0], 1);
                       }}};
  out[3].gradients = {{"reduce_min", {{s34, GradDomain::kDistinct}}, [](V x) {
                         return eagle::reduce_min(x[0], 0);
                       }}};
  out[4].gradients = {{"reduce_prod", {{s34}}, [](V x) { return eagle::reduce_prod(x[0], 1); }}};
  return out;
}

// ---- ArgMax, ArgMin -----------------------------------------------------------------------------

OpInfo arg_info(opdefs::OpId op) {
  OpInfo e{op};
  const bool max = op == opdefs::OpId::kArgMax;
  e.call = [max](V x) { return max ? eagle::argmax(x[0]) : eagle::argmin(x[0]); };
  e.tolerance = exact_tol;
  e.samples = [max](DType d) {
    struct Case {
      Shape shape;
      std::vector<int> axes;
    };
    const std::vector<Case> cases = {{{5, 7, 9}, {0, 1, 2, -1}}, {{4097}, {0}},   {{65537}, {0}},
                                     {{33, 1025}, {0, 1}},       {{1}, {0}},      {{3, 0}, {0}},
                                     {{1023, 3}, {0, 1}},        {{2, 1, 3}, {1}}};
    std::vector<Sample> out;
    const auto add = [&](const Tensor& x, int axis, const std::string& what) {
      out.push_back({what + " axis " + std::to_string(axis), {x}, [max, axis](V in) {
                       return max ? eagle::argmax(in[0], axis) : eagle::argmin(in[0], axis);
                     }});
    };
    for (std::size_t c = 0; c < cases.size(); ++c) {
      // Whole numbers in [-2, 2]: every row has ties for the maximum (the first wins).
      const Tensor x = make(d, cases[c].shape, Domain::kSmall, seed_of(c, 5));
      for (int axis : cases[c].axes) add(x, axis, x.shape().to_string());
    }
    if (eagle::is_floating(d)) {  // random values: no ties, max anywhere (also the tail)
      const Tensor x = make(d, {7, 1023}, Domain::kWide, 6);
      for (int axis : {0, 1}) add(x, axis, "[7,1023] random");
    }
    return out;
  };
  if (max) {
    e.errors = [] {
      const Tensor x = eagle::zeros({2, 3});
      return std::vector<ErrorCase>{
          raises<InvalidArgumentError>(
              [x] { eagle::argmax(x, 2); },
              "Expected dimension in the range [-2, 2), but got 2 [Op:ArgMax]"),
          raises<InvalidArgumentError>(
              [x] { eagle::argmax(x, -3); },
              "Expected dimension in the range [-2, 2), but got -3 [Op:ArgMax]"),
          raises<InvalidArgumentError>(
              [] { eagle::argmax(eagle::constant(1.0)); },
              "Expected dimension in the range [0, 0), but got 0 [Op:ArgMax]"),
          raises<InvalidArgumentError>(
              [] {
                eagle::argmax(eagle::zeros({2, 0}), 1);
              },
              "Reduction axis 1 is empty in shape [2,0] [Op:ArgMax]"),
          raises<InvalidArgumentError>([] { eagle::argmax(eagle::zeros({0}), -1); },
                                       "Reduction axis 0 is empty in shape [0] [Op:ArgMax]"),
      };
    };
  }
  return e;
}

// ---- Cumsum, Cumprod ----------------------------------------------------------------------------

OpInfo scan_info(opdefs::OpId op) {
  OpInfo e{op};
  const bool sum = op == opdefs::OpId::kCumsum;
  const auto scan = [sum](const Tensor& x, int axis, bool exclusive, bool reverse) {
    return sum ? eagle::cumsum(x, axis, exclusive, reverse)
               : eagle::cumprod(x, axis, exclusive, reverse);
  };
  e.call = [scan](V x) { return scan(x[0], 0, false, false); };
  e.tolerance = exact_tol;
  e.samples = [scan](DType d) {
    std::vector<Sample> out;
    const Tensor x = make(d, {3, 4, 5}, Domain::kUnit, 41, true);
    for (int axis : {0, 1, 2, -1}) {
      for (int flags = 0; flags < 4; ++flags) {
        out.push_back({"[3,4,5] axis " + std::to_string(axis) + " flags " + std::to_string(flags),
                       {x},
                       [scan, axis, flags](V in) {
                         return scan(in[0], axis, (flags & 1) != 0, (flags & 2) != 0);
                       }});
      }
    }
    out.push_back({"[2,4099] axis 1", {make(d, {2, 4099}, Domain::kUnit, 42)}, [scan](V in) {
                     return scan(in[0], 1, false, false);
                   }});
    out.push_back({"[0,3]", {make(d, {0, 3}, Domain::kUnit, 43)}, [scan](V in) {
                     return scan(in[0], 1, true, true);
                   }});
    return out;
  };
  const Shape s34{3, 4};
  if (sum) {
    e.gradients = {{"cumsum", {{s34}}, [](V x) { return eagle::cumsum(x[0], 1); }},
                   {"cumsum exclusive reverse", {{s34}}, [](V x) {
                      return eagle::cumsum(x[0], 0, true, true);
                    }}};
  } else {
    e.gradients = {{"cumprod", {{Shape{2, 4}, GradDomain::kAwayFromZero}}, [](V x) {
                      return eagle::cumprod(x[0], 1);
                    }}};
  }
  return e;
}

// ---- TopKV2 (top_k, sort, argsort) --------------------------------------------------------------

OpInfo top_k_info() {
  OpInfo e{opdefs::OpId::kTopKV2};
  e.call = [](V x) { return eagle::top_k(x[0], 1).values; };
  e.tolerance = exact_tol;
  e.samples = [](DType d) {
    std::vector<Sample> out;
    const Tensor ties = make(d, {7, 33}, Domain::kSmall, 51, true);
    const Tensor general = make(d, {3, 1030}, Domain::kGeneral, 52, true);
    for (const Tensor& x : {ties, general}) {
      for (int k : {0, 1, 5, 33}) {
        for (bool sorted : {true, false}) {
          const std::string what =
              x.shape().to_string() + " k " + std::to_string(k) + (sorted ? "" : " unsorted");
          out.push_back({what + " values", {x}, [k, sorted](V in) {
                           return eagle::top_k(in[0], k, sorted).values;
                         }});
          out.push_back({what + " indices", {x}, [k, sorted](V in) {
                           return eagle::top_k(in[0], k, sorted).indices;
                         }});
        }
      }
    }
    out.push_back({"[4,0] k 0", {make(d, {4, 0}, Domain::kGeneral, 53)}, [](V in) {
                     return eagle::top_k(in[0], 0).values;
                   }});
    for (int axis : {0, 1}) {
      for (const std::string direction : {"ASCENDING", "DESCENDING"}) {
        out.push_back({"sort axis " + std::to_string(axis) + " " + direction,
                       {ties},
                       [axis, direction](V in) { return eagle::sort(in[0], axis, direction); }});
        out.push_back({"argsort axis " + std::to_string(axis) + " " + direction,
                       {general},
                       [axis, direction](V in) { return eagle::argsort(in[0], axis, direction); }});
      }
    }
    return out;
  };
  e.gradients = {{"top_k", {{Shape{2, 5}, GradDomain::kDistinct}}, [](V x) {
                    return eagle::top_k(x[0], 2).values;
                  }}};
  return e;
}

}  // namespace

std::vector<OpInfo> reduction_op_infos() {
  std::vector<OpInfo> out = reduction_infos();
  out.push_back(arg_info(opdefs::OpId::kArgMax));
  out.push_back(arg_info(opdefs::OpId::kArgMin));
  out.push_back(scan_info(opdefs::OpId::kCumsum));
  out.push_back(scan_info(opdefs::OpId::kCumprod));
  out.push_back(top_k_info());
  return out;
}

}  // namespace eagle_test
