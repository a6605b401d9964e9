// OpInfo entries of the ops that move bytes: Reshape, Transpose, ExpandDims, Squeeze, ConcatV2,
// Slice, Tile, Pad, PadV2, MirrorPad, ReverseV2, Split, SplitV, Pack, Unpack
// (Note [OpInfo table]). Every comparison is exact.
#include <limits>

#include "op_info/error_texts.hpp"
#include "op_info/op_info.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

namespace {

using eagle::InvalidArgumentError;
using V = const Inputs&;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

OpInfo exact_info(opdefs::OpId op, Call call) {
  OpInfo e{op};
  e.call = std::move(call);
  e.tolerance = exact_tol;
  return e;
}

std::string dims_str(const std::vector<std::int64_t>& dims) {
  std::string s;
  for (auto n : dims) s += " " + std::to_string(n);
  return s;
}

OpInfo reshape_info() {
  OpInfo e = exact_info(opdefs::OpId::kReshape, [](V x) { return eagle::reshape(x[0], {-1}); });
  e.samples = [](DType d) {
    const Tensor x = make(d, {2, 3, 4}, Domain::kGeneral, 21, true);
    std::vector<Sample> out;
    for (const auto& dims :
         std::vector<std::vector<std::int64_t>>{{4, 6}, {24}, {-1, 2}, {2, 3, 4, 1}}) {
      out.push_back({"[2,3,4] ->" + dims_str(dims), {x}, [dims](V in) {
                       return eagle::reshape(in[0], dims);
                     }});
    }
    out.push_back({"[0,3] -> [3,0]", {make(d, {0, 3}, Domain::kGeneral, 22)}, [](V in) {
                     return eagle::reshape(in[0], {3, 0});
                   }});
    out.push_back({"[] -> [1,1]", {make(d, {}, Domain::kGeneral, 23)}, [](V in) {
                     return eagle::reshape(in[0], {1, 1});
                   }});
    return out;
  };
  e.errors = [] {
    const Tensor x = eagle::zeros({2, 3});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [x] {
              eagle::reshape(x, {-1, -1});
            },
            "Only one input size may be -1, not both 0 and 1 [Op:Reshape]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::reshape(x, {2, -2});
            },
            "Size 1 must be non-negative, not -2 [Op:Reshape]"),
        raises<InvalidArgumentError>(
            [x] { eagle::reshape(x, {4}); },
            "Input to reshape is a tensor with 6 values, but the requested shape has 4 "
            "[Op:Reshape]"),
        raises<InvalidArgumentError>(
            [x] { eagle::reshape(x, {}); },
            "Input to reshape is a tensor with 6 values, but the requested shape has 1 "
            "[Op:Reshape]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::reshape(eagle::zeros({0, 3}), {1});
            },
            "Input to reshape is a tensor with 0 values, but the requested shape has 1 "
            "[Op:Reshape]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::reshape(x, {4, -1});
            },
            "Input to reshape is a tensor with 6 values, but the requested shape requires a "
            "multiple of 4 [Op:Reshape]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::reshape(eagle::ones({1}), {1, 1, 1, 1, 1, 1, 1, 1, 1});
            },
            "Shape rank exceeds the maximum of 8 [Op:Reshape]"),
        // A requested shape whose element count overflows int64 (here it would wrap to 6).
        raises<InvalidArgumentError>(
            [x] {
              eagle::reshape(x, {6, 4294967297, 4294967295, 4294967297, 4294967295});
            },
            "Encountered overflow when multiplying 25769803782 with 4294967295, result: -1 "
            "[Op:Reshape]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::reshape(x, {-1, std::int64_t{1} << 62, 4});
            },
            "Encountered overflow when multiplying 4611686018427387904 with 4, result: -1 "
            "[Op:Reshape]"),
    };
  };
  e.gradients = {{"reshape", {{Shape{2, 3}}}, [](V x) { return eagle::reshape(x[0], {3, 2}); }}};
  return e;
}

