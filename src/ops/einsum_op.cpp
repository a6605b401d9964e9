// einsum (Einsum): tf.einsum's Python checks of the equation, then the checks and the plan of
// TensorFlow's EinsumOp (einsum_op_impl.h): labels are typed batch / free / contract / reduce,
// each operand is brought to [broadcast, batch, free, contract] order (summing its reduce labels
// and taking diagonals of repeated ones), the two are multiplied as one batched matmul, and the
// product is permuted to the output. Kernels in cpu/index_kernels.cpp,
// backends/cuda/einsum_kernel.cpp.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "eagle/ops.hpp"
#include "opdefs/attrs.hpp"
#include "ops/op_support.hpp"

namespace eagle {

namespace {

constexpr int kEllipsis = -1;

// What tf.einsum's Python layer (_einsum_v2_parse_and_resolve_equation) makes of the equation:
// the input and output subscripts, "..." as kEllipsis, the implicit output made explicit.
struct Subscripts {
  std::vector<std::string> inputs;  // "..." written as '0'
  std::string output;
};

Subscripts parse_equation(const std::string& equation, std::size_t num_inputs) {
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq.push_back(c);
  }
  const bool ellipsis = equation.find("...") != std::string::npos;
  if (ellipsis) {
    if (eq.find('0') != std::string::npos) {
      throw InvalidArgumentError(fmt::format("Invalid character \"0\" in equation: {}.", equation));
    }
    for (std::size_t at; (at = eq.find("...")) != std::string::npos;) eq.replace(at, 3, "0");
  }
  const auto is_label = [ellipsis](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (ellipsis && c == '0');
  };
  const std::size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  bool ok = std::all_of(lhs.begin(), lhs.end(), [&](char c) { return is_label(c) || c == ','; });
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    ok = ok && std::all_of(rhs.begin(), rhs.end(), is_label);
  }
  if (!ok) throw InvalidArgumentError(fmt::format("Subscripts have incorrect format: {}", eq));
  Subscripts s;
  for (std::size_t from = 0;;) {
    const std::size_t comma = lhs.find(',', from);
    s.inputs.push_back(lhs.substr(from, comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (s.inputs.size() != num_inputs) {
    throw InvalidArgumentError(fmt::format("Got {} inputs for equation \"{}\", expecting {}",
                                           num_inputs, equation, s.inputs.size()));
  }
  if (arrow == std::string::npos) {  // the labels seen once, sorted ('0', the ellipsis, first)
    std::map<char, int> counts;
    for (char c : lhs) {
      if (c != ',') ++counts[c];
    }
    for (const auto& [c, n] : counts) {
      if (n == 1) s.output.push_back(c);
    }
  } else {
    s.output = eq.substr(arrow + 2);
  }
  if (std::set<char>(s.output.begin(), s.output.end()).size() != s.output.size()) {
    throw InvalidArgumentError(
        fmt::format("Output subscripts contain a label appearing more than once: {}", equation));
  }
  for (char c : s.output) {
    if (c != '0' && lhs.find(c) == std::string::npos) {
      throw InvalidArgumentError(fmt::format(
          "Output subscripts contain the label {} not present in the input subscripts.", c));
    }
  }
  return s;
}

[[noreturn]] void fail(const std::string& message) {
  ops::throw_invalid(opdefs::OpId::kEinsum, message);
}

// TensorFlow's EinsumDimensionType.
enum Type { kBroadcasting = 0, kBatch = 1, kFree = 2, kContract = 3, kReduce = 4 };

std::vector<std::int64_t> row_major_strides(const Shape& s) {
  std::vector<std::int64_t> strides(static_cast<std::size_t>(s.rank()));
  std::int64_t stride = 1;
  for (int i = s.rank() - 1; i >= 0; --i) {
    strides[static_cast<std::size_t>(i)] = stride;
    stride *= s[i];
  }
  return strides;
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& inputs) {
  const Subscripts subs = parse_equation(equation, inputs.size());
  const int num_inputs = static_cast<int>(inputs.size());
  ops::check_same_dtype(opdefs::OpId::kEinsum, inputs.data(), num_inputs);
  if (num_inputs > 2) {
    fail(fmt::format("eagle's einsum takes one or two operands, got {} (contract them pairwise)",
                     num_inputs));
  }

  // Named labels get ids in order of first appearance; broadcasting labels come after them, one
  // per broadcast position counted from the right end (so operands of different broadcast rank
  // line up as matmul broadcasting does).
  std::map<char, int> ids;
  for (const std::string& in : subs.inputs) {
    for (char c : in) {
      if (c != '0' && !ids.count(c)) ids.emplace(c, static_cast<int>(ids.size()));
    }
  }
  const int num_named = static_cast<int>(ids.size());
  std::vector<std::vector<int>> labels(num_inputs);  // named ids and kEllipsis, as written
  std::vector<std::vector<int>> counts(num_inputs, std::vector<int>(num_named, 0));
  std::vector<int> output_count(num_named, 0);
  for (int i = 0; i < num_inputs; ++i) {
    for (char c : subs.inputs[i]) {
      labels[i].push_back(c == '0' ? kEllipsis : ids.at(c));
      if (c != '0') ++counts[i][ids.at(c)];
    }
  }
  bool output_has_ellipsis = false;
  for (char c : subs.output) {
    if (c == '0') {
      output_has_ellipsis = true;
    } else {
      ++output_count[ids.at(c)];
    }
  }
  std::vector<Type> types(num_named);
  for (int l = 0; l < num_named; ++l) {
    const bool removed = output_count[l] == 0;
    const bool unique = num_inputs == 1 || counts[0][l] == 0 || counts[1][l] == 0;
    types[l] = !removed ? (unique ? kFree : kBatch) : (unique ? kReduce : kContract);
  }

  // ProcessDimensions: ranks, label sizes (the first operand to show a label fixes its size) and
  // the broadcast shape of each operand.
  std::vector<std::int64_t> label_dim(num_named, -1);
  std::vector<Shape> bcast(num_inputs);
  std::vector<std::vector<int>> axis_label(num_inputs);  // per axis: named id, or -(k+2) for the
                                                         // k-th broadcast axis from the right
  int max_bcast = 0;
  for (int i = 0; i < num_inputs; ++i) {
    const Shape& s = inputs[i].shape();
    const int n = static_cast<int>(labels[i].size());
    const int ellipses =
        static_cast<int>(std::count(labels[i].begin(), labels[i].end(), kEllipsis));
    if (ellipses == 0 && s.rank() != n) {
      fail(fmt::format("Expected input {} to have rank {} but got: {}", i, n, s.rank()));
    }
    if (ellipses > 0 && s.rank() + 1 < n) {
      fail(fmt::format("Expected input {} to have rank at least {} but got: {}", i, n - 1,
                       s.rank()));
    }
    if (ellipses > 1) fail(fmt::format("Input {} subscripts hold more than one ellipsis", i));
    const int nb = ellipses ? s.rank() - n + 1 : 0;
    int axis = 0;
    for (int label : labels[i]) {
      if (label == kEllipsis) {
        for (int k = 0; k < nb; ++k, ++axis) {
          bcast[i].push_back(s[axis]);
          axis_label[i].push_back(-(nb - k - 1) - 2);
        }
        continue;
      }
      if (label_dim[label] >= 0 && label_dim[label] != s[axis]) {
        fail(
            fmt::format("Expected dimension {} at axis {} of the input shaped {} but got "
                        "dimension {}",
                        label_dim[label], axis, s.to_string(), s[axis]));
      }
      label_dim[label] = s[axis];
      axis_label[i].push_back(label);
      ++axis;
    }
    max_bcast = std::max(max_bcast, nb);
  }
  if (!output_has_ellipsis && max_bcast > 0) {
    fail(
        fmt::format("Output contains {} broadcasting dimension(s) but no ellipsis (...) was "
                    "found in the output subscripts.",
                    max_bcast));
  }
  // The broadcast shape of the result, right-aligned.
  Shape bcast_out;
  for (int k = max_bcast - 1; k >= 0; --k) {  // k: position from the right
    std::int64_t d = 1;
    for (int i = 0; i < num_inputs; ++i) {
      const int at = bcast[i].rank() - 1 - k;
      if (at >= 0 && bcast[i][at] != 1) d = bcast[i][at];
    }
    bcast_out.push_back(d);
  }
  if (num_inputs == 2) {
    bool valid = true;
    for (int k = 0; k < std::min(bcast[0].rank(), bcast[1].rank()); ++k) {
      const std::int64_t a = bcast[0][bcast[0].rank() - 1 - k];
      const std::int64_t b = bcast[1][bcast[1].rank() - 1 - k];
      valid = valid && (a == b || a == 1 || b == 1);
    }
    if (!valid) {
      // TensorFlow reports the operands as reshaped for its matmul: [broadcast..., batch...,
      // free, contract], or [..., contract, free] when the operand's labels were already in that
      // order (ShouldSwapFreeAndContract).
      std::string shapes[2];
      for (int i = 0; i < 2; ++i) {
        Shape r = bcast[i];
        for (int l = 0; l < num_named; ++l) {
          if (types[l] == kBatch) r.push_back(label_dim[l]);
        }
        std::int64_t free = 1, contract = 1;
        for (int l = 0; l < num_named; ++l) {
          if (counts[i][l] == 0) continue;
          if (types[l] == kFree) free *= label_dim[l];
          if (types[l] == kContract) contract *= label_dim[l];
        }
        const int remap[5] = {0, 1, 3, 2, 4};
        bool swap = true;
        const auto& al = axis_label[i];
        for (std::size_t j = 0; j + 1 < al.size(); ++j) {
          // TensorFlow numbers broadcast labels after the named ones, left to right.
          const auto id = [&](int l) { return l >= 0 ? l : num_named + 1000 - (-l - 2); };
          const int ta = al[j] >= 0 ? remap[types[al[j]]] : 0;
          const int tb = al[j + 1] >= 0 ? remap[types[al[j + 1]]] : 0;
          if (ta > tb || (ta == tb && id(al[j]) > id(al[j + 1]))) swap = false;
        }
        r.push_back(swap ? contract : free);
        r.push_back(swap ? free : contract);
        shapes[i] = r.to_string();
      }
      fail(fmt::format("Invalid broadcasting dimensions: {} vs. {}", shapes[0], shapes[1]));
    }
  }

  // The output's labels (broadcast positions expanded) and shape.
  std::vector<int> out_labels;
  Shape out_shape;
  for (char c : subs.output) {
    if (c == '0') {
      for (int k = max_bcast - 1; k >= 0; --k) {
        out_labels.push_back(-k - 2);
        out_shape.push_back(bcast_out[max_bcast - 1 - k]);
      }
    } else {
      out_labels.push_back(ids.at(c));
      out_shape.push_back(label_dim[ids.at(c)]);
    }
  }
  if (out_shape.rank() > Shape::kMaxRank) fail("Output rank exceeds the maximum of 8");

  // A strided view of operand i over `order` (labels), repeated labels folded into diagonals.
  const auto view = [&](int i, const std::vector<int>& order, const std::vector<int>& reduce) {
    const std::vector<std::int64_t> strides = row_major_strides(inputs[i].shape());
    opdefs::EinsumOperand v;
    const auto add = [&](int label) {
      std::int64_t stride = 0, dim = 1;
      for (std::size_t a = 0; a < axis_label[i].size(); ++a) {
        if (axis_label[i][a] == label) {
          stride += strides[a];
          dim = inputs[i].shape()[static_cast<int>(a)];
        }
      }
      v.dims.push_back(dim);
      v.strides.push_back(stride);
      return dim;
    };
    for (int l : order) add(l);
    for (int l : reduce) v.reduce *= add(l);
    // No copy when the view is the operand itself: its labels in order, each once, none summed.
    v.copy = !(reduce.empty() && order == axis_label[i]);
    return v;
  };
  const auto labels_of = [&](int i, Type type) {
    std::vector<int> out;
    for (int l : axis_label[i]) {
      if (l >= 0 && types[l] == type && std::find(out.begin(), out.end(), l) == out.end()) {
        out.push_back(l);
      }
    }
    return out;
  };
  const auto dims_of = [&](const std::vector<int>& ls) {
    std::int64_t p = 1;
    for (int l : ls) p *= l >= 0 ? label_dim[l] : bcast_out[max_bcast + l + 1];
    return p;
  };

  opdefs::EinsumAttrs attrs;
  attrs.equation = equation;
  attrs.input_subscripts = subs.inputs;
  attrs.output_subscripts = subs.output;
  if (num_inputs == 1) {
    attrs.operands.push_back(view(0, out_labels, labels_of(0, kReduce)));
  } else {
    std::vector<int> bl[2];  // each operand's broadcast labels
    for (int i = 0; i < 2; ++i) {
      for (int l : axis_label[i]) {
        if (l < 0) bl[i].push_back(l);
      }
    }
    const std::vector<int> batch = labels_of(0, kBatch);
    const std::vector<int> contract = labels_of(0, kContract);
    const std::vector<int> free[2] = {labels_of(0, kFree), labels_of(1, kFree)};
    const std::int64_t m = dims_of(free[0]), n = dims_of(free[1]), k = dims_of(contract);
    const auto cat = [](std::initializer_list<const std::vector<int>*> parts) {
      std::vector<int> out;
      for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
      return out;
    };
    bool transpose[2] = {false, false};
    for (int i = 0; i < 2; ++i) {
      const std::vector<int>& f = free[i];
      // Operand 0 is [.., m, k], operand 1 [.., k, n]; either may come transposed for free.
      const std::vector<int> plain =
          i == 0 ? cat({&bl[i], &batch, &f, &contract}) : cat({&bl[i], &batch, &contract, &f});
      const std::vector<int> swapped =
          i == 0 ? cat({&bl[i], &batch, &contract, &f}) : cat({&bl[i], &batch, &f, &contract});
      const std::vector<int> reduce = labels_of(i, kReduce);
      opdefs::EinsumOperand v = view(i, plain, reduce);
      if (v.copy && reduce.empty() && swapped == axis_label[i]) {
        v = view(i, swapped, reduce);
        transpose[i] = true;
      }
      attrs.operands.push_back(std::move(v));
    }
    const auto matrix_shape = [&](int i, std::int64_t rows, std::int64_t cols) {
      std::vector<std::int64_t> s(static_cast<std::size_t>(max_bcast - bcast[i].rank()), 1);
      for (std::int64_t d : bcast[i]) s.push_back(d);
      for (int l : batch) s.push_back(label_dim[l]);
      s.push_back(transpose[i] ? cols : rows);
      s.push_back(transpose[i] ? rows : cols);
      return s;
    };
    attrs.a_shape = matrix_shape(0, m, k);
    attrs.b_shape = matrix_shape(1, k, n);
    attrs.transpose_a = transpose[0];
    attrs.transpose_b = transpose[1];
    attrs.product_shape = bcast_out.to_vector();
    for (int l : batch) attrs.product_shape.push_back(label_dim[l]);
    attrs.product_shape.push_back(m);
    attrs.product_shape.push_back(n);
    // The product's labels, row-major: [broadcast..., batch..., free 0..., free 1...].
    std::vector<int> all_bcast;
    for (int kk = max_bcast - 1; kk >= 0; --kk) all_bcast.push_back(-kk - 2);
    const std::vector<int> product = cat({&all_bcast, &batch, &free[0], &free[1]});
    std::vector<std::int64_t> product_dims;
    for (int l : product) product_dims.push_back(dims_of({l}));
    const std::vector<std::int64_t> strides =
        row_major_strides(product_dims.empty() ? Shape{} : Shape(product_dims));
    for (int l : out_labels) {
      const auto at = std::find(product.begin(), product.end(), l) - product.begin();
      attrs.out_dims.push_back(product_dims[static_cast<std::size_t>(at)]);
      attrs.out_strides.push_back(strides[static_cast<std::size_t>(at)]);
    }
    attrs.out_copy = out_labels != product;
  }
  return runtime::execute1(opdefs::OpId::kEinsum, inputs[0].dtype(), inputs.data(), num_inputs,
                           out_shape, inputs[0].dtype(), opdefs::OpAttrs{std::move(attrs)});
}

}  // namespace eagle
