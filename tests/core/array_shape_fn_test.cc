// Shape functions of the array ops, with and without constant inputs.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "core/shape_inference.h"
#include "registry_test_util.h"

namespace af {
namespace {

using tensorflow::NodeDef;
using test::Contains;
using test::MakeNode;

PartialTensorShape Shape(std::initializer_list<int64_t> dims) { return PartialTensorShape(dims); }
PartialTensorShape Unknown() { return PartialTensorShape::Unknown(); }

Tensor I32(std::vector<int32_t> v) { return Tensor::FromVector<int32_t>(v); }

// A node of `op` named "n" with `num_inputs` inputs and the given attrs.
struct Node {
  NodeDef def;
  Node(const std::string& op, int num_inputs) {
    def = MakeNode("n", op);
    for (int i = 0; i < num_inputs; ++i) def.add_input("in" + std::to_string(i));
  }
  template <typename T>
  Node& Attr(const std::string& name, const T& value) {
    SetAttr(&def, name, value);
    return *this;
  }
};

// Runs the op's shape function; tensors[i] is input i's value or nullptr.
Status Infer(const Node& node, std::vector<PartialTensorShape> inputs,
             std::vector<const Tensor*> tensors, std::vector<PartialTensorShape>* out) {
  NodeDef def = node.def;
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(def.op());
  BOOST_REQUIRE(reg);
  AddDefaultsToNodeDef(reg->op_def, &def);
  tensors.resize(inputs.size(), nullptr);
  return InferShapes(def, reg->op_def, reg->shape_fn, inputs, tensors, out);
}

// Output 0's shape, failing the test on error.
PartialTensorShape Out0(const Node& node, std::vector<PartialTensorShape> inputs,
                        std::vector<const Tensor*> tensors = {}) {
  std::vector<PartialTensorShape> out;
  const Status s = Infer(node, std::move(inputs), std::move(tensors), &out);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return out.at(0);
}

std::string Error(const Node& node, std::vector<PartialTensorShape> inputs,
                  std::vector<const Tensor*> tensors = {}) {
  std::vector<PartialTensorShape> out;
  const Status s = Infer(node, std::move(inputs), std::move(tensors), &out);
  BOOST_REQUIRE_MESSAGE(!s.ok(), "expected an error");
  BOOST_CHECK_EQUAL(s.code(), Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(Contains(s.message(), "node 'n'"), s.ToString());
  return s.message();
}

#define EXPECT_SHAPE(got, want) \
  BOOST_CHECK_MESSAGE((got) == (want), (got).DebugString() << " vs. " << (want).DebugString())

BOOST_AUTO_TEST_SUITE(array_shape_functions)

BOOST_AUTO_TEST_CASE(reshape_infers_minus_one_from_a_constant_shape) {
  Node reshape("Reshape", 2);
  reshape.Attr("T", DT_FLOAT);
  const Tensor minus_one_4 = I32({-1, 4});
  const Tensor three_dims = I32({2, 3, 4});
  const Tensor to_zero = I32({-1, 0});
  EXPECT_SHAPE(Out0(reshape, {Shape({2, 3, 4}), Shape({2})}, {nullptr, &minus_one_4}),
               Shape({6, 4}));
  // Input not fully known: the -1 stays unknown, the rest is the constant.
  EXPECT_SHAPE(Out0(reshape, {Shape({-1, 4}), Shape({2})}, {nullptr, &minus_one_4}),
               Shape({-1, 4}));
  EXPECT_SHAPE(Out0(reshape, {Unknown(), Shape({3})}, {nullptr, &three_dims}), Shape({2, 3, 4}));
  EXPECT_SHAPE(Out0(reshape, {Shape({0, 3}), Shape({2})}, {nullptr, &to_zero}), Shape({3, 0}));
  // Value unknown, length known: the rank.
  EXPECT_SHAPE(Out0(reshape, {Shape({6}), Shape({3})}), PartialTensorShape::UnknownOfRank(3));
  EXPECT_SHAPE(Out0(reshape, {Shape({6}), Shape({-1})}), Unknown());

  const Tensor four_two = I32({4, 2});
  const Tensor two_minus = I32({-1, -1});
  const Tensor minus_5 = I32({-1, 5});
  BOOST_CHECK(Contains(Error(reshape, {Shape({2, 3}), Shape({2})}, {nullptr, &four_two}),
                       "Cannot reshape a tensor with 6 elements to shape [4,2] (8 elements)"));
  BOOST_CHECK(Contains(Error(reshape, {Shape({2, 3}), Shape({2})}, {nullptr, &two_minus}),
                       "Cannot infer multiple unknown dimensions in shape [?,?]"));
  BOOST_CHECK(Contains(Error(reshape, {Shape({2, 3}), Shape({2})}, {nullptr, &minus_5}),
                       "ask for a multiple of 5"));
}

BOOST_AUTO_TEST_CASE(concat_v2_merges_partial_shapes) {
  Node concat("ConcatV2", 3);
  concat.Attr("T", DT_FLOAT).Attr("N", int64_t{2});
  const Tensor axis0 = Tensor::Scalar<int32_t>(0);
  const Tensor axis_neg1 = Tensor::Scalar<int64_t>(-1);
  EXPECT_SHAPE(
      Out0(concat, {Shape({2, -1}), Shape({-1, 3}), Shape({})}, {nullptr, nullptr, &axis0}),
      Shape({-1, 3}));
  EXPECT_SHAPE(Out0(concat, {Shape({2, 3}), Shape({4, 3}), Shape({})}, {nullptr, nullptr, &axis0}),
               Shape({6, 3}));
  EXPECT_SHAPE(Out0(Node(concat).Attr("Tidx", DT_INT64), {Shape({2, 3}), Unknown(), Shape({})},
                    {nullptr, nullptr, &axis_neg1}),
               Shape({2, -1}));
  EXPECT_SHAPE(Out0(concat, {Shape({2, 3}), Shape({-1, 5}), Shape({})}), Shape({-1, -1}));
  EXPECT_SHAPE(Out0(concat, {Unknown(), Unknown(), Shape({})}), Unknown());

  BOOST_CHECK(
      Contains(Error(concat, {Shape({2, 3}), Shape({3, 4}), Shape({})}, {nullptr, nullptr, &axis0}),
               "Dimension 1 in both shapes must be equal, but are 3 and 4"));
  BOOST_CHECK(Contains(Error(concat, {Shape({2, 3}), Shape({3}), Shape({})}),
                       "Shapes must be equal rank, but are 2 and 1"));
  const Tensor axis2 = Tensor::Scalar<int32_t>(2);
  BOOST_CHECK(
      Contains(Error(concat, {Shape({2, 3}), Shape({2, 3}), Shape({})}, {nullptr, nullptr, &axis2}),
               "out of range"));

  Node concat_v1("Concat", 4);
  concat_v1.Attr("T", DT_FLOAT).Attr("N", int64_t{3});
  const Tensor axis1 = Tensor::Scalar<int32_t>(1);
  EXPECT_SHAPE(
      Out0(concat_v1, {Shape({}), Shape({2, 1}), Shape({2, -1}), Shape({-1, 4})}, {&axis1}),
      Shape({2, -1}));
}

// x[1:4, 0] on [5, ?, 6] and friends, with begin/end/strides constant.
BOOST_AUTO_TEST_CASE(strided_slice_resolves_constant_specs) {
  auto node = [](int begin_mask, int end_mask, int ellipsis, int new_axis, int shrink) {
    Node n("StridedSlice", 4);
    n.Attr("T", DT_FLOAT).Attr("Index", DT_INT32);
    n.Attr("begin_mask", int64_t{begin_mask}).Attr("end_mask", int64_t{end_mask});
    n.Attr("ellipsis_mask", int64_t{ellipsis}).Attr("new_axis_mask", int64_t{new_axis});
    n.Attr("shrink_axis_mask", int64_t{shrink});
    return n;
  };
  const Tensor b = I32({1, 0}), e = I32({4, 1}), s = I32({1, 1});
  EXPECT_SHAPE(Out0(node(0, 0, 0, 0, 2), {Shape({5, -1, 6}), Shape({2}), Shape({2}), Shape({2})},
                    {nullptr, &b, &e, &s}),
               Shape({3, 6}));
  // x[..., None, ::2] on [4, 5, 6]
  const Tensor b3 = I32({0, 0, 0}), e3 = I32({0, 0, 0}), s3 = I32({1, 1, 2});
  EXPECT_SHAPE(Out0(node(4, 4, 1, 2, 0), {Shape({4, 5, 6}), Shape({3}), Shape({3}), Shape({3})},
                    {nullptr, &b3, &e3, &s3}),
               Shape({4, 5, 1, 3}));
  // x[::-2] of an unknown first dim; x[-10:10] clamps.
  const Tensor b1 = I32({0}), e1 = I32({0}), minus2 = I32({-2});
  EXPECT_SHAPE(Out0(node(1, 1, 0, 0, 0), {Shape({-1, 3}), Shape({1}), Shape({1}), Shape({1})},
                    {nullptr, &b1, &e1, &minus2}),
               Shape({-1, 3}));
  const Tensor far_b = I32({-10}), far_e = I32({10}), one = I32({1});
  EXPECT_SHAPE(Out0(node(0, 0, 0, 0, 0), {Shape({7}), Shape({1}), Shape({1}), Shape({1})},
                    {nullptr, &far_b, &far_e, &one}),
               Shape({7}));
  // Strides known, begin/end not: only masked dims are known.
  const Tensor s2 = I32({1, 1});
  EXPECT_SHAPE(Out0(node(2, 2, 0, 0, 0), {Shape({5, 8}), Shape({2}), Shape({2}), Shape({2})},
                    {nullptr, nullptr, nullptr, &s2}),
               Shape({-1, 8}));
  // Strides unknown: nothing.
  EXPECT_SHAPE(Out0(node(0, 0, 0, 0, 0), {Shape({5, 8}), Shape({2}), Shape({2}), Shape({2})}),
               Unknown());

  const Tensor bad_b = I32({9}), bad_e = I32({10});
  BOOST_CHECK(Contains(Error(node(0, 0, 0, 0, 1), {Shape({5}), Shape({1}), Shape({1}), Shape({1})},
                             {nullptr, &bad_b, &bad_e, &one}),
                       "slice index 9 of dimension 0 out of bounds."));
  BOOST_CHECK(Contains(Error(node(0, 0, 0, 0, 0), {Shape({5}), Shape({1}), Shape({2}), Shape({1})}),
                       "1D equal size tensors"));
}

BOOST_AUTO_TEST_CASE(other_array_ops_use_their_constant_inputs) {
  const Tensor dims = I32({2, 3});
  EXPECT_SHAPE(Out0(Node("Fill", 2).Attr("T", DT_FLOAT), {Shape({2}), Shape({})}, {&dims}),
               Shape({2, 3}));

  const Tensor minus1 = Tensor::Scalar<int32_t>(-1);
  EXPECT_SHAPE(Out0(Node("ExpandDims", 2).Attr("T", DT_FLOAT), {Shape({2, 3}), Shape({})},
                    {nullptr, &minus1}),
               Shape({2, 3, 1}));
  EXPECT_SHAPE(Out0(Node("ExpandDims", 2).Attr("T", DT_FLOAT), {Shape({2, 3}), Shape({})}),
               PartialTensorShape::UnknownOfRank(3));

  EXPECT_SHAPE(Out0(Node("Squeeze", 1).Attr("T", DT_FLOAT), {Shape({1, 3, 1})}), Shape({3}));
  EXPECT_SHAPE(Out0(Node("Squeeze", 1).Attr("T", DT_FLOAT), {Shape({1, -1})}), Unknown());
  EXPECT_SHAPE(
      Out0(Node("Squeeze", 1).Attr("T", DT_FLOAT).Attr("squeeze_dims", std::vector<int64_t>{0}),
           {Shape({1, -1})}),
      Shape({-1}));

  const Tensor begin = I32({1, 0}), size = I32({2, -1});
  EXPECT_SHAPE(Out0(Node("Slice", 3).Attr("T", DT_FLOAT).Attr("Index", DT_INT32),
                    {Shape({4, 5}), Shape({2}), Shape({2})}, {nullptr, &begin, &size}),
               Shape({2, 5}));

  const Tensor perm = I32({1, 0, 2});
  EXPECT_SHAPE(Out0(Node("Transpose", 2).Attr("T", DT_FLOAT), {Shape({2, -1, 4}), Shape({3})},
                    {nullptr, &perm}),
               Shape({-1, 2, 4}));

  const Tensor multiples = I32({2, 0});
  EXPECT_SHAPE(Out0(Node("Tile", 2).Attr("T", DT_FLOAT), {Shape({3, -1}), Shape({2})},
                    {nullptr, &multiples}),
               Shape({6, 0}));

  Tensor paddings(DT_INT32, TensorShape{2, 2});
  for (int i = 0; i < 4; ++i) paddings.data<int32_t>()[i] = i;  // [[0,1],[2,3]]
  EXPECT_SHAPE(Out0(Node("Pad", 2).Attr("T", DT_FLOAT), {Shape({3, -1}), Shape({2, 2})},
                    {nullptr, &paddings}),
               Shape({4, -1}));

  EXPECT_SHAPE(
      Out0(Node("Pack", 2).Attr("T", DT_FLOAT).Attr("N", int64_t{2}).Attr("axis", int64_t{-1}),
           {Shape({2, -1}), Shape({-1, 3})}),
      Shape({2, 3, 2}));

  const Tensor axis1 = Tensor::Scalar<int32_t>(1);
  std::vector<PartialTensorShape> out;
  {
    Node split("Split", 2);
    split.Attr("T", DT_FLOAT).Attr("num_split", int64_t{3});
    BOOST_REQUIRE(Infer(split, {Shape({}), Shape({2, 9})}, {&axis1}, &out).ok());
    BOOST_REQUIRE_EQUAL(out.size(), 3u);
    EXPECT_SHAPE(out[2], Shape({2, 3}));
  }
  {
    Node split_v("SplitV", 3);
    split_v.Attr("T", DT_FLOAT).Attr("num_split", int64_t{2}).Attr("Tlen", DT_INT32);
    const Tensor sizes = I32({-1, 2});
    BOOST_REQUIRE(
        Infer(split_v, {Shape({2, 9}), Shape({2}), Shape({})}, {nullptr, &sizes, &axis1}, &out)
            .ok());
    EXPECT_SHAPE(out[0], Shape({2, 7}));
    EXPECT_SHAPE(out[1], Shape({2, 2}));
  }

  const Tensor gather_axis = Tensor::Scalar<int32_t>(1);
  EXPECT_SHAPE(Out0(Node("GatherV2", 3)
                        .Attr("Tparams", DT_FLOAT)
                        .Attr("Tindices", DT_INT32)
                        .Attr("Taxis", DT_INT32),
                    {Shape({4, 5, 6}), Shape({2, 3}), Shape({})}, {nullptr, nullptr, &gather_axis}),
               Shape({4, 2, 3, 6}));

  const Tensor depth = Tensor::Scalar<int32_t>(10);
  EXPECT_SHAPE(
      Out0(Node("OneHot", 4).Attr("T", DT_FLOAT).Attr("TI", DT_INT32).Attr("axis", int64_t{0}),
           {Shape({3, -1}), Shape({}), Shape({}), Shape({})}, {nullptr, &depth}),
      Shape({10, 3, -1}));

  const Tensor start = Tensor::Scalar<int32_t>(1), limit = Tensor::Scalar<int32_t>(10),
               delta = Tensor::Scalar<int32_t>(4);
  EXPECT_SHAPE(Out0(Node("Range", 3), {Shape({}), Shape({}), Shape({})}, {&start, &limit, &delta}),
               Shape({3}));

  const Tensor num = Tensor::Scalar<int32_t>(7);
  EXPECT_SHAPE(Out0(Node("UnsortedSegmentSum", 3).Attr("T", DT_FLOAT).Attr("Tindices", DT_INT32),
                    {Shape({4, -1, 3}), Shape({4, 2}), Shape({})}, {nullptr, nullptr, &num}),
               Shape({7, 3}));

  const Tensor target = I32({4, 2, 3});
  EXPECT_SHAPE(Out0(Node("BroadcastTo", 2).Attr("T", DT_FLOAT), {Shape({2, 1}), Shape({3})},
                    {nullptr, &target}),
               Shape({4, 2, 3}));
  BOOST_CHECK(Contains(Error(Node("BroadcastTo", 2).Attr("T", DT_FLOAT),
                             {Shape({5, 1}), Shape({3})}, {nullptr, &target}),
                       "Unable to broadcast tensor of shape [5,1] to tensor of shape [4,2,3]"));

  EXPECT_SHAPE(Out0(Node("Shape", 1).Attr("T", DT_FLOAT), {Shape({-1, 3, 2})}), Shape({3}));
  EXPECT_SHAPE(Out0(Node("Rank", 1).Attr("T", DT_FLOAT), {Unknown()}), Shape({}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
