// Helpers shared by the graph tests: GraphDefs written as protobuf text,
// the real graphs under tests/data, and a private registry of the
// control-flow and ref ops the hand-built graphs need.
#pragma once

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/op_registry.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "tests/test_util.h"

namespace af::testing {

inline std::string DataPath(const std::string& file) {
  return std::string(AF_TEST_DATA_DIR) + "/" + file;
}

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot open " << path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline tensorflow::GraphDef ParseText(const std::string& text) {
  tensorflow::GraphDef def;
  Status s = ParseGraphDefBytes(text, /*text=*/true, &def);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return def;
}

inline Status ImportText(const std::string& text, Graph* g, const ImportOptions& options = {}) {
  return ImportGraphDef(ParseText(text), g, options);
}

// NodeDef text for the common cases, to keep test graphs readable.
inline std::string TypeAttr(const std::string& key, const std::string& dtype) {
  return "attr { key: '" + key + "' value { type: " + dtype + " } } ";
}
inline std::string Placeholder(const std::string& name, const std::string& dtype = "DT_FLOAT") {
  return "node { name: '" + name + "' op: 'Placeholder' " + TypeAttr("dtype", dtype) + "} ";
}
// A node with type attr T and the given inputs (each already quoted-free).
inline std::string OpT(const std::string& name, const std::string& op,
                       std::initializer_list<std::string> inputs,
                       const std::string& dtype = "DT_FLOAT", const std::string& extra = "") {
  std::string s = "node { name: '" + name + "' op: '" + op + "' ";
  for (const std::string& in : inputs) s += "input: '" + in + "' ";
  return s + TypeAttr("T", dtype) + extra + "} ";
}

// Ops registered in a registry of their own, so these tests do not depend
// on which ops core/ops happens to define. Signatures follow TensorFlow's.
inline const OpRegistry* ControlFlowTestRegistry() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    auto reg = [r](const OpDefBuilder& b) {
      Status s = r->Register(b);
      if (!s.ok()) throw std::runtime_error(s.ToString());
    };
    reg(OpDefBuilder("Placeholder").Output("output: dtype").Attr("dtype: type"));
    reg(OpDefBuilder("Identity").Input("input: T").Output("output: T").Attr("T: type"));
    reg(OpDefBuilder("NoOp"));
    reg(OpDefBuilder("Add").Input("x: T").Input("y: T").Output("z: T").Attr("T: {float, int32}"));
    reg(OpDefBuilder("Less").Input("x: T").Input("y: T").Output("z: bool").Attr("T: {float, int32}"));
    reg(OpDefBuilder("Enter")
            .Input("data: T").Output("output: T").Attr("T: type").Attr("frame_name: string")
            .Attr("is_constant: bool = false").Attr("parallel_iterations: int = 10"));
    reg(OpDefBuilder("Merge")
            .Input("inputs: N * T").Output("output: T").Output("value_index: int32")
            .Attr("T: type").Attr("N: int >= 1"));
    reg(OpDefBuilder("Switch")
            .Input("data: T").Input("pred: bool").Output("output_false: T")
            .Output("output_true: T").Attr("T: type"));
    reg(OpDefBuilder("LoopCond").Input("input: bool").Output("output: bool"));
    reg(OpDefBuilder("NextIteration").Input("data: T").Output("output: T").Attr("T: type"));
    reg(OpDefBuilder("Exit").Input("data: T").Output("output: T").Attr("T: type"));
    // A variable-like ref producer and consumers of refs and of values.
    reg(OpDefBuilder("TestRefSource").Output("ref: Ref(float)").SetIsStateful());
    reg(OpDefBuilder("TestRefSink").Input("ref: Ref(float)"));
    reg(OpDefBuilder("TestValueSink").Input("value: float"));
    return r;
  }();
  return registry;
}

}  // namespace af::testing
