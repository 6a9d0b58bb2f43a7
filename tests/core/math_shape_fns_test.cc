// Signatures, defaults and shape functions of the math ops beyond the
// basics: element-wise additions, Select/SelectV2, Cast, the reductions,
// ArgMax/ArgMin, the batched matmuls and the square-matrix ops.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "core/shape_inference.h"
#include "registry_test_util.h"

namespace af {
namespace {

using tensorflow::NodeDef;
using tensorflow::OpDef;
using test::Contains;
using test::MakeNode;
using test::RegisteredOp;

PartialTensorShape Shape(std::initializer_list<int64_t> dims) { return PartialTensorShape(dims); }
PartialTensorShape Scalar() { return PartialTensorShape(TensorShape{}); }
PartialTensorShape Unknown() { return PartialTensorShape::Unknown(); }

// Infers the output shapes of `node` (defaults filled in); `tensors` are
// known input values (nullptr where unknown).
Status Infer(NodeDef node, std::vector<PartialTensorShape> inputs,
             std::vector<PartialTensorShape>* outputs, std::vector<const Tensor*> tensors = {}) {
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(node.op());
  BOOST_REQUIRE(reg);
  AddDefaultsToNodeDef(reg->op_def, &node);
  return InferShapes(node, reg->op_def, reg->shape_fn, inputs, tensors, outputs);
}

// Output 0's shape; fails the test on error.
PartialTensorShape Out0(const NodeDef& node, std::vector<PartialTensorShape> inputs,
                        std::vector<const Tensor*> tensors = {}) {
  std::vector<PartialTensorShape> out;
  Status s = Infer(node, std::move(inputs), &out, std::move(tensors));
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return out.at(0);
}

// An INVALID_ARGUMENT naming the node and containing `part`.
void ExpectShapeError(const NodeDef& node, std::vector<PartialTensorShape> inputs,
                      const std::string& part, std::vector<const Tensor*> tensors = {}) {
  std::vector<PartialTensorShape> out;
  Status s = Infer(node, std::move(inputs), &out, std::move(tensors));
  BOOST_REQUIRE(!s.ok());
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "'" + node.name() + "'"), s.message());
  BOOST_TEST(Contains(s.message(), part), s.message());
}

NodeDef Node(const std::string& op, int inputs, DataType t = DT_FLOAT) {
  NodeDef n = MakeNode("n_" + op, op);
  for (int i = 0; i < inputs; ++i) n.add_input("in" + std::to_string(i));
  SetAttr(&n, "T", t);
  return n;
}

std::string Signature(const OpDef& op) {
  auto arg = [](const OpDef::ArgDef& a) {
    std::string t = a.type_attr();
    if (t.empty()) t = DataTypeString(static_cast<DataType>(a.type()));
    return a.name() + ":" + t;
  };
  std::string out;
  for (int i = 0; i < op.input_arg_size(); ++i) out += (i ? "," : "") + arg(op.input_arg(i));
  out += "->";
  for (int i = 0; i < op.output_arg_size(); ++i) out += (i ? "," : "") + arg(op.output_arg(i));
  return out;
}

const OpDef::AttrDef* FindAttr(const OpDef& op, const std::string& name) {
  for (const auto& a : op.attr())
    if (a.name() == name) return &a;
  return nullptr;
}

BOOST_AUTO_TEST_SUITE(math_op_definitions)

