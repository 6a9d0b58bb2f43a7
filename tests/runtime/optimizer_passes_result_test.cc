// The graph passes change no result: each graph runs through the executor
// before and after CSE, arithmetic simplification, Identity/NoOp removal
// and dead-node removal, and both runs must agree bit for bit with each
// other and with a plain double-precision loop.
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <functional>

#include "graph/arithmetic_simplification.h"
#include "graph/common_subexpression.h"
#include "graph/dead_node_removal.h"
#include "graph/graph_def_import.h"
#include "graph/subgraph.h"
#include "tests/runtime/executor_test_util.h"

namespace af::test {
namespace {

const std::string kTf = "attr { key: 'T' value { type: DT_FLOAT } }";

std::string Shaped(const std::string& name, std::initializer_list<int64_t> dims) {
  std::string shape;
  for (int64_t d : dims) shape += "dim { size: " + std::to_string(d) + " } ";
  return Node(name, "Placeholder", {},
              "attr { key: 'dtype' value { type: DT_FLOAT } }"
              " attr { key: 'shape' value { shape { " +
                  shape + "} } }");
}

std::string IntVector(const std::string& name, std::initializer_list<int> values) {
  std::string v;
  for (int i : values) v += " int_val: " + std::to_string(i);
  return Node(name, "Const", {},
              "attr { key: 'dtype' value { type: DT_INT32 } }"
              " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: " +
                  std::to_string(values.size()) + " } }" + v + " } } }");
}

// Small integers and halves: every float operation below is exact, so the
// double reference must match to the bit.
Tensor Values(TensorShape shape, int seed) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i)
    t.data<float>()[i] = static_cast<float>((i * 7 + seed) % 11 - 5) * 0.5f;
  return t;
}

struct Outcome {
  std::vector<Tensor> before, after;
  int nodes_before = 0, nodes_after = 0;
  std::vector<std::string> ops_after;
};

std::vector<Tensor> RunGraph(const tensorflow::GraphDef& def, const std::vector<Tensor>& args) {
  ExecutorFixture f;
  Status s = f.Build(def);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  std::vector<Tensor> out;
  s = f.Run(args, 1, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return out;
}

// Prunes `text` for the feeds and the fetch "out:0", as a step would, runs
// it, applies the passes, and runs it again.
Outcome RunBeforeAndAfter(const std::string& text, const std::vector<std::string>& feeds,
                          const std::vector<Tensor>& args) {
  Graph g;
  Status s = ImportGraphDef(ParseGraph(text), &g);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  s = RewriteGraphForExecution(&g, StepSignature{feeds, {"out:0"}, {}});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  Outcome r;
  tensorflow::GraphDef def;
  g.ToGraphDef(&def);
  r.nodes_before = g.num_nodes();
  r.before = RunGraph(def, args);

  PassContext context;
  context.preserved = {"out"};
  PassStats stats;
  using PassFn = std::function<Status(Graph*, const PassContext&, PassStats*)>;
  for (const PassFn& pass : std::vector<PassFn>{EliminateCommonSubexpressions, SimplifyArithmetic,
                                                RemoveIdentityChains, RemoveDeadNodes}) {
    s = pass(&g, context, &stats);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  }
  g.ToGraphDef(&def);
  r.nodes_after = g.num_nodes();
  for (const af::Node* n : g.nodes()) r.ops_after.push_back(n->type_string());
  r.after = RunGraph(def, args);
  return r;
}

void CheckSame(const Outcome& r, const std::vector<double>& reference) {
  BOOST_TEST_REQUIRE(r.before.size() == 1u);
  BOOST_TEST_REQUIRE(r.after.size() == 1u);
  const Tensor& a = r.before[0];
  const Tensor& b = r.after[0];
  BOOST_TEST(a.shape() == b.shape());
  BOOST_TEST_REQUIRE(a.NumElements() == static_cast<int64_t>(reference.size()));
  BOOST_TEST_REQUIRE(b.NumElements() == static_cast<int64_t>(reference.size()));
  BOOST_TEST(std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0);
  for (size_t i = 0; i < reference.size(); ++i) {
    BOOST_TEST(a.data<float>()[i] == static_cast<float>(reference[i]), "element " << i);
    BOOST_TEST(b.data<float>()[i] == static_cast<float>(reference[i]), "element " << i);
  }
}

int Count(const std::vector<std::string>& ops, const std::string& op) {
  return static_cast<int>(std::count(ops.begin(), ops.end(), op));
}

BOOST_AUTO_TEST_SUITE(optimizer_passes_result)

BOOST_AUTO_TEST_CASE(duplicated_matmul_relu_subgraphs_summed) {
  const std::string text =
      Shaped("x", {2, 3}) + Shaped("w", {3, 4}) + Node("mm1", "MatMul", {"x", "w"}, kTf) +
      Node("relu1", "Relu", {"mm1"}, kTf) + Node("mm2", "MatMul", {"x", "w"}, kTf) +
      Node("relu2", "Relu", {"mm2"}, kTf) + Node("out", "AddV2", {"relu1", "relu2"}, kTf);
  const Tensor x = Values(TensorShape{2, 3}, 1), w = Values(TensorShape{3, 4}, 4);
  Outcome r = RunBeforeAndAfter(text, {"x:0", "w:0"}, {x, w});
  std::vector<double> ref;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      double dot = 0;
      for (int k = 0; k < 3; ++k)
        dot += double{x.data<float>()[i * 3 + k]} * double{w.data<float>()[k * 4 + j]};
      ref.push_back(2 * std::max(dot, 0.0));
    }
  CheckSame(r, ref);
  BOOST_TEST(r.nodes_after == r.nodes_before - 2);
  BOOST_TEST(Count(r.ops_after, "MatMul") == 1);
}

