// The neural-network ops' definitions (signatures, attrs, defaults) match
// TensorFlow's, and their shape functions compute what the kernels produce.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "core/shape_inference.h"
#include "registry_test_util.h"

namespace af {
namespace {

using tensorflow::NodeDef;
using tensorflow::OpDef;
using test::Contains;
using test::MakeNode;
using test::RegisteredOp;

const OpDef::AttrDef* Attr(const OpDef& op, const std::string& name) {
  for (const auto& a : op.attr())
    if (a.name() == name) return &a;
  return nullptr;
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

BOOST_AUTO_TEST_CASE(nn_signatures_match_tensorflow) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"Relu6", "features:T->activations:T"},
      {"Elu", "features:T->activations:T"},
      {"Selu", "features:T->activations:T"},
      {"Softplus", "features:T->activations:T"},
      {"LogSoftmax", "logits:T->logsoftmax:T"},
      {"ReluGrad", "gradients:T,features:T->backprops:T"},
      {"Relu6Grad", "gradients:T,features:T->backprops:T"},
      {"EluGrad", "gradients:T,outputs:T->backprops:T"},
      {"SeluGrad", "gradients:T,outputs:T->backprops:T"},
      {"SoftplusGrad", "gradients:T,features:T->backprops:T"},
      {"BiasAddGrad", "out_backprop:T->output:T"},
      {"L2Loss", "t:T->output:T"},
      {"Conv2D", "input:T,filter:T->output:T"},
      {"Conv2DBackpropInput", "input_sizes:int32,filter:T,out_backprop:T->output:T"},
      {"Conv2DBackpropFilter", "input:T,filter_sizes:int32,out_backprop:T->output:T"},
      {"MaxPool", "input:T->output:T"},
      {"MaxPoolGrad", "orig_input:T,orig_output:T,grad:T->output:T"},
      {"AvgPool", "value:T->output:T"},
      {"AvgPoolGrad", "orig_input_shape:int32,grad:T->output:T"},
      {"SoftmaxCrossEntropyWithLogits", "features:T,labels:T->loss:T,backprop:T"},
      {"SparseSoftmaxCrossEntropyWithLogits", "features:T,labels:Tlabels->loss:T,backprop:T"},
      {"FusedBatchNorm",
       "x:T,scale:T,offset:T,mean:T,variance:T->y:T,batch_mean:T,batch_variance:T,"
       "reserve_space_1:T,reserve_space_2:T"},
      {"FusedBatchNormV3",
       "x:T,scale:U,offset:U,mean:U,variance:U->y:T,batch_mean:U,batch_variance:U,"
       "reserve_space_1:U,reserve_space_2:U,reserve_space_3:U"},
      {"FusedBatchNormGrad",
       "y_backprop:T,x:T,scale:T,reserve_space_1:T,reserve_space_2:T->x_backprop:T,"
       "scale_backprop:T,offset_backprop:T,reserve_space_3:T,reserve_space_4:T"},
      {"FusedBatchNormGradV3",
       "y_backprop:T,x:T,scale:float,reserve_space_1:U,reserve_space_2:U,reserve_space_3:U->"
       "x_backprop:T,scale_backprop:U,offset_backprop:U,reserve_space_4:U,reserve_space_5:U"},
  };
  for (const auto& [name, sig] : expected) {
    BOOST_TEST_CONTEXT("op " << name) {
      BOOST_TEST(Signature(RegisteredOp(name)) == sig);
      BOOST_TEST(static_cast<bool>(OpRegistry::Global()->LookUp(name)->shape_fn));
      BOOST_TEST(!RegisteredOp(name).is_stateful());
    }
  }
}

