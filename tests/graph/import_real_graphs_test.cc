// The three frozen graphs exported by TensorFlow (tests/data/README.md):
// they import, their shapes infer, and export/import round-trips them.
#include <boost/test/unit_test.hpp>

#include <google/protobuf/util/message_differencer.h>

#include <map>
#include <set>

#include "graph/algorithm.h"
#include "graph_test_util.h"

namespace af {
namespace {

using testing::DataPath;

struct Loaded {
  tensorflow::GraphDef def;
  std::unique_ptr<Graph> graph = std::make_unique<Graph>();
};

Loaded Load(const std::string& file) {
  Loaded l;
  Status s = ReadGraphDefFile(DataPath(file), &l.def);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  s = ImportGraphDef(l.def, l.graph.get());
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return l;
}

std::map<std::string, int> OpCounts(const Graph& g) {
  std::map<std::string, int> counts;
  for (const Node* n : g.nodes()) ++counts[n->type_string()];
  return counts;
}

const Node& NodeNamed(const Graph& g, const std::string& name) {
  const Node* n = g.FindNode(name);
  BOOST_REQUIRE_MESSAGE(n != nullptr, "no node " << name);
  return *n;
}

std::string OutputShape(const Graph& g, const std::string& name, int port = 0) {
  const Node& n = NodeNamed(g, name);
  BOOST_REQUIRE_LT(port, static_cast<int>(n.output_shapes().size()));
  return n.output_shapes()[port].DebugString();
}

std::set<std::string> EdgeSet(const Graph& g) {
  std::set<std::string> edges;
  for (const Edge* e : g.edges()) edges.insert(e->DebugString());
  return edges;
}

// Empty if `a` and `b` hold the same nodes (name, op, attrs, device, types,
// inferred shapes) and the same edges; otherwise the first difference.
std::string GraphDifference(const Graph& a, const Graph& b) {
  if (a.num_nodes() != b.num_nodes()) return "node counts differ";
  for (const Node* na : a.nodes()) {
    const Node* nb = b.FindNode(na->name());
    if (nb == nullptr) return "missing node " + na->name();
    if (na->type_string() != nb->type_string()) return "op differs at " + na->name();
    if (na->requested_device() != nb->requested_device()) return "device differs at " + na->name();
    if (na->input_types() != nb->input_types() || na->output_types() != nb->output_types())
      return "types differ at " + na->name();
    if (na->output_shapes() != nb->output_shapes()) return "shapes differ at " + na->name();
    tensorflow::NodeDef da = na->def(), db = nb->def();
    da.clear_input();
    db.clear_input();
    if (!google::protobuf::util::MessageDifferencer::Equals(da, db))
      return "NodeDef differs at " + na->name();
  }
  if (EdgeSet(a) != EdgeSet(b)) return "edges differ";
  return "";
}

void CheckRoundTrip(const Graph& g) {
  tensorflow::GraphDef exported;
  g.ToGraphDef(&exported);
  Graph again;
  Status s = ImportGraphDef(exported, &again);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(GraphDifference(g, again) == "");
  // And exporting the re-import gives the same bytes' worth of meaning.
  tensorflow::GraphDef twice;
  again.ToGraphDef(&twice);
  BOOST_TEST(google::protobuf::util::MessageDifferencer::Equals(exported, twice));
}

void CheckTopologicalOrder(const Graph& g) {
  std::vector<Node*> order;
  BOOST_REQUIRE(TopologicalOrder(g, &order).ok());
  BOOST_REQUIRE_EQUAL(static_cast<int>(order.size()), g.num_nodes());
  std::map<const Node*, size_t> pos;
  for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = i;
  for (const Edge* e : g.edges()) BOOST_TEST(pos[e->src()] < pos[e->dst()], e->DebugString());
}

BOOST_AUTO_TEST_CASE(regression_graph) {
  Loaded l = Load("tf2onnx_regression_frozen.pb");
  const Graph& g = *l.graph;
  BOOST_TEST(g.num_nodes() == 8);
  BOOST_TEST(!l.def.has_versions());
  BOOST_TEST(g.versions().producer() == 0);
  BOOST_TEST(OpCounts(g) == (std::map<std::string, int>{
                                {"Add", 1}, {"Const", 2}, {"Identity", 3}, {"Mul", 1}, {"Placeholder", 1}}));
  const Node& x = NodeNamed(g, "X");
  BOOST_TEST(x.IsPlaceholder());
  BOOST_TEST(x.output_types() == DataTypeVector{DT_FLOAT});
  // X's shape attr has unknown rank, so the scalar W cannot pin Mul down.
  BOOST_TEST(OutputShape(g, "X") == "<unknown>");
  BOOST_TEST(OutputShape(g, "W") == "[]");
  BOOST_TEST(OutputShape(g, "W/read") == "[]");
  BOOST_TEST(OutputShape(g, "Mul") == "<unknown>");
  BOOST_TEST(OutputShape(g, "pred") == "<unknown>");
  BOOST_TEST(NodeNamed(g, "pred").output_types() == DataTypeVector{DT_FLOAT});
  BOOST_TEST(NodeNamed(g, "pred").out_edges().empty());
  BOOST_TEST(NodeNamed(g, "W").IsConstant());
  CheckTopologicalOrder(g);
  CheckRoundTrip(g);
}

BOOST_AUTO_TEST_CASE(fc_layers_graph) {
  Loaded l = Load("tf2onnx_fc_layers_frozen.pb");
  const Graph& g = *l.graph;
  BOOST_TEST(g.num_nodes() == 24);
  BOOST_TEST(OpCounts(g) == (std::map<std::string, int>{{"BiasAdd", 3},
                                                        {"Const", 6},
                                                        {"Identity", 9},
                                                        {"MatMul", 3},
                                                        {"Placeholder", 1},
                                                        {"Relu", 2}}));
  BOOST_TEST(OutputShape(g, "X") == "[?,784]");
  BOOST_TEST(OutputShape(g, "dense/kernel") == "[784,256]");
  BOOST_TEST(OutputShape(g, "dense/kernel/read") == "[784,256]");
  BOOST_TEST(OutputShape(g, "dense_1/kernel") == "[256,256]");
  BOOST_TEST(OutputShape(g, "pred/bias") == "[10]");
  BOOST_TEST(OutputShape(g, "output") == "[?,10]");
  for (const Node* n : g.nodes()) {
    BOOST_TEST(n->requested_device().empty());
    for (DataType t : n->output_types()) BOOST_TEST(t == DT_FLOAT, n->name());
    if (n->type_string() == "MatMul") BOOST_TEST(n->num_inputs() == 2);
    if (n->type_string() == "BiasAdd") {
      BOOST_TEST(n->def().attr().at("data_format").s() == "NHWC");
    }
  }
  CheckTopologicalOrder(g);
  CheckRoundTrip(g);
}

BOOST_AUTO_TEST_CASE(mnist_mlp_graph) {
  Loaded l = Load("chaow94_mnist_mlp_frozen.pb");
  const Graph& g = *l.graph;
  BOOST_TEST(g.num_nodes() == 21);
  BOOST_TEST(OpCounts(g) == (std::map<std::string, int>{{"Add", 3},
                                                        {"Const", 6},
                                                        {"Identity", 6},
                                                        {"MatMul", 3},
                                                        {"Placeholder", 1},
                                                        {"Relu", 2}}));
  BOOST_TEST(OutputShape(g, "Placeholder") == "[100,784]");
  BOOST_TEST(OutputShape(g, "hidden1/weights") == "[784,128]");
  BOOST_TEST(OutputShape(g, "hidden2/biases") == "[32]");
  BOOST_TEST(OutputShape(g, "softmax_linear/add") == "[100,10]");
  BOOST_TEST(NodeNamed(g, "softmax_linear/add").out_edges().empty());
  CheckTopologicalOrder(g);
  CheckRoundTrip(g);
}

BOOST_AUTO_TEST_CASE(import_without_shape_inference_leaves_shapes_unknown) {
  tensorflow::GraphDef def;
  BOOST_REQUIRE(ReadGraphDefFile(DataPath("tf2onnx_fc_layers_frozen.pb"), &def).ok());
  Graph g;
  ImportOptions options;
  options.infer_shapes = false;
  BOOST_REQUIRE(ImportGraphDef(def, &g, options).ok());
  BOOST_TEST(OutputShape(g, "output") == "<unknown>");
}

}  // namespace
}  // namespace af
