// Helpers for the tests of the step passes (prune, cost model, placer,
// partition): a private op registry with TensorFlow's signatures for the
// ops these graphs use, a kernel registry with placeholder kernels, and
// small GraphDef-text builders.
#pragma once

#include <boost/test/unit_test.hpp>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_registry.h"
#include "core/shape_inference.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "tests/test_util.h"

namespace af::pass_testing {

inline const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
inline const std::string kCpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
inline const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";

using testing::Contains;

// Const's output shape is the shape of its "value" attr.
inline Status ConstShape(InferenceContext* c) {
  const tensorflow::TensorProto* value = nullptr;
  AF_RETURN_IF_ERROR(c->GetAttr("value", &value));
  PartialTensorShape shape({});
  for (const auto& dim : value->tensor_shape().dim()) shape.AddDim(dim.size());
  c->set_output(0, shape);
  return Status::OK();
}

// Ops with TensorFlow's signatures, in a registry of their own so that the
// tests do not depend on what core/ops defines.
inline const OpRegistry* PassTestRegistry() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    auto reg = [r](const OpDefBuilder& b) {
      Status s = r->Register(b);
      if (!s.ok()) throw std::runtime_error(s.ToString());
    };
    reg(OpDefBuilder("Placeholder").Output("output: dtype").Attr("dtype: type"));
    reg(OpDefBuilder("Const")
            .Output("output: dtype")
            .Attr("value: tensor")
            .Attr("dtype: type")
            .SetShapeFn(ConstShape));
    reg(OpDefBuilder("Identity")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: type")
            .SetShapeFn(shape_fn::UnchangedShape));
    reg(OpDefBuilder("NoOp"));
    reg(OpDefBuilder("Add")
            .Input("x: T")
            .Input("y: T")
            .Output("z: T")
            .Attr("T: {float, double, int32, int64}")
            .SetShapeFn(shape_fn::BroadcastBinaryOp));
    reg(OpDefBuilder("Less")
            .Input("x: T")
            .Input("y: T")
            .Output("z: bool")
            .Attr("T: {float, double, int32, int64}")
            .SetShapeFn(shape_fn::BroadcastBinaryOp));
    reg(OpDefBuilder("MatMul")
            .Input("a: T")
            .Input("b: T")
            .Output("product: T")
            .Attr("transpose_a: bool = false")
            .Attr("transpose_b: bool = false")
            .Attr("T: {half, bfloat16, float, double, int32, int64}")
            .SetShapeFn(shape_fn::MatMulShape));
    reg(OpDefBuilder("_Arg")
            .Output("output: T")
            .Attr("T: type")
            .Attr("index: int >= 0")
            .SetIsStateful());
    reg(OpDefBuilder("_Retval")
            .Input("input: T")
            .Attr("T: type")
            .Attr("index: int >= 0")
            .SetIsStateful());
    reg(OpDefBuilder("_Send")
            .Input("tensor: T")
            .Attr("T: type")
            .Attr("tensor_name: string")
            .Attr("send_device: string")
            .Attr("send_device_incarnation: int")
            .Attr("recv_device: string")
            .Attr("client_terminated: bool = false")
            .SetIsStateful());
    reg(OpDefBuilder("_Recv")
            .Output("tensor: tensor_type")
            .Attr("tensor_type: type")
            .Attr("tensor_name: string")
            .Attr("send_device: string")
            .Attr("send_device_incarnation: int")
            .Attr("recv_device: string")
            .Attr("client_terminated: bool = false")
            .SetIsStateful());
    reg(OpDefBuilder("VariableV2")
            .Output("ref: Ref(dtype)")
            .Attr("shape: shape")
            .Attr("dtype: type")
            .Attr("container: string = ''")
            .Attr("shared_name: string = ''")
            .SetIsStateful()
            .SetShapeFn(shape_fn::ShapeFromShapeAttr));
    reg(OpDefBuilder("Assign")
            .Input("ref: Ref(T)")
            .Input("value: T")
            .Output("output_ref: Ref(T)")
            .Attr("T: type")
            .Attr("validate_shape: bool = true")
            .Attr("use_locking: bool = true")
            .SetAllowsUninitializedInput()
            .SetShapeFn(shape_fn::UnchangedShape));
    reg(OpDefBuilder("Enter")
            .Input("data: T")
            .Output("output: T")
            .Attr("T: type")
            .Attr("frame_name: string")
            .Attr("is_constant: bool = false")
            .Attr("parallel_iterations: int = 10"));
    reg(OpDefBuilder("Merge")
            .Input("inputs: N * T")
            .Output("output: T")
            .Output("value_index: int32")
            .Attr("T: type")
            .Attr("N: int >= 1"));
    reg(OpDefBuilder("Switch")
            .Input("data: T")
            .Input("pred: bool")
            .Output("output_false: T")
            .Output("output_true: T")
            .Attr("T: type"));
    reg(OpDefBuilder("LoopCond").Input("input: bool").Output("output: bool"));
    reg(OpDefBuilder("NextIteration").Input("data: T").Output("output: T").Attr("T: type"));
    reg(OpDefBuilder("Exit").Input("data: T").Output("output: T").Attr("T: type"));
    // Test ops whose kernels exist for one device type only.
    reg(OpDefBuilder("TestCpuOnly").Input("x: float").Output("y: float"));
    reg(OpDefBuilder("TestGpuOnly").Input("x: float").Output("y: float"));
    reg(OpDefBuilder("TestNoKernel").Input("x: float").Output("y: float"));
    return r;
  }();
  return registry;
}

