// OpInfo entries of the indexing ops: GatherV2, GatherNd, Where, SelectV2, StridedSlice
// (Note [OpInfo table]). Their errors are in ops_index_test.cpp beside the values.
#include "op_info/op_info.hpp"

namespace opdefs = eagle::opdefs;

namespace eagle_test {

namespace {

using V = const Inputs&;

OpInfo exact_info(opdefs::OpId op, Call call) {
  OpInfo e{op};
  e.call = std::move(call);
  e.tolerance = exact_tol;
  return e;
}

// The params of the index samples: whole numbers in [-2, 2] with specials.
Tensor params(DType d) { return make(d, {4, 5, 6}, Domain::kSmall, 31, true); }

OpInfo gather_info() {
  OpInfo e = exact_info(opdefs::OpId::kGatherV2, [](V x) { return eagle::gather(x[0], x[1]); });
  e.samples = [](DType d) {
    const Tensor x = params(d);
    std::vector<Sample> out;
    for (DType it : {DType::kInt32, DType::kInt64}) {
      const std::string name = " " + str(it);
      out.push_back({"axis 0" + name, {x, make_values(it, {3, 0, 3, 1, 2}, {5})}});
      out.push_back({"axis 2, 2-D indices" + name,
                     {x, make_values(it, {4, 0, 5, 5, 1, 2}, {2, 3})},
                     [](V in) { return eagle::gather(in[0], in[1], 2); }});
      out.push_back({"batch_dims 1" + name,
                     {x, make_values(it, {0, 4, 1, 1, 2, 3, 4, 0}, {4, 2})},
                     [](V in) { return eagle::gather(in[0], in[1], 1, 1); }});
      out.push_back({"empty indices" + name, {x, make_values(it, {}, {0})}, [](V in) {
                       return eagle::gather(in[0], in[1], 1);
                     }});
    }
    return out;
  };
  e.gradients = {
      {"gather",
       {{Shape{4, 3}}},
       [](V x) {
         return eagle::gather(x[0], eagle::constant({3, 0, 3}));
       }},
      {"gather axis 1",
       {{Shape{2, 4, 3}}},
       [](V x) {
         return eagle::gather(x[0], eagle::constant({{1, 1}, {0, 3}}), 1);
       }},
      {"gather batch_dims",
       {{Shape{2, 4}}},
       [](V x) {
         return eagle::gather(x[0], eagle::constant({{1, 1, 0}, {3, 2, 2}}), 1, 1);
       }},
  };
  return e;
}

OpInfo gather_nd_info() {
  OpInfo e = exact_info(opdefs::OpId::kGatherNd, [](V x) { return eagle::gather_nd(x[0], x[1]); });
  e.samples = [](DType d) {
    const Tensor x = params(d);
    std::vector<Sample> out;
    for (DType it : {DType::kInt32, DType::kInt64}) {
      const std::string name = " " + str(it);
      out.push_back({"elements" + name, {x, make_values(it, {3, 4, 5, 0, 0, 0, 1, 2, 3}, {3, 3})}});
      out.push_back({"rows" + name, {x, make_values(it, {3, 1, 0, 4, 2, 2}, {3, 2})}});
      out.push_back({"batch_dims 1" + name, {x, make_values(it, {1, 2, 3, 4}, {4, 1})}, [](V in) {
                       return eagle::gather_nd(in[0], in[1], 1);
                     }});
    }
    return out;
  };
  e.gradients = {{"gather_nd", {{Shape{3, 4, 2}}}, [](V x) {
                    return eagle::gather_nd(x[0], eagle::constant({{0, 1}, {2, 3}, {0, 1}}));
                  }}};
  return e;
}

OpInfo where_info() {
  OpInfo e = exact_info(opdefs::OpId::kWhere, [](V x) { return eagle::where(x[0]); });
  e.samples = [](DType d) {
    const Tensor c = make(d, {3, 33, 5}, Domain::kSmall, 32, true);
    if (d == DType::kFloat16) {
      // TensorFlow's CPU kernel refuses half (UnimplementedError), and a simulated GPU runs the
      // CPU's; a CUDA GPU has one, held to the float32 result.
      Sample s{"[3,33,5]", {c}};
      s.reference = [](V in) { return eagle::where(eagle::cast(in[0], DType::kFloat32)); };
      s.unimplemented_unless_cuda = true;
      return std::vector<Sample>{s};
    }
    return std::vector<Sample>{{"[3,33,5]", {c}}, {"empty", {make(d, {0, 3}, Domain::kSmall, 33)}}};
  };
  return e;
}

OpInfo select_info() {
  OpInfo e =
      exact_info(opdefs::OpId::kSelectV2, [](V x) { return eagle::where(x[0], x[1], x[2]); });
  e.samples = [](DType d) {
    const Tensor x = params(d);
    return std::vector<Sample>{
        {"broadcast",
         {make(DType::kBool, {4, 1, 6}, Domain::kSmall, 34), x,
          make(d, {5, 1}, Domain::kGeneral, 35, true)}},
        {"same shapes", {make(DType::kBool, {4, 5, 6}, Domain::kSmall, 36), x, x}},
    };
  };
  e.gradients = {{"where select", {{Shape{2, 3}}, {Shape{3}}}, [](V x) {
                    return eagle::where(eagle::constant({true, false, true}), x[0], x[1]);
                  }}};
  return e;
}

OpInfo strided_slice_info() {
  using eagle::Slice;
  OpInfo e = exact_info(opdefs::OpId::kStridedSlice, [](V x) { return x[0][Slice(3, 1)]; });
  e.samples = [](DType d) {
    const Tensor x = params(d);
    return std::vector<Sample>{
        {"x[3:1]", {x}},
        {"x[1:, ::-2, 5:0:-3]",
         {x},
         [](V in) {
           return in[0].index(
               {Slice(1, std::nullopt), Slice(std::nullopt, std::nullopt, -2), Slice(5, 0, -3)});
         }},
        {"x[..., newaxis, 2]",
         {x},
         [](V in) {
           return in[0].index({eagle::Ellipsis, eagle::NewAxis, 2});
         }},
        {"x[-1][3]", {x}, [](V in) { return in[0][-1][3]; }},
    };
  };
  // Tensor::index reads the shape first: an undefined tensor fails there, with the accessors'
  // "Use of an undefined eagle::Tensor" (ops_error_test.cpp).
  e.check_undefined_inputs = false;
  e.gradients = {
      {"strided_slice",
       {{Shape{5, 4}}},
       [](V x) {
         return eagle::strided_slice(x[0], {4, 0}, {0, 4}, {-2, 3});
       }},
      {"index with step",
       {{Shape{6, 3}}},
       [](V x) {
         return x[0][eagle::Slice{1, std::nullopt, 2}];
       }},
  };
  return e;
}

}  // namespace

std::vector<OpInfo> index_op_infos() {
  return {gather_info(), gather_nd_info(), where_info(), select_info(), strided_slice_info()};
}

}  // namespace eagle_test