BOOST_AUTO_TEST_CASE(signatures_match_tensorflow) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"FloorDiv", "x:T,y:T->z:T"},
      {"FloorMod", "x:T,y:T->z:T"},
      {"Pow", "x:T,y:T->z:T"},
      {"Abs", "x:T->y:T"},
      {"Sign", "x:T->y:T"},
      {"Sqrt", "x:T->y:T"},
      {"Rsqrt", "x:T->y:T"},
      {"Exp", "x:T->y:T"},
      {"Log", "x:T->y:T"},
      {"Log1p", "x:T->y:T"},
      {"Tanh", "x:T->y:T"},
      {"Sigmoid", "x:T->y:T"},
      {"Reciprocal", "x:T->y:T"},
      {"Inv", "x:T->y:T"},
      {"SigmoidGrad", "y:T,dy:T->z:T"},
      {"TanhGrad", "y:T,dy:T->z:T"},
      {"SqrtGrad", "y:T,dy:T->z:T"},
      {"RsqrtGrad", "y:T,dy:T->z:T"},
      {"ReciprocalGrad", "y:T,dy:T->z:T"},
      {"InvGrad", "y:T,dy:T->z:T"},
      {"Select", "condition:bool,t:T,e:T->output:T"},
      {"SelectV2", "condition:bool,t:T,e:T->output:T"},
      {"Cast", "x:SrcT->y:DstT"},
      {"Sum", "input:T,reduction_indices:Tidx->output:T"},
      {"Mean", "input:T,reduction_indices:Tidx->output:T"},
      {"Prod", "input:T,reduction_indices:Tidx->output:T"},
      {"Max", "input:T,reduction_indices:Tidx->output:T"},
      {"Min", "input:T,reduction_indices:Tidx->output:T"},
      {"ArgMax", "input:T,dimension:Tidx->output:output_type"},
      {"ArgMin", "input:T,dimension:Tidx->output:output_type"},
      {"BatchMatMul", "x:T,y:T->output:T"},
      {"BatchMatMulV2", "x:T,y:T->output:T"},
      {"MatrixInverse", "input:T->output:T"},
      {"MatrixDeterminant", "input:T->output:T"},
  };
  for (const auto& [name, sig] : expected) {
    BOOST_TEST_CONTEXT("op " << name) {
      BOOST_TEST(Signature(RegisteredOp(name)) == sig);
      BOOST_TEST(static_cast<bool>(OpRegistry::Global()->LookUp(name)->shape_fn));
      BOOST_TEST(!RegisteredOp(name).is_stateful());
    }
  }
}

BOOST_AUTO_TEST_CASE(defaults_match_tensorflow) {
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
    BOOST_TEST(FindAttr(RegisteredOp(op), "keep_dims")->default_value().b() == false, op);
    BOOST_TEST(FindAttr(RegisteredOp(op), "Tidx")->default_value().type() == tensorflow::DT_INT32,
               op);
  }
  for (const char* op : {"ArgMax", "ArgMin"}) {
    BOOST_TEST(FindAttr(RegisteredOp(op), "output_type")->default_value().type() ==
                   tensorflow::DT_INT64,
               op);
    BOOST_TEST(FindAttr(RegisteredOp(op), "Tidx")->default_value().type() == tensorflow::DT_INT32,
               op);
  }
  BOOST_TEST(FindAttr(RegisteredOp("Cast"), "Truncate")->default_value().b() == false);
  BOOST_TEST(FindAttr(RegisteredOp("MatrixInverse"), "adjoint")->default_value().b() == false);
  for (const char* attr : {"adj_x", "adj_y"})
    BOOST_TEST(FindAttr(RegisteredOp("BatchMatMul"), attr)->default_value().b() == false, attr);
  for (const char* attr : {"adj_x", "adj_y", "grad_x", "grad_y"})
    BOOST_TEST(FindAttr(RegisteredOp("BatchMatMulV2"), attr)->default_value().b() == false, attr);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(math_shape_fns)

BOOST_AUTO_TEST_CASE(reductions_with_known_axes) {
  NodeDef sum = Node("Sum", 2);
  const Tensor axis1 = Tensor::FromVector<int32_t>({1});
  const Tensor axes_neg = Tensor::FromVector<int64_t>({-1, 0});
  const Tensor scalar_axis = Tensor::Scalar<int32_t>(-2);
  const Tensor no_axes = Tensor::FromVector<int32_t>({});
  BOOST_TEST(Out0(sum, {Shape({2, 3, 4}), Shape({1})}, {nullptr, &axis1}) == Shape({2, 4}));
  BOOST_TEST(Out0(sum, {Shape({2, 3, 4}), Shape({2})}, {nullptr, &axes_neg}) == Shape({3}));
  BOOST_TEST(Out0(sum, {Shape({2, -1, 4}), Scalar()}, {nullptr, &scalar_axis}) == Shape({2, 4}));
  BOOST_TEST(Out0(sum, {Shape({2, 3}), Shape({0})}, {nullptr, &no_axes}) == Shape({2, 3}));

  NodeDef keep = Node("Max", 2);
  SetAttr(&keep, "keep_dims", true);
  BOOST_TEST(Out0(keep, {Shape({2, 3, 4}), Shape({1})}, {nullptr, &axis1}) == Shape({2, 1, 4}));
  BOOST_TEST(Out0(keep, {Shape({-1, 3, 4}), Shape({2})}, {nullptr, &axes_neg}) ==
             Shape({1, 3, 1}));
}

