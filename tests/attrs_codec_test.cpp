// The encoding of op attributes for remote execution (src/cluster/attrs_codec.cpp): values come
// back field for field, and bytes it did not write are an error, never a crash.
#include <catch2/catch.hpp>

#include <string>

#include "cluster/attrs_codec.hpp"
#include "eagle/errors.hpp"
#include "eagle/tensor.hpp"

namespace {

using namespace eagle::opdefs;
using eagle::cluster::decode_attrs;
using eagle::cluster::encode_attrs;

OpAttrs round_trip(const OpAttrs& attrs) { return decode_attrs(encode_attrs(attrs)); }

}  // namespace

TEST_CASE("attrs codec: numbers, flags and vectors come back field for field") {
  Conv2DAttrs conv{128, 13, 13, 32, 3, 3, 64, 11, 11, 1, 2, 1, 1, 0, 1, 0, 1, true, 2};
  const OpAttrs fused = round_trip(OpAttrs{FusedConv2DAttrs{conv, true}});
  const auto& got = std::get<FusedConv2DAttrs>(fused);
  CHECK(got.relu);
  CHECK(got.conv.batch == 128);
  CHECK(got.conv.stride_w == 2);
  CHECK(got.conv.pad_bottom == 1);
  CHECK(got.conv.pad_right == 1);
  CHECK(got.conv.same);
  CHECK(got.conv.groups == 2);

  StridedSliceAttrs slice;
  slice.begin = {1, -2};
  slice.end = {5, 0};
  slice.strides = {1, -1};
  slice.shrink_axis_mask = 2;
  slice.start = {1, 7};
  slice.step = {1, -1};
  slice.size = {4, 7};
  const auto back = std::get<StridedSliceAttrs>(round_trip(OpAttrs{slice}));
  CHECK(back.begin == slice.begin);
  CHECK(back.strides == slice.strides);
  CHECK(back.shrink_axis_mask == 2);
  CHECK(back.size == slice.size);

  OptimizerAttrs adam;
  adam.lr = 1e-3;
  adam.beta2_power = 0.999 * 0.999;
  adam.step = 2;
  adam.u_product = 0.5;
  const auto adam_back = std::get<OptimizerAttrs>(round_trip(OpAttrs{adam}));
  CHECK(adam_back.lr == adam.lr);
  CHECK(adam_back.beta2_power == adam.beta2_power);
  CHECK(adam_back.step == 2);
  CHECK(adam_back.u_product == 0.5);
}

TEST_CASE("attrs codec: strings and nested vectors, Einsum's operands included") {
  EinsumAttrs einsum;
  einsum.equation = "ij,jk->ik";
  einsum.input_subscripts = {"ij", "jk"};
  einsum.output_subscripts = "ik";
  einsum.operands = {EinsumOperand{{2, 3}, {3, 1}, 1, false},
                     EinsumOperand{{3, 4}, {1, 3}, 2, true}};
  einsum.out_copy = true;
  const auto back = std::get<EinsumAttrs>(round_trip(OpAttrs{einsum}));
  CHECK(back.equation == "ij,jk->ik");
  CHECK(back.input_subscripts == einsum.input_subscripts);
  REQUIRE(back.operands.size() == 2);
  CHECK(back.operands[1].dims == std::vector<std::int64_t>{3, 4});
  CHECK(back.operands[1].reduce == 2);
  CHECK(back.operands[1].copy);
  CHECK_FALSE(back.operands[0].copy);
  CHECK(back.out_copy);

  const auto join =
      std::get<ReduceJoinAttrs>(round_trip(OpAttrs{ReduceJoinAttrs{{0, 2}, true, ", "}}));
  CHECK(join.axes == std::vector<int>{0, 2});
  CHECK(join.keep_dims);
  CHECK(join.separator == ", ");
  CHECK(std::holds_alternative<NoAttrs>(round_trip(OpAttrs{NoAttrs{}})));
}

TEST_CASE("attrs codec: what cannot leave the process, and bytes it did not write") {
  CHECK_THROWS_AS(encode_attrs(OpAttrs{ConstAttrs{nullptr}}), eagle::UnimplementedError);
  IdentityNAttrs custom;
  custom.grad_fn = std::make_shared<const CustomGradientFn>(
      [](const std::vector<eagle::Tensor>& g) { return g; });
  CHECK_THROWS_AS(encode_attrs(OpAttrs{custom}), eagle::UnimplementedError);

  const std::string good = encode_attrs(OpAttrs{TransposeAttrs{{1, 0, 2}}});
  const auto malformed = Catch::Message("Malformed op attributes in a remote call");
  CHECK_THROWS_MATCHES(decode_attrs(good.substr(0, good.size() - 1)), eagle::InvalidArgumentError,
                       malformed);
  CHECK_THROWS_MATCHES(decode_attrs(good + "x"), eagle::InvalidArgumentError, malformed);
  CHECK_THROWS_MATCHES(decode_attrs(std::string("\xff\xff\x00\x00", 4)),
                       eagle::InvalidArgumentError, malformed);
  // A length far past the bytes there are is refused before anything is allocated.
  std::string huge = encode_attrs(OpAttrs{TransposeAttrs{{}}});
  huge.replace(4, 8, std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8));
  CHECK_THROWS_MATCHES(decode_attrs(huge), eagle::InvalidArgumentError, malformed);
  CHECK_THROWS_MATCHES(decode_attrs(""), eagle::InvalidArgumentError, malformed);
}