OpInfo transpose_info() {
  OpInfo e = exact_info(opdefs::OpId::kTranspose, [](V x) { return eagle::transpose(x[0]); });
  e.samples = [](DType d) {
    struct Case {
      Shape shape;
      std::vector<std::vector<int>> perms;
    };
    const std::vector<Case> cases = {
        {{7, 33}, {{1, 0}, {0, 1}}},
        {{1025, 257}, {{1, 0}}},
        {{5, 7, 9}, {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}},
        {{3, 4, 5, 6}, {{0, 2, 1, 3}, {3, 2, 1, 0}, {1, 0, 3, 2}, {0, 1, 3, 2}, {2, 3, 0, 1}}},
        {{2, 1, 33, 3}, {{3, 2, 1, 0}, {2, 0, 3, 1}}},
        {{0, 3, 4}, {{2, 0, 1}}},
        {{65537}, {{0}}},
        {{2, 3, 4, 5, 6}, {{4, 3, 2, 1, 0}, {0, 2, 4, 1, 3}}}};
    std::vector<Sample> out;
    out.push_back({"default perm reverses", {make(d, {2, 3, 4}, Domain::kGeneral, 21, true)}});
    for (std::size_t c = 0; c < cases.size(); ++c) {
      const Tensor t = make(d, cases[c].shape, Domain::kGeneral, seed_of(c, 25), true);
      for (const auto& perm : cases[c].perms) {
        std::string what = t.shape().to_string() + " perm";
        for (int p : perm) what += " " + std::to_string(p);
        out.push_back({what, {t}, [perm](V in) { return eagle::transpose(in[0], perm); }});
      }
    }
    return out;
  };
  e.errors = [] {
    const Tensor x = eagle::zeros({2, 3});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [x] {
              eagle::transpose(x, {0, 0});
            },
            "1 is missing from {0,0}. [Op:Transpose]"),
        raises<InvalidArgumentError>(
            [x] { eagle::transpose(x, {0}); },
            "transpose expects a vector of size 2. But input(1) is a vector of size 1 "
            "[Op:Transpose]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::transpose(x, {0, 2});
            },
            "2 is out of range [0 .. 2) [Op:Transpose]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::transpose(x, {-3, 0});
            },
            "-1 is out of range [0 .. 2) [Op:Transpose]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::transpose(x, {1, 0, 2});
            },
            "transpose expects a vector of size 2. But input(1) is a vector of size 3 "
            "[Op:Transpose]"),
        raises<InvalidArgumentError>(
            [] { eagle::transpose(eagle::constant(1.0), {0}); },
            "transpose expects a vector of size 0. But input(1) is a vector of size 1 "
            "[Op:Transpose]"),
    };
  };
  e.gradients = {{"transpose", {{Shape{2, 3, 4}}}, [](V x) {
                    return eagle::transpose(x[0], {2, 0, 1});
                  }}};
  return e;
}

OpInfo expand_dims_info() {
  OpInfo e = exact_info(opdefs::OpId::kExpandDims, [](V x) { return eagle::expand_dims(x[0], 0); });
  e.samples = [](DType d) {
    const Tensor x = make(d, {2, 3, 4}, Domain::kGeneral, 21, true);
    std::vector<Sample> out;
    for (int axis : {0, 1, 3, -1}) {
      out.push_back({"axis " + std::to_string(axis), {x}, [axis](V in) {
                       return eagle::expand_dims(in[0], axis);
                     }});
    }
    out.push_back({"scalar", {make(d, {}, Domain::kGeneral, 23)}});
    return out;
  };
  e.errors = [] {
    const Tensor x = eagle::zeros({2, 3});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [x] { eagle::expand_dims(x, 3); },
            "Tried to expand dim index 3 for tensor with 2 dimensions. [Op:ExpandDims]"),
        raises<InvalidArgumentError>(
            [x] { eagle::expand_dims(x, -4); },
            "Tried to expand dim index -4 for tensor with 2 dimensions. [Op:ExpandDims]"),
        raises<InvalidArgumentError>(
            [] { eagle::expand_dims(eagle::constant(1.0), 1); },
            "Tried to expand dim index 1 for tensor with 0 dimensions. [Op:ExpandDims]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::expand_dims(eagle::zeros({1, 1, 1, 1, 1, 1, 1, 1}), 0);
            },
            "Shape rank exceeds the maximum of 8 [Op:ExpandDims]"),
    };
  };
  e.gradients = {{"expand_dims", {{Shape{2, 3}}}, [](V x) { return eagle::expand_dims(x[0], 1); }}};
  return e;
}