// Placeholder kernels (never instantiated): every op of PassTestRegistry
// on CPU and GPU, except TestCpuOnly (CPU), TestGpuOnly (GPU) and
// TestNoKernel (none).
inline const KernelRegistry* PassTestKernels() {
  static KernelRegistry* kernels = [] {
    auto* k = new KernelRegistry();
    auto none = [](OpKernelConstruction*) -> OpKernel* { return nullptr; };
    for (const std::string& op : PassTestRegistry()->ListOps()) {
      if (op == "TestNoKernel") continue;
      if (op != "TestGpuOnly") k->Register(KernelDefBuilder(op).Device(DEVICE_CPU), none);
      if (op != "TestCpuOnly") k->Register(KernelDefBuilder(op).Device(DEVICE_GPU), none);
    }
    return k;
  }();
  return kernels;
}

// NodeDef text builders.
inline std::string TypeAttr(const std::string& key, const std::string& dtype) {
  return "attr { key: '" + key + "' value { type: " + dtype + " } } ";
}
inline std::string StringAttr(const std::string& key, const std::string& value) {
  return "attr { key: '" + key + "' value { s: '" + value + "' } } ";
}
inline std::string BoolAttr(const std::string& key, bool value) {
  return "attr { key: '" + key + "' value { b: " + (value ? "true" : "false") + " } } ";
}
inline std::string Device(const std::string& device) { return "device: '" + device + "' "; }
inline std::string ColocateWith(const std::string& node) {
  return "attr { key: '_class' value { list { s: 'loc:@" + node + "' } } } ";
}

// A node of `op` with inputs and extra fields/attrs (already text).
inline std::string NodeText(const std::string& name, const std::string& op,
                            std::initializer_list<std::string> inputs = {},
                            const std::string& extra = "") {
  std::string s = "node { name: '" + name + "' op: '" + op + "' ";
  for (const std::string& in : inputs) s += "input: '" + in + "' ";
  return s + extra + "} ";
}
inline std::string NodeT(const std::string& name, const std::string& op,
                         std::initializer_list<std::string> inputs,
                         const std::string& dtype = "DT_FLOAT", const std::string& extra = "") {
  return NodeText(name, op, inputs, TypeAttr("T", dtype) + extra);
}
inline std::string Placeholder(const std::string& name, const std::string& dtype = "DT_FLOAT",
                               const std::string& extra = "") {
  return NodeText(name, "Placeholder", {}, TypeAttr("dtype", dtype) + extra);
}
// A Const of the given shape (values left out: only shapes matter here).
inline std::string ConstOfShape(const std::string& name, std::initializer_list<int64_t> dims,
                                const std::string& dtype = "DT_FLOAT",
                                const std::string& extra = "") {
  std::string shape = "tensor_shape { ";
  for (int64_t d : dims) shape += "dim { size: " + std::to_string(d) + " } ";
  shape += "} ";
  return NodeText(name, "Const", {},
                  TypeAttr("dtype", dtype) + "attr { key: 'value' value { tensor { dtype: " +
                      dtype + " " + shape + "} } } " + extra);
}
inline std::string ScalarInt(const std::string& name, int value,
                             std::initializer_list<std::string> inputs = {}) {
  return NodeText(name, "Const", inputs,
                  TypeAttr("dtype", "DT_INT32") +
                      "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { } "
                      "int_val: " +
                      std::to_string(value) + " } } } ");
}

// `while (i < 10) i = i + 1` in TensorFlow's raw form, frame "loop";
// `prefix` is prepended to every node name. The loop's result is
// "<prefix>exit".
inline std::string CounterLoop(const std::string& p = "") {
  return ScalarInt(p + "init", 0) + ScalarInt(p + "limit", 10) +
         NodeT(p + "enter", "Enter", {p + "init"}, "DT_INT32",
               StringAttr("frame_name", p + "loop")) +
         NodeT(p + "limit_enter", "Enter", {p + "limit"}, "DT_INT32",
               StringAttr("frame_name", p + "loop") + BoolAttr("is_constant", true)) +
         NodeT(p + "merge", "Merge", {p + "enter", p + "next"}, "DT_INT32",
               "attr { key: 'N' value { i: 2 } } ") +
         NodeT(p + "less", "Less", {p + "merge", p + "limit_enter"}, "DT_INT32") +
         NodeText(p + "cond", "LoopCond", {p + "less"}) +
         NodeT(p + "switch", "Switch", {p + "merge", p + "cond"}, "DT_INT32") +
         NodeT(p + "body", "Identity", {p + "switch:1"}, "DT_INT32") +
         ScalarInt(p + "one", 1, {"^" + p + "body"}) +
         NodeT(p + "add", "Add", {p + "body", p + "one"}, "DT_INT32") +
         NodeT(p + "next", "NextIteration", {p + "add"}, "DT_INT32") +
         NodeT(p + "exit", "Exit", {p + "switch"}, "DT_INT32");
}

inline tensorflow::GraphDef ParseText(const std::string& text) {
  tensorflow::GraphDef def;
  Status s = ParseGraphDefBytes(text, /*text=*/true, &def);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return def;
}

// Imports GraphDef text into `g` (which uses PassTestRegistry()); fails the
// test on error.
inline void Build(const std::string& text, Graph* g) {
  Status s = ImportGraphDef(ParseText(text), g);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
}

inline std::vector<std::string> NodeNames(const Graph& g) {
  std::vector<std::string> names;
  for (const af::Node* n : g.nodes()) names.push_back(n->name());
  return names;
}

inline bool HasNode(const Graph& g, const std::string& name) { return g.FindNode(name) != nullptr; }

}  // namespace af::pass_testing