BOOST_AUTO_TEST_CASE(nn_attrs_and_defaults_match_tensorflow) {
  for (const char* op : {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"}) {
    BOOST_TEST_CONTEXT(op) {
      const OpDef& def = RegisteredOp(op);
      BOOST_TEST(!Attr(def, "strides")->has_default_value());
      BOOST_TEST(Attr(def, "use_cudnn_on_gpu")->default_value().b() == true);
      BOOST_TEST(Attr(def, "padding")->allowed_values().list().s_size() == 3);
      BOOST_TEST(Attr(def, "explicit_paddings")->default_value().list().i_size() == 0);
      BOOST_TEST(Attr(def, "data_format")->default_value().s() == "NHWC");
      BOOST_TEST(Attr(def, "dilations")->default_value().list().i_size() == 4);
    }
  }
  for (const char* op : {"MaxPool", "MaxPoolGrad", "AvgPool", "AvgPoolGrad"}) {
    BOOST_TEST_CONTEXT(op) {
      const OpDef& def = RegisteredOp(op);
      BOOST_TEST(Attr(def, "ksize")->minimum() == 4);
      BOOST_TEST(Attr(def, "strides")->minimum() == 4);
      BOOST_TEST(Attr(def, "data_format")->default_value().s() == "NHWC");
    }
  }
  BOOST_TEST(Attr(RegisteredOp("MaxPool"), "T")->default_value().type() == tensorflow::DT_FLOAT);
  BOOST_TEST(Attr(RegisteredOp("AvgPool"), "padding")->allowed_values().list().s_size() == 2);
  BOOST_TEST(Attr(RegisteredOp("SparseSoftmaxCrossEntropyWithLogits"), "Tlabels")
                 ->default_value()
                 .type() == tensorflow::DT_INT64);
  for (const char* op :
       {"FusedBatchNorm", "FusedBatchNormV3", "FusedBatchNormGrad", "FusedBatchNormGradV3"}) {
    BOOST_TEST_CONTEXT(op) {
      const OpDef& def = RegisteredOp(op);
      BOOST_CHECK_CLOSE(Attr(def, "epsilon")->default_value().f(), 0.0001f, 1e-4);
      BOOST_TEST(Attr(def, "is_training")->default_value().b() == true);
      BOOST_TEST(Attr(def, "data_format")->default_value().s() == "NHWC");
    }
  }
  BOOST_TEST(
      Attr(RegisteredOp("FusedBatchNormV3"), "exponential_avg_factor")->default_value().f() ==
      1.0f);
  BOOST_TEST(
      Attr(RegisteredOp("FusedBatchNormV3"), "data_format")->allowed_values().list().s_size() == 4);
  BOOST_TEST(Attr(RegisteredOp("BiasAddGrad"), "data_format")->default_value().s() == "NHWC");
}

PartialTensorShape Shape(std::initializer_list<int64_t> dims) { return PartialTensorShape(dims); }

Status Infer(NodeDef node, std::vector<PartialTensorShape> inputs,
             std::vector<PartialTensorShape>* outputs, std::vector<const Tensor*> tensors = {}) {
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(node.op());
  BOOST_REQUIRE(reg);
  AddDefaultsToNodeDef(reg->op_def, &node);
  return InferShapes(node, reg->op_def, reg->shape_fn, inputs, tensors, outputs);
}

NodeDef Conv(const std::string& op, std::vector<int64_t> strides, const std::string& padding) {
  NodeDef n = MakeNode("conv", op, {"a", "b", "c"});
  if (op == "Conv2D") n = MakeNode("conv", op, {"a", "b"});
  SetAttr(&n, "T", DT_FLOAT);
  SetAttr(&n, "strides", strides);
  SetAttr(&n, "padding", padding);
  return n;
}

BOOST_AUTO_TEST_CASE(conv2d_shapes) {
  std::vector<PartialTensorShape> out;
  NodeDef same = Conv("Conv2D", {1, 2, 2, 1}, "SAME");
  BOOST_TEST(Infer(same, {Shape({64, 28, 27, 3}), Shape({5, 5, 3, 32})}, &out).ok());
  BOOST_TEST(out[0] == Shape({64, 14, 14, 32}));
  NodeDef valid = Conv("Conv2D", {1, 2, 2, 1}, "VALID");
  BOOST_TEST(Infer(valid, {Shape({-1, 28, 27, 3}), Shape({5, 5, 3, 32})}, &out).ok());
  BOOST_TEST(out[0] == Shape({-1, 12, 12, 32}));
  NodeDef dilated = Conv("Conv2D", {1, 1, 1, 1}, "VALID");
  SetAttr(&dilated, "dilations", std::vector<int64_t>{1, 2, 3, 1});
  BOOST_TEST(Infer(dilated, {Shape({1, 10, 10, 1}), Shape({3, 3, 1, 1})}, &out).ok());
  BOOST_TEST(out[0] == Shape({1, 6, 4, 1}));
  NodeDef nchw = Conv("Conv2D", {1, 1, 2, 2}, "SAME");
  SetAttr(&nchw, "data_format", "NCHW");
  BOOST_TEST(Infer(nchw, {Shape({2, 3, 7, 6}), Shape({3, 3, 3, 4})}, &out).ok());
  BOOST_TEST(out[0] == Shape({2, 4, 4, 3}));
  NodeDef expl = Conv("Conv2D", {1, 1, 1, 1}, "EXPLICIT");
  SetAttr(&expl, "explicit_paddings", std::vector<int64_t>{0, 0, 1, 2, 0, 1, 0, 0});
  BOOST_TEST(Infer(expl, {Shape({1, 6, 5, 2}), Shape({3, 3, 2, 2})}, &out).ok());
  BOOST_TEST(out[0] == Shape({1, 7, 4, 2}));

  Status bad = Infer(same, {Shape({1, 8, 8, 3}), Shape({3, 3, 4, 2})}, &out);
  BOOST_TEST(bad.code() == Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(Contains(bad.message(), "conv") && Contains(bad.message(), "same depth"),
                      bad.ToString());
  NodeDef valid_s1 = Conv("Conv2D", {1, 1, 1, 1}, "VALID");
  Status small = Infer(valid_s1, {Shape({1, 3, 8, 3}), Shape({5, 5, 3, 2})}, &out);
  BOOST_CHECK_MESSAGE(Contains(small.message(), "output size would be negative"), small.ToString());
}

BOOST_AUTO_TEST_CASE(conv2d_gradient_shapes_come_from_the_sizes_input) {
  std::vector<PartialTensorShape> out;
  Tensor sizes = Tensor::FromVector<int32_t>({8, 28, 28, 1});
  NodeDef bin = Conv("Conv2DBackpropInput", {1, 1, 1, 1}, "SAME");
  BOOST_TEST(Infer(bin, {Shape({4}), Shape({5, 5, 1, 32}), Shape({8, 28, 28, 32})}, &out,
                   {&sizes, nullptr, nullptr})
                 .ok());
  BOOST_TEST(out[0] == Shape({8, 28, 28, 1}));
  BOOST_TEST(Infer(bin, {Shape({4}), Shape({5, 5, 1, 32}), Shape({8, 28, 28, 32})}, &out).ok());
  BOOST_TEST(out[0] == PartialTensorShape::UnknownOfRank(4));
  Tensor spatial = Tensor::FromVector<int32_t>({28, 28});
  BOOST_TEST(Infer(bin, {Shape({2}), Shape({5, 5, 1, 32}), Shape({8, 28, 28, 32})}, &out,
                   {&spatial, nullptr, nullptr})
                 .ok());
  BOOST_TEST(out[0] == Shape({8, 28, 28, 1}));

  Tensor fsizes = Tensor::FromVector<int32_t>({5, 5, 1, 32});
  NodeDef bfl = Conv("Conv2DBackpropFilter", {1, 1, 1, 1}, "SAME");
  BOOST_TEST(Infer(bfl, {Shape({8, 28, 28, 1}), Shape({4}), Shape({8, 28, 28, 32})}, &out,
                   {nullptr, &fsizes, nullptr})
                 .ok());
  BOOST_TEST(out[0] == Shape({5, 5, 1, 32}));
}

BOOST_AUTO_TEST_CASE(pool_shapes) {
  std::vector<PartialTensorShape> out;
  NodeDef pool = MakeNode("pool", "MaxPool", {"x"});
  SetAttr(&pool, "T", DT_FLOAT);
  SetAttr(&pool, "ksize", std::vector<int64_t>{1, 2, 2, 1});
  SetAttr(&pool, "strides", std::vector<int64_t>{1, 2, 2, 1});
  SetAttr(&pool, "padding", "SAME");
  BOOST_TEST(Infer(pool, {Shape({64, 27, 28, 32})}, &out).ok());
  BOOST_TEST(out[0] == Shape({64, 14, 14, 32}));
  NodeDef avg = pool;
  avg.set_op("AvgPool");
  SetAttr(&avg, "padding", "VALID");
  BOOST_TEST(Infer(avg, {Shape({-1, 27, 28, 32})}, &out).ok());
  BOOST_TEST(out[0] == Shape({-1, 13, 14, 32}));
  NodeDef grad = MakeNode("pool_grad", "MaxPoolGrad", {"a", "b", "c"});
  SetAttr(&grad, "T", DT_FLOAT);
  SetAttr(&grad, "ksize", std::vector<int64_t>{1, 2, 2, 1});
  SetAttr(&grad, "strides", std::vector<int64_t>{1, 2, 2, 1});
  SetAttr(&grad, "padding", "SAME");
  BOOST_TEST(
      Infer(grad, {Shape({2, 5, 5, 3}), Shape({2, 3, 3, 3}), Shape({2, 3, 3, 3})}, &out).ok());
  BOOST_TEST(out[0] == Shape({2, 5, 5, 3}));
}

BOOST_AUTO_TEST_CASE(loss_and_norm_shapes) {
  std::vector<PartialTensorShape> out;
  NodeDef xent = MakeNode("xent", "SoftmaxCrossEntropyWithLogits", {"a", "b"});
  SetAttr(&xent, "T", DT_FLOAT);
  BOOST_TEST(Infer(xent, {Shape({-1, 10}), Shape({64, 10})}, &out).ok());
  BOOST_TEST(out[0] == Shape({64}));
  BOOST_TEST(out[1] == Shape({64, 10}));
  BOOST_TEST(Infer(xent, {Shape({2, 3}), Shape({3, 3})}, &out).code() == Code::INVALID_ARGUMENT);

  NodeDef sparse = MakeNode("sxent", "SparseSoftmaxCrossEntropyWithLogits", {"a", "b"});
  SetAttr(&sparse, "T", DT_FLOAT);
  SetAttr(&sparse, "Tlabels", DT_INT32);
  BOOST_TEST(Infer(sparse, {Shape({-1, 10}), Shape({64})}, &out).ok());
  BOOST_TEST(out[0] == Shape({64}));
  BOOST_TEST(out[1] == Shape({64, 10}));
  BOOST_TEST(Infer(sparse, {Shape({8, 10}), Shape({64})}, &out).code() == Code::INVALID_ARGUMENT);

  NodeDef bn = MakeNode("bn", "FusedBatchNormV3", {"x", "s", "o", "m", "v"});
  SetAttr(&bn, "T", DT_FLOAT);
  SetAttr(&bn, "U", DT_FLOAT);
  BOOST_TEST(
      Infer(bn, {Shape({8, 5, 5, -1}), Shape({16}), Shape({16}), Shape({0}), Shape({0})}, &out)
          .ok());
  BOOST_TEST(out[0] == Shape({8, 5, 5, 16}));
  BOOST_TEST(out[1] == Shape({16}));
  BOOST_TEST(out.size() == 6u);
  SetAttr(&bn, "is_training", false);
  BOOST_TEST(
      Infer(bn, {Shape({8, 5, 5, 16}), Shape({16}), Shape({16}), Shape({0}), Shape({0})}, &out)
          .code() == Code::INVALID_ARGUMENT);

  NodeDef l2 = MakeNode("l2", "L2Loss", {"t"});
  SetAttr(&l2, "T", DT_FLOAT);
  BOOST_TEST(Infer(l2, {Shape({3, 4})}, &out).ok());
  BOOST_TEST(out[0] == PartialTensorShape(TensorShape{}));

  NodeDef bias = MakeNode("bias_grad", "BiasAddGrad", {"g"});
  SetAttr(&bias, "T", DT_FLOAT);
  BOOST_TEST(Infer(bias, {Shape({8, 5, 5, 7})}, &out).ok());
  BOOST_TEST(out[0] == Shape({7}));
  SetAttr(&bias, "data_format", "NCHW");
  BOOST_TEST(Infer(bias, {Shape({8, 3, 5, 7})}, &out).ok());
  BOOST_TEST(out[0] == Shape({3}));
}

}  // namespace
}  // namespace af