OpInfo squeeze_info() {
  OpInfo e = exact_info(opdefs::OpId::kSqueeze, [](V x) { return eagle::squeeze(x[0]); });
  e.samples = [](DType d) {
    const Tensor ones = make(d, {1, 3, 1, 4}, Domain::kGeneral, 24, true);
    std::vector<Sample> out;
    for (const auto& axes : std::vector<std::vector<int>>{{}, {0}, {2}, {-2}, {0, 2}}) {
      out.push_back({"[1,3,1,4] axes " + std::to_string(axes.size()), {ones}, [axes](V in) {
                       return eagle::squeeze(in[0], axes);
                     }});
    }
    return out;
  };
  e.errors = [] {
    const Tensor y = eagle::zeros({2, 1, 3});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [y] { eagle::squeeze(y, {0}); },
            "Can not squeeze dim[0], expected a dimension of 1, got 2 [Op:Squeeze]"),
        raises<InvalidArgumentError>(
            [y] {
              eagle::squeeze(y, {1, -1});
            },
            "Can not squeeze dim[2], expected a dimension of 1, got 3 [Op:Squeeze]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::squeeze(eagle::zeros({0, 1}), {0});
            },
            "Can not squeeze dim[0], expected a dimension of 1, got 0 [Op:Squeeze]"),
        raises<InvalidArgumentError>(
            [y] { eagle::squeeze(y, {3}); },
            "Tried to squeeze dim index 3 for tensor with 3 dimensions. [Op:Squeeze]"),
        raises<InvalidArgumentError>(
            [y] { eagle::squeeze(y, {-4}); },
            "Tried to squeeze dim index -4 for tensor with 3 dimensions. [Op:Squeeze]"),
        raises<InvalidArgumentError>(
            [] { eagle::squeeze(eagle::constant(1.0), {0}); },
            "Tried to squeeze dim index 0 for tensor with 0 dimensions. [Op:Squeeze]"),
    };
  };
  e.gradients = {{"squeeze", {{Shape{2, 1, 3}}}, e.call}};
  return e;
}

