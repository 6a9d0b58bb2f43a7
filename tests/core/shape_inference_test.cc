// InferenceContext helpers, the shared shape functions and the shape
// functions of the registered ops.
#include <boost/test/unit_test.hpp>

#include "core/shape_inference.h"
#include "registry_test_util.h"

namespace af {
namespace {

using tensorflow::NodeDef;
using test::Contains;
using test::MakeNode;
using test::RegisteredOp;

REGISTER_OP("TestBinaryShapes").Input("x: T").Input("y: T").Output("z: T").Attr("T: type");

REGISTER_OP("TestFailingShapeFn").Output("y: float").SetShapeFn([](InferenceContext*) {
  return errors::InvalidArgument("raw failure");
});

PartialTensorShape Shape(std::initializer_list<int64_t> dims) { return PartialTensorShape(dims); }
PartialTensorShape Scalar() { return PartialTensorShape(TensorShape{}); }
PartialTensorShape Unknown() { return PartialTensorShape::Unknown(); }

// A context for a TestBinaryShapes node named "bin" with the given inputs.
struct BinaryContext {
  NodeDef node = [] {
    NodeDef n = MakeNode("bin", "TestBinaryShapes", {"a", "b"});
    SetAttr(&n, "T", DT_FLOAT);
    return n;
  }();
  InferenceContext c;
  BinaryContext(PartialTensorShape a, PartialTensorShape b)
      : c(node, RegisteredOp("TestBinaryShapes"), {std::move(a), std::move(b)}, {}) {}
};

// Runs the registered shape function of `node` (defaults added) on inputs.
Status Infer(NodeDef node, std::vector<PartialTensorShape> inputs,
             std::vector<PartialTensorShape>* outputs,
             std::vector<const Tensor*> tensors = {}) {
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(node.op());
  BOOST_REQUIRE(reg);
  AddDefaultsToNodeDef(reg->op_def, &node);
  return InferShapes(node, reg->op_def, reg->shape_fn, inputs, tensors, outputs);
}

NodeDef Typed(const std::string& name, const std::string& op, std::initializer_list<std::string> in,
              DataType t = DT_FLOAT) {
  NodeDef n = MakeNode(name, op, in);
  SetAttr(&n, "T", t);
  return n;
}

BOOST_AUTO_TEST_SUITE(inference_context)

BOOST_AUTO_TEST_CASE(context_resolves_types_and_starts_outputs_unknown) {
  BinaryContext b(Shape({2}), Shape({2}));
  BOOST_TEST(b.c.num_inputs() == 2);
  BOOST_TEST(b.c.num_outputs() == 1);
  BOOST_TEST((b.c.input_types() == DataTypeVector{DT_FLOAT, DT_FLOAT}));
  BOOST_TEST(b.c.output(0).unknown_rank());
  BOOST_TEST(b.c.input_tensor(1) == nullptr);
  DataType t;
  BOOST_TEST(b.c.GetAttr("T", &t).ok());
  BOOST_TEST(t == DT_FLOAT);
}

BOOST_AUTO_TEST_CASE(broadcasting_follows_numpy) {
  struct Case {
    PartialTensorShape a, b, want;
  };
  const std::vector<Case> cases = {
      {Shape({2, 3}), Shape({3}), Shape({2, 3})},
      {Shape({2, 1}), Shape({1, 4}), Shape({2, 4})},
      {Scalar(), Shape({5}), Shape({5})},
      {Shape({5, 1, 3}), Shape({4, 1}), Shape({5, 4, 3})},
      {Shape({-1, 3}), Shape({2, 1}), Shape({2, 3})},
      {Shape({-1}), Shape({-1}), Shape({-1})},
      {Shape({-1}), Shape({1}), Shape({-1})},
      {Shape({-1}), Shape({4}), Shape({4})},
      {Shape({0}), Shape({1}), Shape({0})},
      {Shape({0}), Shape({-1}), Shape({0})},
      {Unknown(), Shape({3}), Unknown()},
      {Shape({3}), Unknown(), Unknown()},
  };
  for (const auto& c : cases) {
    BinaryContext b(c.a, c.b);
    PartialTensorShape out;
    BOOST_TEST_CONTEXT(c.a << " vs " << c.b) {
      BOOST_TEST(b.c.BroadcastBinary(c.a, c.b, &out).ok());
      BOOST_TEST(out == c.want);
      BOOST_TEST(shape_fn::BroadcastBinaryOp(&b.c).ok());
      BOOST_TEST(b.c.output(0) == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(incompatible_broadcast_names_shapes_node_and_op) {
  BinaryContext b(Shape({2, 3}), Shape({4, 3}));
  Status s = shape_fn::BroadcastBinaryOp(&b.c);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "[2,3]"), s.message());
  BOOST_TEST(Contains(s.message(), "[4,3]"), s.message());
  BOOST_TEST(Contains(s.message(), "node 'bin'"), s.message());
  BOOST_TEST(Contains(s.message(), "TestBinaryShapes"), s.message());
}

BOOST_AUTO_TEST_CASE(rank_checks) {
  BinaryContext b(Shape({2, 3}), Unknown());
  PartialTensorShape out;
  BOOST_TEST(b.c.WithRank(0, 2, &out).ok());
  BOOST_TEST(out == Shape({2, 3}));
  BOOST_TEST(b.c.WithRank(1, 3, &out).ok());
  BOOST_TEST(out == Shape({-1, -1, -1}));
  Status s = b.c.WithRank(0, 1, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "node 'bin'"));
  BOOST_TEST(Contains(s.message(), "rank 1"));
  BOOST_TEST(b.c.WithRankAtLeast(0, 2, &out).ok());
  BOOST_TEST(b.c.WithRankAtLeast(0, 3, &out).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(b.c.WithRankAtLeast(1, 9, &out).ok());
  BOOST_TEST(out.unknown_rank());
  BOOST_TEST(b.c.WithRankAtMost(0, 2, &out).ok());
  BOOST_TEST(b.c.WithRankAtMost(0, 1, &out).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(b.c.WithRankAtMost(1, 0, &out).ok());
}

BOOST_AUTO_TEST_CASE(merge_keeps_the_most_specific_shape) {
  BinaryContext b(Unknown(), Unknown());
  PartialTensorShape out;
  BOOST_TEST(b.c.Merge(Shape({-1, 3}), Shape({2, -1}), &out).ok());
  BOOST_TEST(out == Shape({2, 3}));
  BOOST_TEST(b.c.Merge(Unknown(), Shape({4}), &out).ok());
  BOOST_TEST(out == Shape({4}));
  Status s = b.c.Merge(Shape({2}), Shape({3}), &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "node 'bin'"));
  BOOST_TEST(b.c.Merge(Shape({2}), Shape({2, 1}), &out).code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(shape_from_shape_tensor) {
  Tensor dims32 = Tensor::FromVector<int32_t>({2, -1, 4});
  Tensor dims64 = Tensor::FromVector<int64_t>({7});
  Tensor minus_one = Tensor::Scalar<int32_t>(-1);
  Tensor bad_scalar = Tensor::Scalar<int32_t>(3);
  Tensor floats = Tensor::FromVector<float>({1});
  Tensor too_negative = Tensor::FromVector<int32_t>({-2});
  Tensor matrix(DT_INT32, TensorShape{1, 1});
  NodeDef n = MakeNode("bin", "TestBinaryShapes", {"a", "b"});
  SetAttr(&n, "T", DT_INT32);
  const auto& op = RegisteredOp("TestBinaryShapes");
  auto shape_of = [&](const Tensor* t, PartialTensorShape input_shape,
                      PartialTensorShape* out) {
    InferenceContext c(n, op, {input_shape, Unknown()}, {t, nullptr});
    return c.MakeShapeFromShapeTensor(0, out);
  };
  PartialTensorShape out;
  BOOST_TEST(shape_of(&dims32, Shape({3}), &out).ok());
  BOOST_TEST(out == Shape({2, -1, 4}));
  BOOST_TEST(shape_of(&dims64, Shape({1}), &out).ok());
  BOOST_TEST(out == Shape({7}));
  BOOST_TEST(shape_of(nullptr, Shape({3}), &out).ok());
  BOOST_TEST(out == Shape({-1, -1, -1}));
  BOOST_TEST(shape_of(nullptr, Unknown(), &out).ok());
  BOOST_TEST(out.unknown_rank());
  BOOST_TEST(shape_of(&minus_one, Scalar(), &out).ok());
  BOOST_TEST(out.unknown_rank());
  BOOST_TEST(shape_of(&bad_scalar, Scalar(), &out).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(shape_of(&floats, Shape({1}), &out).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(shape_of(&too_negative, Shape({1}), &out).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(shape_of(&matrix, Shape({1, 1}), &out).code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(op_shape_functions)

BOOST_AUTO_TEST_CASE(matmul_with_transposes) {
  std::vector<PartialTensorShape> out;
  NodeDef mm = Typed("mm", "MatMul", {"a", "b"});
  BOOST_TEST(Infer(mm, {Shape({2, 3}), Shape({3, 4})}, &out).ok());
  BOOST_TEST(out[0] == Shape({2, 4}));
  BOOST_TEST(Infer(mm, {Shape({-1, 784}), Shape({784, 256})}, &out).ok());
  BOOST_TEST(out[0] == Shape({-1, 256}));
  BOOST_TEST(Infer(mm, {Unknown(), Shape({3, 4})}, &out).ok());
  BOOST_TEST(out[0] == Shape({-1, 4}));
  NodeDef ta = mm;
  SetAttr(&ta, "transpose_a", true);
  BOOST_TEST(Infer(ta, {Shape({3, 2}), Shape({3, 4})}, &out).ok());
  BOOST_TEST(out[0] == Shape({2, 4}));
  NodeDef tb = mm;
  SetAttr(&tb, "transpose_b", true);
  BOOST_TEST(Infer(tb, {Shape({2, 3}), Shape({4, 3})}, &out).ok());
  BOOST_TEST(out[0] == Shape({2, 4}));
  Status s = Infer(mm, {Shape({2, 3}), Shape({4, 5})}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "node 'mm' (op 'MatMul')"), s.message());
  BOOST_TEST(Contains(s.message(), "Matrix size-incompatible"), s.message());
  BOOST_TEST(Infer(mm, {Shape({2}), Shape({2, 2})}, &out).code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(bias_add_in_both_formats) {
  std::vector<PartialTensorShape> out;
  NodeDef nhwc = Typed("ba", "BiasAdd", {"v", "b"});
  BOOST_TEST(Infer(nhwc, {Shape({-1, 256}), Shape({256})}, &out).ok());
  BOOST_TEST(out[0] == Shape({-1, 256}));
  BOOST_TEST(Infer(nhwc, {Shape({2, -1}), Shape({8})}, &out).ok());
  BOOST_TEST(out[0] == Shape({2, 8}));
  BOOST_TEST(Infer(nhwc, {Unknown(), Shape({8})}, &out).ok());
  BOOST_TEST(out[0].unknown_rank());
  BOOST_TEST(Infer(nhwc, {Shape({2, 4}), Shape({8})}, &out).code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Infer(nhwc, {Shape({2, 8}), Shape({8, 1})}, &out).code() ==
             Code::INVALID_ARGUMENT);
  BOOST_TEST(Infer(nhwc, {Shape({8}), Shape({8})}, &out).code() == Code::INVALID_ARGUMENT);
  NodeDef nchw = nhwc;
  SetAttr(&nchw, "data_format", "NCHW");
  BOOST_TEST(Infer(nchw, {Shape({2, -1, 5, 5}), Shape({8})}, &out).ok());
  BOOST_TEST(out[0] == Shape({2, 8, 5, 5}));
  BOOST_TEST(Infer(nchw, {Shape({2, 4, 5, 5}), Shape({8})}, &out).code() ==
             Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(unary_and_binary_cwise_ops) {
  std::vector<PartialTensorShape> out;
  for (const char* op : {"Relu", "Neg", "Square", "Identity", "StopGradient", "Snapshot"}) {
    BOOST_TEST(Infer(Typed("u", op, {"x"}), {Shape({3, -1})}, &out).ok(), op);
    BOOST_TEST(out[0] == Shape({3, -1}), op);
  }
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum",
                         "Less", "GreaterEqual", "Equal"}) {
    BOOST_TEST(Infer(Typed("b", op, {"x", "y"}), {Shape({4, 1}), Shape({3})}, &out).ok(), op);
    BOOST_TEST(out[0] == Shape({4, 3}), op);
    BOOST_TEST(Infer(Typed("b", op, {"x", "y"}), {Shape({2}), Shape({3})}, &out).code() ==
                   Code::INVALID_ARGUMENT,
               op);
  }
  NodeDef logical = MakeNode("l", "LogicalAnd", {"x", "y"});
  BOOST_TEST(Infer(logical, {Scalar(), Shape({5})}, &out).ok());
  BOOST_TEST(out[0] == Shape({5}));
  NodeDef lenient = Typed("eq", "NotEqual", {"x", "y"});
  SetAttr(&lenient, "incompatible_shape_error", false);
  BOOST_TEST(Infer(lenient, {Shape({2}), Shape({3})}, &out).ok());
  BOOST_TEST(out[0].unknown_rank());
  BOOST_TEST(Infer(Typed("s", "Softmax", {"x"}), {Shape({2, 10})}, &out).ok());
  BOOST_TEST(out[0] == Shape({2, 10}));
  BOOST_TEST(Infer(Typed("s", "Softmax", {"x"}), {Scalar()}, &out).code() ==
             Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(add_n_merges_its_inputs) {
  std::vector<PartialTensorShape> out;
  NodeDef add_n = Typed("sum", "AddN", {"a", "b", "c"});
  SetAttr(&add_n, "N", 3);
  BOOST_TEST(Infer(add_n, {Shape({-1, 3}), Shape({2, -1}), Unknown()}, &out).ok());
  BOOST_TEST(out[0] == Shape({2, 3}));
  Status s = Infer(add_n, {Shape({2}), Shape({3}), Unknown()}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "node 'sum'"));
}

BOOST_AUTO_TEST_CASE(const_and_placeholders) {
  std::vector<PartialTensorShape> out;
  NodeDef c = MakeNode("w", "Const");
  SetAttr(&c, "dtype", DT_FLOAT);
  SetAttr(&c, "value", Tensor(DT_FLOAT, TensorShape{784, 256}));
  BOOST_TEST(Infer(c, {}, &out).ok());
  BOOST_TEST(out[0] == Shape({784, 256}));
  SetAttr(&c, "dtype", DT_INT32);
  Status mismatch = Infer(c, {}, &out);
  BOOST_TEST(mismatch.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(mismatch.message(), "node 'w' (op 'Const')"));

  NodeDef ph = MakeNode("x", "Placeholder");
  SetAttr(&ph, "dtype", DT_FLOAT);
  BOOST_TEST(Infer(ph, {}, &out).ok());
  BOOST_TEST(out[0].unknown_rank());
  SetAttr(&ph, "shape", Shape({-1, 784}));
  BOOST_TEST(Infer(ph, {}, &out).ok());
  BOOST_TEST(out[0] == Shape({-1, 784}));

  NodeDef pwd = MakeNode("p", "PlaceholderWithDefault", {"d"});
  SetAttr(&pwd, "dtype", DT_FLOAT);
  SetAttr(&pwd, "shape", Shape({-1, 3}));
  BOOST_TEST(Infer(pwd, {Shape({2, 3})}, &out).ok());
  BOOST_TEST(out[0] == Shape({-1, 3}));
  BOOST_TEST(Infer(pwd, {Shape({2, 4})}, &out).code() == Code::INVALID_ARGUMENT);

  NodeDef idn = MakeNode("ids", "IdentityN", {"a", "b"});
  SetAttr(&idn, "T", std::vector<DataType>{DT_FLOAT, DT_INT32});
  BOOST_TEST(Infer(idn, {Shape({1}), Scalar()}, &out).ok());
  BOOST_REQUIRE(out.size() == 2u);
  BOOST_TEST(out[0] == Shape({1}));
  BOOST_TEST(out[1] == Scalar());
}

BOOST_AUTO_TEST_CASE(control_flow_shapes) {
  std::vector<PartialTensorShape> out;
  NodeDef sw = Typed("sw", "Switch", {"d", "p"});
  BOOST_TEST(Infer(sw, {Shape({2, 3}), Scalar()}, &out).ok());
  BOOST_REQUIRE(out.size() == 2u);
  BOOST_TEST(out[0] == Shape({2, 3}));
  BOOST_TEST(out[1] == Shape({2, 3}));
  BOOST_TEST(Infer(sw, {Shape({2, 3}), Shape({1})}, &out).code() == Code::INVALID_ARGUMENT);

  NodeDef merge = Typed("m", "Merge", {"a", "b"});
  SetAttr(&merge, "N", 2);
  BOOST_TEST(Infer(merge, {Shape({2, 3}), Shape({2, 4})}, &out).ok());
  BOOST_TEST(out[0] == Shape({2, -1}));
  BOOST_TEST(out[1] == Scalar());
  BOOST_TEST(Infer(merge, {Shape({2, 3}), Shape({2})}, &out).ok());
  BOOST_TEST(out[0].unknown_rank());
  BOOST_TEST(Infer(merge, {Shape({5}), Unknown()}, &out).ok());
  BOOST_TEST(out[0].unknown_rank());

  NodeDef enter = Typed("e", "Enter", {"x"});
  SetAttr(&enter, "frame_name", "loop");
  BOOST_TEST(Infer(enter, {Shape({4})}, &out).ok());
  BOOST_TEST(out[0] == Shape({4}));
  for (const char* op : {"Exit", "NextIteration"}) {
    BOOST_TEST(Infer(Typed("x", op, {"x"}), {Shape({4})}, &out).ok());
    BOOST_TEST(out[0] == Shape({4}));
  }
  NodeDef cond = MakeNode("c", "LoopCond", {"x"});
  BOOST_TEST(Infer(cond, {Unknown()}, &out).ok());
  BOOST_TEST(out[0] == Scalar());
  BOOST_TEST(Infer(cond, {Shape({2})}, &out).code() == Code::INVALID_ARGUMENT);

  NodeDef recv = MakeNode("r", "_Recv");
  SetAttr(&recv, "tensor_type", DT_FLOAT);
  SetAttr(&recv, "tensor_name", "edge_1");
  SetAttr(&recv, "send_device", "/device:CPU:0");
  SetAttr(&recv, "send_device_incarnation", 1);
  SetAttr(&recv, "recv_device", "/device:CPU:1");
  BOOST_TEST(Infer(recv, {}, &out).ok());
  BOOST_TEST(out[0].unknown_rank());
  BOOST_TEST(Infer(MakeNode("n", "NoOp"), {}, &out).ok());
  BOOST_TEST(out.empty());
}

BOOST_AUTO_TEST_CASE(infer_shapes_checks_arity_and_names_the_node) {
  std::vector<PartialTensorShape> out;
  NodeDef mm = Typed("mm", "MatMul", {"a", "b"});
  Status arity = Infer(mm, {Shape({2, 2})}, &out);
  BOOST_TEST(arity.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(arity.message(), "node 'mm'"));
  Tensor t = Tensor::Scalar<float>(1);
  BOOST_TEST(Infer(mm, {Shape({2, 2}), Shape({2, 2})}, &out, {&t, &t, &t}).code() ==
             Code::INVALID_ARGUMENT);

  Status raw = Infer(MakeNode("f", "TestFailingShapeFn"), {}, &out);
  BOOST_TEST(raw.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(raw.message() == "node 'f' (op 'TestFailingShapeFn'): raw failure");

  // Without a shape function every output is unknown.
  NodeDef bin = Typed("bin", "TestBinaryShapes", {"a", "b"});
  BOOST_TEST(InferShapes(bin, RegisteredOp("TestBinaryShapes"), ShapeFn(),
                         {Shape({1}), Shape({1})}, {}, &out)
                 .ok());
  BOOST_REQUIRE(out.size() == 1u);
  BOOST_TEST(out[0].unknown_rank());

  NodeDef untyped = MakeNode("bin", "TestBinaryShapes", {"a", "b"});
  BOOST_TEST(!InferShapes(untyped, RegisteredOp("TestBinaryShapes"), ShapeFn(),
                          {Shape({1}), Shape({1})}, {}, &out)
                  .ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