BOOST_AUTO_TEST_CASE(reductions_with_unknown_axes) {
  NodeDef mean = Node("Mean", 2);
  BOOST_TEST(Out0(mean, {Shape({2, 3}), Shape({1})}).unknown_rank());
  NodeDef keep = Node("Mean", 2);
  SetAttr(&keep, "keep_dims", true);
  BOOST_TEST(Out0(keep, {Shape({2, 3, 4}), Shape({-1})}) == Shape({-1, -1, -1}));
  BOOST_TEST(Out0(keep, {Unknown(), Shape({1})}).unknown_rank());
  const Tensor axis = Tensor::FromVector<int32_t>({0});
  BOOST_TEST(Out0(mean, {Unknown(), Shape({1})}, {nullptr, &axis}).unknown_rank());
}

BOOST_AUTO_TEST_CASE(reduction_errors) {
  NodeDef prod = Node("Prod", 2);
  const Tensor bad = Tensor::FromVector<int32_t>({3});
  ExpectShapeError(prod, {Shape({2, 3, 4}), Shape({1})},
                   "Invalid reduction dimension 3 for input with 3 dimensions", {nullptr, &bad});
  const Tensor bad_neg = Tensor::FromVector<int64_t>({-4});
  ExpectShapeError(prod, {Shape({2, 3, 4}), Shape({1})}, "Invalid reduction dimension -4",
                   {nullptr, &bad_neg});
  ExpectShapeError(prod, {Shape({2, 3}), Shape({1, 2})}, "must be at most rank 1");
}

BOOST_AUTO_TEST_CASE(arg_reductions) {
  NodeDef argmax = Node("ArgMax", 2);
  const Tensor d1 = Tensor::Scalar<int32_t>(1);
  const Tensor dneg = Tensor::Scalar<int64_t>(-3);
  BOOST_TEST(Out0(argmax, {Shape({2, 3, 4}), Scalar()}, {nullptr, &d1}) == Shape({2, 4}));
  BOOST_TEST(Out0(argmax, {Shape({2, 3, 4}), Scalar()}, {nullptr, &dneg}) == Shape({3, 4}));
  BOOST_TEST(Out0(argmax, {Shape({2, 3, 4}), Scalar()}) == Shape({-1, -1}));
  BOOST_TEST(Out0(argmax, {Shape({5}), Scalar()}) == Scalar());
  BOOST_TEST(Out0(argmax, {Unknown(), Scalar()}).unknown_rank());
  const Tensor d3 = Tensor::Scalar<int32_t>(3);
  ExpectShapeError(argmax, {Shape({2, 3, 4}), Scalar()},
                   "Dimension (3) must be in the range [-3, 3)", {nullptr, &d3});
  ExpectShapeError(Node("ArgMin", 2), {Shape({2, 3}), Shape({1})}, "must be rank 0");
}

BOOST_AUTO_TEST_CASE(batch_matmul_v2_broadcasts_batch_dims) {
  NodeDef bmm = Node("BatchMatMulV2", 2);
  BOOST_TEST(Out0(bmm, {Shape({2, 1, 3, 4}), Shape({5, 4, 6})}) == Shape({2, 5, 3, 6}));
  BOOST_TEST(Out0(bmm, {Shape({3, 4}), Shape({7, 4, 6})}) == Shape({7, 3, 6}));
  BOOST_TEST(Out0(bmm, {Shape({-1, 3, 4}), Shape({1, 4, -1})}) == Shape({-1, 3, -1}));
  BOOST_TEST(Out0(bmm, {Unknown(), Shape({4, 6})}).unknown_rank());
  NodeDef adj = Node("BatchMatMulV2", 2);
  SetAttr(&adj, "adj_x", true);
  SetAttr(&adj, "adj_y", true);
  BOOST_TEST(Out0(adj, {Shape({2, 4, 3}), Shape({6, 4})}) == Shape({2, 3, 6}));
  ExpectShapeError(bmm, {Shape({2, 3, 4}), Shape({3, 4, 6})}, "Incompatible shapes");
  ExpectShapeError(bmm, {Shape({2, 3, 4}), Shape({2, 5, 6})}, "Matrix size-incompatible");
  ExpectShapeError(bmm, {Shape({4}), Shape({4, 6})}, "must be at least rank 2");
}