OpInfo concat_info() {
  OpInfo e = exact_info(opdefs::OpId::kConcatV2, [](V x) { return eagle::concat(x, 0); });
  e.samples = [](DType d) {
    std::vector<Sample> out;
    // 1..5 inputs along each axis of a rank-3 tensor, sizes along the axis 0..5.
    for (int axis = 0; axis < 3; ++axis) {
      for (int count = 1; count <= 5; ++count) {
        Inputs parts;
        for (int i = 0; i < count; ++i) {
          std::vector<std::int64_t> dims = {3, 4, 5};
          dims[static_cast<std::size_t>(axis)] = (i * 2 + axis) % 6;  // includes empty parts
          parts.push_back(make(d, Shape(dims), Domain::kGeneral, seed_of(axis, count, i)));
        }
        for (int a : {axis, axis - 3}) {
          out.push_back({std::to_string(count) + " parts on axis " + std::to_string(a), parts,
                         [a](V in) { return eagle::concat(in, a); }});
        }
      }
    }
    out.push_back(
        {"vectors of 0, 1, 33 and 1023",
         {make(d, {0}, Domain::kGeneral, 1), make(d, {1}, Domain::kGeneral, 2),
          make(d, {33}, Domain::kGeneral, 3), make(d, {1023}, Domain::kGeneral, 4, true)}});
    const Tensor empty = make(d, {0, 3}, Domain::kGeneral, 22);
    out.push_back({"only empty parts", {empty, empty}, [](V in) { return eagle::concat(in, 1); }});
    return out;
  };
  e.errors = [] {
    const Tensor a = eagle::zeros({2, 3});
    const std::int64_t big = std::int64_t{1} << 62;
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>([] { eagle::concat({}, 0); },
                                     "ConcatOp needs at least one input tensor [Op:ConcatV2]"),
        raises<InvalidArgumentError>(
            [a] {
              eagle::concat({a, eagle::zeros({3})}, 0);
            },
            "ConcatOp : Ranks of all input tensors should match: shape[0] = [2,3] vs. shape[1] = "
            "[3] [Op:ConcatV2]"),
        raises<InvalidArgumentError>(
            [a] {
              eagle::concat({a, eagle::zeros({2, 4})}, 0);
            },
            "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,3] vs. shape[1] "
            "= [2,4] [Op:ConcatV2]"),
        raises<InvalidArgumentError>(
            [a] {
              eagle::concat({a, a, eagle::zeros({3, 3})}, 1);
            },
            "ConcatOp : Dimension 0 in both shapes must be equal: shape[0] = [2,3] vs. shape[2] "
            "= [3,3] [Op:ConcatV2]"),
        raises<InvalidArgumentError>(
            [a] {
              eagle::concat({a, a}, 2);
            },
            "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2 "
            "[Op:ConcatV2]"),
        raises<InvalidArgumentError>(
            [a] {
              eagle::concat({a, a}, -3);
            },
            "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got -3 "
            "[Op:ConcatV2]"),
        raises<InvalidArgumentError>(
            [] {
              eagle::concat({eagle::constant(1.0), eagle::constant(2.0)}, 0);
            },
            "Can't concatenate scalars (use eagle::expand_dims first) [Op:ConcatV2]"),
        raises<InvalidArgumentError>(
            [a] {
              eagle::concat({a, eagle::zeros({2, 3}, DType::kInt32)}, 0);
            },
            "cannot compute ConcatV2 as input #1(zero-based) was expected to be a float tensor "
            "but is a int32 tensor [Op:ConcatV2]"),
        raises<InvalidArgumentError>(
            [a] {
              eagle::concat({a, Tensor()}, 0);
            },
            undefined_input(1, "ConcatV2")),
        // Found by tests/fuzz/shape_ops_fuzzer: inputs without elements may have huge dimensions
        // after their zero, which the output shape may not multiply out unchecked.
        raises<InvalidArgumentError>(
            [big] {
              const Tensor tall = eagle::zeros({1, big, 0});
              eagle::concat({tall, tall}, 0);
            },
            "Shape [2] with dimension 4611686018427387904 has more than 2^63-1 elements "
            "[Op:ConcatV2]"),
    };
  };
  e.gradients = {
      {"concat", {{Shape{2, 3}}, {Shape{2, 1}}}, [](V x) { return eagle::concat(x, 1); }}};
  return e;
}