BOOST_AUTO_TEST_CASE(times_one_plus_zero_chain) {
  const std::string text = Shaped("x", {3, 5}) + ConstFloat("one", 1) + ConstFloat("zero", 0) +
                           Node("mul", "Mul", {"x", "one"}, kTf) +
                           Node("add", "AddV2", {"mul", "zero"}, kTf) +
                           Node("id", "Identity", {"add"}, kTf) + Node("out", "Neg", {"id"}, kTf);
  const Tensor x = Values(TensorShape{3, 5}, 2);
  Outcome r = RunBeforeAndAfter(text, {"x:0"}, {x});
  std::vector<double> ref;
  for (int64_t i = 0; i < x.NumElements(); ++i)
    ref.push_back(-(double{x.data<float>()[i]} * 1 + 0));
  CheckSame(r, ref);
  // _Arg -> Neg -> _Retval
  BOOST_TEST(r.nodes_after == 3);
}

BOOST_AUTO_TEST_CASE(double_transpose) {
  const std::string text = Shaped("x", {2, 3, 4}) + IntVector("p1", {1, 2, 0}) +
                           IntVector("p2", {2, 0, 1}) + Node("t1", "Transpose", {"x", "p1"}, kTf) +
                           Node("t2", "Transpose", {"t1", "p2"}, kTf) +
                           Node("out", "Relu", {"t2"}, kTf);
  const Tensor x = Values(TensorShape{2, 3, 4}, 3);
  Outcome r = RunBeforeAndAfter(text, {"x:0"}, {x});
  std::vector<double> ref;
  for (int64_t i = 0; i < x.NumElements(); ++i)
    ref.push_back(std::max(double{x.data<float>()[i]}, 0.0));
  CheckSame(r, ref);
  BOOST_TEST(Count(r.ops_after, "Transpose") == 0);
  BOOST_TEST(r.nodes_after == 3);
}

BOOST_AUTO_TEST_CASE(same_shape_reshape) {
  const std::string text = Shaped("x", {4, 6}) + IntVector("shape", {4, 6}) +
                           Node("reshape", "Reshape", {"x", "shape"}, kTf) +
                           Node("out", "Neg", {"reshape"}, kTf);
  const Tensor x = Values(TensorShape{4, 6}, 5);
  Outcome r = RunBeforeAndAfter(text, {"x:0"}, {x});
  std::vector<double> ref;
  for (int64_t i = 0; i < x.NumElements(); ++i) ref.push_back(-double{x.data<float>()[i]});
  CheckSame(r, ref);
  BOOST_TEST(Count(r.ops_after, "Reshape") == 0);
  BOOST_TEST(r.nodes_after == 3);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