BOOST_AUTO_TEST_CASE(batch_matmul_v1_merges_equal_batch_dims) {
  NodeDef bmm = Node("BatchMatMul", 2);
  BOOST_TEST(Out0(bmm, {Shape({-1, 3, 4}), Shape({5, 4, 6})}) == Shape({5, 3, 6}));
  ExpectShapeError(bmm, {Shape({2, 3, 4}), Shape({4, 6})}, "same rank");
  ExpectShapeError(bmm, {Shape({2, 3, 4}), Shape({3, 4, 6})}, "not compatible");
}

BOOST_AUTO_TEST_CASE(square_matrix_ops) {
  NodeDef inv = Node("MatrixInverse", 1);
  NodeDef det = Node("MatrixDeterminant", 1);
  BOOST_TEST(Out0(inv, {Shape({2, 3, 3})}) == Shape({2, 3, 3}));
  BOOST_TEST(Out0(inv, {Shape({2, -1, 3})}) == Shape({2, 3, 3}));
  BOOST_TEST(Out0(det, {Shape({2, 5, 3, 3})}) == Shape({2, 5}));
  BOOST_TEST(Out0(det, {Shape({3, 3})}) == Scalar());
  BOOST_TEST(Out0(det, {Unknown()}).unknown_rank());
  ExpectShapeError(inv, {Shape({2, 3, 4})}, "must be square");
  ExpectShapeError(det, {Shape({3})}, "must be at least rank 2");
}

BOOST_AUTO_TEST_CASE(select_shapes) {
  NodeDef select = Node("Select", 3);
  BOOST_TEST(Out0(select, {Shape({2, 3}), Shape({2, 3}), Shape({-1, 3})}) == Shape({2, 3}));
  BOOST_TEST(Out0(select, {Scalar(), Shape({4, 5}), Shape({4, 5})}) == Shape({4, 5}));
  BOOST_TEST(Out0(select, {Shape({4}), Shape({-1, 5}), Shape({-1, 5})}) == Shape({4, 5}));
  ExpectShapeError(select, {Shape({3}), Shape({4, 5}), Shape({4, 5})}, "first dimension");
  ExpectShapeError(select, {Shape({2, 3}), Shape({2, 3}), Shape({3, 2})}, "not compatible");
  ExpectShapeError(select, {Shape({2, 1}), Shape({2, 3}), Shape({2, 3})}, "not compatible");

  NodeDef v2 = Node("SelectV2", 3);
  BOOST_TEST(Out0(v2, {Shape({2, 1}), Shape({1, 3}), Scalar()}) == Shape({2, 3}));
  BOOST_TEST(Out0(v2, {Scalar(), Shape({4}), Shape({5, 1})}) == Shape({5, 4}));
  ExpectShapeError(v2, {Shape({2}), Shape({3}), Shape({3})}, "Incompatible shapes");
}

BOOST_AUTO_TEST_CASE(elementwise_shapes) {
  BOOST_TEST(Out0(Node("FloorMod", 2), {Shape({3, 1}), Shape({4})}) == Shape({3, 4}));
  BOOST_TEST(Out0(Node("Pow", 2), {Scalar(), Shape({-1, 2})}) == Shape({-1, 2}));
  BOOST_TEST(Out0(Node("Sigmoid", 1), {Shape({-1, 7})}) == Shape({-1, 7}));
  BOOST_TEST(Out0(Node("TanhGrad", 2), {Shape({2, 3}), Shape({2, 3})}) == Shape({2, 3}));
  NodeDef cast = MakeNode("cast", "Cast", {"x"});
  SetAttr(&cast, "SrcT", DT_FLOAT);
  SetAttr(&cast, "DstT", DT_INT32);
  BOOST_TEST(Out0(cast, {Shape({5, -1})}) == Shape({5, -1}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