OpInfo slice_info() {
  OpInfo e = exact_info(opdefs::OpId::kSlice, [](V x) {
    return eagle::slice(x[0], std::vector<std::int64_t>(static_cast<std::size_t>(x[0].rank()), 0),
                        std::vector<std::int64_t>(static_cast<std::size_t>(x[0].rank()), -1));
  });
  e.samples = [](DType d) {
    struct Case {
      Shape shape;
      std::vector<std::int64_t> begin, size;
    };
    const std::vector<Case> cases = {{{4097}, {1}, {4095}},
                                     {{4097}, {0}, {0}},
                                     {{4097}, {4096}, {-1}},
                                     {{5, 7, 9}, {1, 2, 3}, {3, 4, 5}},
                                     {{5, 7, 9}, {0, 0, 0}, {-1, -1, -1}},
                                     {{5, 7, 9}, {4, 6, 8}, {1, 1, 1}},
                                     {{5, 7, 9}, {0, 3, 0}, {5, 0, 9}},
                                     {{5, 7, 9}, {2, 0, 1}, {-1, 7, 7}},
                                     {{3, 4, 5, 6}, {1, 1, 1, 1}, {2, 2, 3, 4}},
                                     {{0, 3}, {0, 1}, {0, 2}},
                                     {{1025, 257}, {3, 5}, {1000, 250}}};
    std::vector<Sample> out;
    for (std::size_t c = 0; c < cases.size(); ++c) {
      const Case& k = cases[c];
      out.push_back(
          {k.shape.to_string() + " begin" + dims_str(k.begin) + " size" + dims_str(k.size),
           {make(d, k.shape, Domain::kGeneral, seed_of(c, 26), true)},
           [k](V in) { return eagle::slice(in[0], k.begin, k.size); }});
    }
    return out;
  };
  e.errors = [] {
    const Tensor x = eagle::zeros({2, 3});
    return std::vector<ErrorCase>{
        raises<InvalidArgumentError>(
            [x] {
              eagle::slice(x, {0}, {1, 1});
            },
            "Expected begin and size arguments to be 1-D tensors of size 2, but got shapes [1] "
            "and [2] instead. [Op:Slice]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::slice(x, {0, 0}, {1});
            },
            "Expected begin and size arguments to be 1-D tensors of size 2, but got shapes [2] "
            "and [1] instead. [Op:Slice]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::slice(x, {0, 4}, {1, -1});
            },
            "Expected begin[1] in [0, 3], but got 4 [Op:Slice]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::slice(x, {-1, 0}, {1, 1});
            },
            "Expected begin[0] in [0, 2], but got -1 [Op:Slice]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::slice(x, {1, 0}, {2, 1});
            },
            "Expected size[0] in [0, 1], but got 2 [Op:Slice]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::slice(x, {0, 1}, {1, 3});
            },
            "Expected size[1] in [0, 2], but got 3 [Op:Slice]"),
        raises<InvalidArgumentError>(
            [x] {
              eagle::slice(x, {0, 1}, {1, -2});
            },
            "Expected size[1] in [0, 2], but got -2 [Op:Slice]"),
        raises<InvalidArgumentError>(
            [] { eagle::slice(eagle::constant(1.0), {0}, {1}); },
            "Expected begin and size arguments to be 1-D tensors of size 0, but got shapes [1] "
            "and [1] instead. [Op:Slice]"),
    };
  };
  e.gradients = {{"slice", {{Shape{3, 4}}}, [](V x) {
                    return eagle::slice(x[0], {1, 1}, {2, -1});
                  }}};
  return e;
}

// ---- Tile, pads, reverse
// -------------------------------------------------------------------------

OpInfo tile_info() {
  OpInfo e = exact_info(opdefs::OpId::kTile, [](V x) {
    return eagle::tile(x[0], std::vector<std::int64_t>(static_cast<std::size_t>(x[0].rank()), 2));
  });
  e.samples = [](DType d) {
    const Tensor x = make(d, {3, 4, 5}, Domain::kGeneral, 31, true);
    std::vector<Sample> out;
    for (const auto& m :
         std::vector<std::vector<std::int64_t>>{{1, 1, 1}, {2, 1, 3}, {1, 3, 1}, {0, 2, 2}}) {
      out.push_back(
          {"[3,4,5] multiples" + dims_str(m), {x}, [m](V in) { return eagle::tile(in[0], m); }});
    }
    out.push_back({"[1030] x 70", {make(d, {1030}, Domain::kGeneral, 35, true)}, [](V in) {
                     return eagle::tile(in[0], {70});
                   }});
    out.push_back({"scalar", {make(d, {}, Domain::kGeneral, 34)}, [](V in) {
                     return eagle::tile(in[0], {});
                   }});
    return out;
  };
  e.gradients = {{"tile", {{Shape{2, 3}}}, [](V x) { return eagle::tile(x[0], {2, 2}); }}};
  return e;
}

const std::vector<std::vector<std::int64_t>> kPaddings() { return {{1, 2}, {3, 0}, {2, 4}}; }

OpInfo pad_info() {
  OpInfo e = exact_info(opdefs::OpId::kPad, [](V x) {
    return eagle::pad(x[0], {{1, 2}, {3, 0}, {2, 4}});
  });
  e.samples = [](DType d) {
    return std::vector<Sample>{{"[3,4,5]", {make(d, {3, 4, 5}, Domain::kGeneral, 31, true)}},
                               {"[0,3]", {make(d, {0, 3}, Domain::kGeneral, 33)}, [](V in) {
                                  return eagle::pad(in[0], {{1, 1}, {0, 2}});
                                }}};
  };
  e.gradients = {{"pad", {{Shape{2, 3}}}, [](V x) { return eagle::pad(x[0], {{1, 0}, {2, 1}}); }}};
  return e;
}

OpInfo pad_v2_info() {
  OpInfo e = exact_info(opdefs::OpId::kPadV2, [](V x) {
    return eagle::pad(x[0], {{1, 2}, {3, 0}, {2, 4}}, "CONSTANT", 1.0);
  });
  e.samples = [](DType d) {
    const Tensor x = make(d, {3, 4, 5}, Domain::kGeneral, 31, true);
    std::vector<Sample> out;
    for (double value : {1.0, -2.5, kNaN, 1e10}) {
      out.push_back({"[3,4,5] with " + show(value), {x}, [value](V in) {
                       return eagle::pad(in[0], kPaddings(), "CONSTANT", value);
                     }});
    }
    return out;
  };
  e.gradients = {{"pad constant", {{Shape{2, 3}}}, [](V x) {
                    return eagle::pad(x[0], {{1, 1}, {0, 2}}, "CONSTANT", 3);
                  }}};
  return e;
}

OpInfo mirror_pad_info() {
  OpInfo e = exact_info(opdefs::OpId::kMirrorPad, [](V x) {
    return eagle::pad(x[0], {{2, 1}, {3, 3}, {0, 4}}, "REFLECT");
  });
  e.samples = [](DType d) {
    const Tensor x = make(d, {3, 4, 5}, Domain::kGeneral, 31, true);
    const Tensor row = make(d, {1030}, Domain::kGeneral, 35, true);
    std::vector<Sample> out;
    for (const std::string mode : {"REFLECT", "SYMMETRIC"}) {
      out.push_back({"[3,4,5] " + mode, {x}, [mode](V in) {
                       return eagle::pad(in[0], {{2, 1}, {3, 3}, {0, 4}}, mode);
                     }});
      out.push_back({"[1030] " + mode, {row}, [mode](V in) {
                       return eagle::pad(in[0], {{1029, 5}}, mode);
                     }});
    }
    return out;
  };
  e.gradients = {
      {"pad reflect",
       {{Shape{3, 4}}},
       [](V x) {
         return eagle::pad(x[0], {{2, 1}, {1, 3}}, "REFLECT");
       }},
      {"pad symmetric",
       {{Shape{3, 4}}},
       [](V x) {
         return eagle::pad(x[0], {{1, 2}, {3, 2}}, "SYMMETRIC");
       }},
  };
  return e;
}

OpInfo reverse_info() {
  OpInfo e = exact_info(opdefs::OpId::kReverseV2, [](V x) { return eagle::reverse(x[0], {0}); });
  e.samples = [](DType d) {
    const Tensor x = make(d, {3, 4, 5}, Domain::kGeneral, 31, true);
    std::vector<Sample> out;
    for (const auto& axes : std::vector<std::vector<int>>{{}, {0}, {2}, {0, 1}, {0, 1, 2}}) {
      out.push_back({"[3,4,5] " + std::to_string(axes.size()) + " axes", {x}, [axes](V in) {
                       return eagle::reverse(in[0], axes);
                     }});
    }
    out.push_back({"[1030]", {make(d, {1030}, Domain::kGeneral, 35, true)}});
    return out;
  };
  e.gradients = {{"reverse", {{Shape{2, 3, 2}}}, [](V x) { return eagle::reverse(x[0], {0, 2}); }}};
  return e;
}

// ---- Split, SplitV, Pack, Unpack
// -----------------------------------------------------------------

OpInfo split_info() {
  OpInfo e = exact_info(opdefs::OpId::kSplit, [](V x) { return eagle::split(x[0], 1).at(0); });
  e.samples = [](DType d) {
    const Tensor x = make(d, {3, 4, 5}, Domain::kGeneral, 31, true);
    std::vector<Sample> out;
    for (std::size_t i = 0; i < 2; ++i) {
      out.push_back({"[3,4,5] in 2 along 1, part " + std::to_string(i), {x}, [i](V in) {
                       return eagle::split(in[0], 2, 1).at(i);
                     }});
    }
    out.push_back({"[3,4,5] in 5 along 2, part 4", {x}, [](V in) {
                     return eagle::split(in[0], 5, 2).at(4);
                   }});
    out.push_back({"one part", {x}});
    return out;
  };
  e.gradients = {{"split", {{Shape{2, 6}}}, [](V x) {
                    auto parts = eagle::split(x[0], 3, 1);
                    return parts[0] * parts[2];  // parts[1] unused: its gradient is zero
                  }}};
  return e;
}

OpInfo split_v_info() {
  OpInfo e = exact_info(opdefs::OpId::kSplitV, [](V x) {
    return eagle::split(x[0], std::vector<std::int64_t>{1, -1}, 0).at(1);
  });
  e.samples = [](DType d) {
    const Tensor x = make(d, {3, 4, 5}, Domain::kGeneral, 31, true);
    std::vector<Sample> out;
    for (std::size_t i = 0; i < 3; ++i) {
      out.push_back({"[3,4,5] sizes 2,-1,0 along 2, part " + std::to_string(i), {x}, [i](V in) {
                       return eagle::split(in[0], {2, -1, 0}, 2).at(i);
                     }});
    }
    return out;
  };
  e.gradients = {{"split sizes", {{Shape{5, 2}}}, [](V x) {
                    auto parts = eagle::split(x[0], std::vector<std::int64_t>{2, -1}, 0);
                    return eagle::reduce_sum(parts[1], 0) + parts[0][0];
                  }}};
  return e;
}

OpInfo pack_info() {
  OpInfo e = exact_info(opdefs::OpId::kPack, [](V x) { return eagle::stack(x); });
  e.samples = [](DType d) {
    const Tensor x = make(d, {3, 4, 5}, Domain::kGeneral, 31, true);
    const Tensor y = make(d, {3, 4, 5}, Domain::kGeneral, 32, true);
    std::vector<Sample> out;
    for (int axis : {0, 1, 3, -1}) {
      out.push_back({"3 x [3,4,5] axis " + std::to_string(axis), {x, y, x}, [axis](V in) {
                       return eagle::stack(in, axis);
                     }});
    }
    const Tensor scalar = make(d, {}, Domain::kGeneral, 34);
    out.push_back({"scalars", {scalar, scalar}});
    const Tensor empty = make(d, {0, 3}, Domain::kGeneral, 33);
    out.push_back({"[0,3]", {empty, empty}, [](V in) { return eagle::stack(in, 1); }});
    return out;
  };
  e.gradients = {{"stack", {{Shape{3}}, {Shape{3}}}, [](V x) { return eagle::stack(x, 1); }}};
  return e;
}

OpInfo unpack_info() {
  OpInfo e = exact_info(opdefs::OpId::kUnpack, [](V x) { return eagle::unstack(x[0], 0).at(0); });
  e.samples = [](DType d) {
    const Tensor x = make(d, {3, 4, 5}, Domain::kGeneral, 31, true);
    std::vector<Sample> out;
    for (int axis : {0, 1, 2}) {
      out.push_back({"[3,4,5] axis " + std::to_string(axis) + ", part 2", {x}, [axis](V in) {
                       return eagle::unstack(in[0], axis).at(2);
                     }});
    }
    return out;
  };
  e.gradients = {{"unstack", {{Shape{2, 3}}}, [](V x) { return eagle::unstack(x[0], 1)[2]; }}};
  return e;
}

}  // namespace

std::vector<OpInfo> array_op_infos() {
  return {reshape_info(), transpose_info(), expand_dims_info(), squeeze_info(), concat_info(),
          slice_info(),   tile_info(),      pad_info(),         pad_v2_info(),  mirror_pad_info(),
          reverse_info(), split_info(),     split_v_info(),     pack_info(),    unpack_info()};
}

}  // namespace eagle_test
