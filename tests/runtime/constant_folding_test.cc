// Constant folding with the real CPU kernels as its evaluator: what is
// folded, what is left alone, and that folded graphs compute what the
// originals did.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdio>

#include <atomic>
#include <cmath>
#include <thread>

#include "core/node_def_util.h"
#include "graph/constant_folding.h"
#include "graph/graph_def_import.h"
#include "graph/subgraph.h"
#include "runtime/constant_evaluator.h"
#include "tests/runtime/executor_test_util.h"

namespace af::test {
namespace {

const std::string kTf = "attr { key: 'T' value { type: DT_FLOAT } }";

std::string Attrs(const std::string& t, const std::string& extra = "") {
  return "attr { key: 'T' value { type: " + t + " } } " + extra;
}

std::string TensorConst(const std::string& name, const std::string& dtype, const std::string& field,
                        const std::vector<std::string>& values, const std::string& ctrl) {
  std::string vals;
  for (const std::string& v : values) vals.append(" ").append(field).append(": ").append(v);
  return "node { name: '" + name + "' op: 'Const'" +
         (ctrl.empty() ? "" : " input: '^" + ctrl + "'") +
         " attr { key: 'dtype' value { type: " + dtype +
         " } }"
         " attr { key: 'value' value { tensor { dtype: " +
         dtype + " tensor_shape { dim { size: " + std::to_string(values.size()) + " } }" + vals +
         " } } } }\n";
}

std::string ConstFloats(const std::string& name, const std::vector<float>& v,
                        const std::string& ctrl = "") {
  std::vector<std::string> s;
  s.reserve(v.size());
  for (float x : v) s.push_back(std::to_string(x));
  return TensorConst(name, "DT_FLOAT", "float_val", s, ctrl);
}

std::string ConstInts(const std::string& name, const std::vector<int>& v) {
  std::vector<std::string> s;
  s.reserve(v.size());
  for (int x : v) s.push_back(std::to_string(x));
  return TensorConst(name, "DT_INT32", "int_val", s, "");
}

std::string PlaceholderNode(const std::string& name, const std::vector<int>& dims) {
  std::string shape;
  for (int d : dims) shape += " dim { size: " + std::to_string(d) + " }";
  return Node(name, "Placeholder", {},
              "attr { key: 'dtype' value { type: DT_FLOAT } }"
              " attr { key: 'shape' value { shape {" +
                  shape + " } } }");
}

std::unique_ptr<Graph> Import(const std::string& text, bool infer_shapes = true) {
  auto g = std::make_unique<Graph>();
  ImportOptions options;
  options.infer_shapes = infer_shapes;
  Status s = ImportGraphDef(ParseGraph(text), g.get(), options);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return g;
}

PassContext CpuContext() {
  PassContext context;
  context.evaluate = MakeCpuConstantEvaluator();
  return context;
}

PassStats Fold(Graph* g, const PassContext& context) {
  PassStats stats;
  Status s = FoldConstants(g, context, &stats);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return stats;
}

std::vector<Tensor> RunGraph(const Graph& g, std::vector<Tensor> args, int num_retvals) {
  tensorflow::GraphDef def;
  g.ToGraphDef(&def);
  ExecutorFixture f(1);
  Status s = f.Build(def);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  std::vector<Tensor> out;
  s = f.Run(std::move(args), num_retvals, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return out;
}

// The node feeding data input `index` of `name`.
const af::Node* InputOf(const Graph& g, const std::string& name, int index = 0) {
  const af::Node* n = g.FindNode(name);
  BOOST_TEST_REQUIRE(n != nullptr, name);
  const Edge* e = nullptr;
  BOOST_TEST_REQUIRE(n->input_edge(index, &e).ok());
  return e->src();
}

bool HasControlInput(const af::Node& n, const std::string& from) {
  for (const Edge* e : n.in_edges())
    if (e->IsControlEdge() && e->src()->name() == from) return true;
  return false;
}

Tensor ConstValue(const af::Node& n) {
  BOOST_TEST_REQUIRE(n.type_string() == "Const", n.name());
  Tensor t;
  BOOST_TEST_REQUIRE(GetNodeAttr(n.def(), "value", &t).ok());
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

void CheckUnchanged(const Graph& g, int nodes_before, const PassStats& stats) {
  BOOST_TEST(g.num_nodes() == nodes_before);
  BOOST_TEST(stats.nodes_added == 0);
  BOOST_TEST(stats.nodes_removed == 0);
  BOOST_TEST(stats.nodes_rewritten == 0);
}

BOOST_AUTO_TEST_SUITE(constant_folding)

const std::vector<float> kA = {1.5f, -2.25f, 3.0f, 0.5f};
const std::vector<float> kB = {2.0f, 0.5f, -1.0f, 4.0f};
const std::vector<float> kC = {-4.0f, 3.0f, 2.0f, 0.25f};

std::string ArithmeticGraph() {
  return ConstFloats("a", kA) + ConstFloats("b", kB) + ConstFloats("c", kC) +
         Node("mul", "Mul", {"b", "c"}, kTf) + Node("add", "Add", {"a", "mul"}, kTf) +
         Node("relu", "Relu", {"add"}, kTf) + Retval("ret", "relu", 0, "DT_FLOAT");
}

BOOST_AUTO_TEST_CASE(arithmetic_chain_folds_to_one_const_with_the_same_values) {
  auto original = Import(ArithmeticGraph());
  auto g = Import(ArithmeticGraph());
  const PassStats stats = Fold(g.get(), CpuContext());
  // Relu reads only folded values, so it folds too: a, b, c, mul, add and
  // relu give way to one Const.
  BOOST_TEST(g->num_nodes() == 2);
  BOOST_TEST(stats.nodes_added == 1);
  BOOST_TEST(stats.nodes_removed == 6);
  BOOST_TEST(stats.nodes_rewritten == 1);
  const af::Node* folded = InputOf(*g, "ret");
  BOOST_TEST(folded->name() == "relu/folded");
  BOOST_TEST(folded->output_shapes()[0] == PartialTensorShape{4});
  const tensorflow::TensorProto* proto = nullptr;
  BOOST_TEST_REQUIRE(GetNodeAttr(folded->def(), "value", &proto).ok());
  BOOST_TEST(proto->tensor_content().size() == 4 * sizeof(float));

  const std::vector<float> before = Values<float>(RunGraph(*original, {}, 1)[0]);
  const std::vector<float> after = Values<float>(RunGraph(*g, {}, 1)[0]);
  BOOST_TEST_REQUIRE(after.size() == kA.size());
  for (size_t i = 0; i < kA.size(); ++i) {
    const double expected = std::max(0.0, double{kA[i]} + double{kB[i]} * double{kC[i]});
    BOOST_TEST(std::abs(after[i] - expected) <= 1e-6 * (1 + std::abs(expected)));
    BOOST_TEST(after[i] == before[i]);
  }
}

std::string ShapeGraph() {
  const std::string f = "attr { key: 'T' value { type: DT_FLOAT } }";
  const std::string i64 = " attr { key: 'out_type' value { type: DT_INT64 } }";
  return PlaceholderNode("p", {2, 3}) + PlaceholderNode("q", {-1, 3}) +
         Node("s32", "Shape", {"p"}, f) + Node("s64", "Shape", {"p"}, f + i64) +
         Node("sn", "ShapeN", {"p", "q"}, f + " attr { key: 'N' value { i: 2 } }") +
         Node("size", "Size", {"p"}, f + i64) + Node("rank", "Rank", {"q"}, f) +
         Node("sq", "Shape", {"q"}, f) + Node("sizeq", "Size", {"q"}, f) + Retval("r0", "s32", 0) +
         Retval("r1", "s64", 1, "DT_INT64") + Retval("r2", "sn", 2) + Retval("r3", "sn:1", 3) +
         Retval("r4", "size", 4, "DT_INT64") + Retval("r5", "rank", 5) + Retval("r6", "sq", 6) +
         Retval("r7", "sizeq", 7);
}

BOOST_AUTO_TEST_CASE(shapes_known_statically_become_consts) {
  auto g = Import(ShapeGraph());
  Fold(g.get(), CpuContext());
  const af::Node* s32 = InputOf(*g, "r0");
  BOOST_TEST(s32->name() == "s32/folded");
  BOOST_TEST(ConstValue(*s32).dtype() == DT_INT32);
  BOOST_TEST(Values<int32_t>(ConstValue(*s32)) == std::vector<int32_t>({2, 3}));
  const Tensor s64 = ConstValue(*InputOf(*g, "r1"));
  BOOST_TEST(s64.dtype() == DT_INT64);
  BOOST_TEST(Values<int64_t>(s64) == std::vector<int64_t>({2, 3}));
  BOOST_TEST(ConstValue(*InputOf(*g, "r4")).scalar<int64_t>() == 6);
  BOOST_TEST(ConstValue(*InputOf(*g, "r5")).scalar<int32_t>() == 2);  // the rank is known
  // One unknown dim: ShapeN (it needs both), Shape and Size of q stay.
  BOOST_TEST(InputOf(*g, "r2")->type_string() == "ShapeN");
  BOOST_TEST(InputOf(*g, "r6")->type_string() == "Shape");
  BOOST_TEST(InputOf(*g, "r7")->type_string() == "Size");
  BOOST_TEST(g->FindNode("s32") == nullptr);
  BOOST_TEST(g->FindNode("rank") == nullptr);
}

BOOST_AUTO_TEST_CASE(shape_n_folds_each_output_under_its_port_name) {
  const std::string f = "attr { key: 'T' value { type: DT_FLOAT } }";
  auto g = Import(PlaceholderNode("p", {2, 3}) + PlaceholderNode("q", {4}) +
                  Node("sn", "ShapeN", {"p", "q"}, f + " attr { key: 'N' value { i: 2 } }") +
                  Retval("r0", "sn", 0) + Retval("r1", "sn:1", 1));
  Fold(g.get(), CpuContext());
  BOOST_TEST(InputOf(*g, "r0")->name() == "sn/folded");
  BOOST_TEST(InputOf(*g, "r1")->name() == "sn/folded_1");
  BOOST_TEST(Values<int32_t>(ConstValue(*InputOf(*g, "r1"))) == std::vector<int32_t>({4}));
}

BOOST_AUTO_TEST_CASE(shape_of_a_fed_arg_folds_after_pruning) {
  auto g = Import(PlaceholderNode("p", {2, 3}) + Node("s", "Shape", {"p"}, kTf) +
                  Node("unused", "Identity", {"s"}, Attrs("DT_INT32")));
  StepSignature signature;
  signature.feeds = {"p:0"};
  signature.fetches = {"s:0"};
  BOOST_TEST_REQUIRE(RewriteGraphForExecution(g.get(), signature).ok());
  Fold(g.get(), CpuContext());
  BOOST_TEST(g->FindNode("s") == nullptr);
  Tensor fed(DT_FLOAT, TensorShape{2, 3});
  const std::vector<Tensor> out = RunGraph(*g, {fed}, 1);
  BOOST_TEST(Values<int32_t>(out[0]) == std::vector<int32_t>({2, 3}));
}

// Size of a value in a cond's branch must die with the branch: its Const
// keeps a control edge from the value.
BOOST_AUTO_TEST_CASE(shape_consts_in_a_branch_keep_its_deadness) {
  const std::string text =
      ConstFloat("x", 3.0f) + Arg("pred", 0, "DT_BOOL") + Node("sw", "Switch", {"x", "pred"}, kTf) +
      Node("t", "Identity", {"sw:1"}, kTf) + Node("f", "Identity", {"sw:0"}, kTf) +
      Node("size_t", "Size", {"t"}, kTf) + Node("rank_f", "Rank", {"f"}, kTf) +
      Node("size_sw", "Size", {"sw:1"}, kTf) +
      Node("merge", "Merge", {"size_t", "rank_f"},
           Attrs("DT_INT32", "attr { key: 'N' value { i: 2 } }")) +
      Retval("ret", "merge", 0) + Retval("ret_index", "merge:1", 1) +
      Retval("ret_sw", "size_sw", 2);
  auto g = Import(text);
  Fold(g.get(), CpuContext());
  const af::Node* size_t_const = InputOf(*g, "merge", 0);
  BOOST_TEST(size_t_const->name() == "size_t/folded");
  BOOST_TEST(HasControlInput(*size_t_const, "t"));
  BOOST_TEST(HasControlInput(*InputOf(*g, "merge", 1), "f"));
  // A control edge from a Switch is live on both branches: left alone.
  BOOST_TEST(InputOf(*g, "ret_sw")->type_string() == "Size");
  const std::vector<Tensor> taken = RunGraph(*g, {Tensor::Scalar<bool>(true)}, 3);
  BOOST_TEST(taken[0].scalar<int32_t>() == 1);
  BOOST_TEST(taken[1].scalar<int32_t>() == 0);
  g->RemoveNode(g->FindNode("ret_sw"));  // dead when pred is false
  const std::vector<Tensor> other = RunGraph(*g, {Tensor::Scalar<bool>(false)}, 2);
  BOOST_TEST(other[0].scalar<int32_t>() == 0);
  BOOST_TEST(other[1].scalar<int32_t>() == 1);
}

// tf.cond's branch constants hang off the branch's pivot by control: what
// they fold into must keep that edge, or both branches would reach Merge.
BOOST_AUTO_TEST_CASE(branch_constants_fold_and_stay_in_their_branch) {
  const std::string text =
      Arg("x", 0) + Arg("pred", 1, "DT_BOOL") + Node("sw", "Switch", {"x", "pred"}, kTf) +
      Node("pivot_t", "Identity", {"sw:1"}, kTf) + Node("pivot_f", "Identity", {"sw:0"}, kTf) +
      ConstFloat("c2", 2.0f, "pivot_t") + ConstFloat("c3", 3.0f, "pivot_t") +
      Node("six", "Mul", {"c2", "c3"}, kTf) + ConstFloat("c4", 4.0f, "pivot_f") +
      Node("minus_four", "Neg", {"c4"}, kTf) +
      Node("merge", "Merge", {"minus_four", "six"}, kTf + " attr { key: 'N' value { i: 2 } }") +
      Retval("ret", "merge", 0, "DT_FLOAT");
  auto g = Import(text);
  const PassStats stats = Fold(g.get(), CpuContext());
  BOOST_TEST(stats.nodes_added == 2);
  BOOST_TEST(stats.nodes_removed == 5);
  const af::Node* six = InputOf(*g, "merge", 1);
  BOOST_TEST(six->name() == "six/folded");
  BOOST_TEST(HasControlInput(*six, "pivot_t"));
  BOOST_TEST(HasControlInput(*InputOf(*g, "merge", 0), "pivot_f"));
  for (bool pred : {true, false}) {
    const std::vector<Tensor> out =
        RunGraph(*g, {Tensor::Scalar<float>(1.0f), Tensor::Scalar<bool>(pred)}, 1);
    BOOST_TEST(out[0].scalar<float>() == (pred ? 6.0f : -4.0f));
  }
}

BOOST_AUTO_TEST_CASE(each_used_output_of_a_multi_output_node_folds) {
  auto g = Import(
      ConstInt("axis", 0) + ConstFloats("v", {1, 2, 3, 4}) +
      Node("split", "Split", {"axis", "v"}, kTf + " attr { key: 'num_split' value { i: 2 } }") +
      Retval("r0", "split:1", 0, "DT_FLOAT") + Retval("r1", "split:1", 1, "DT_FLOAT"));
  const PassStats stats = Fold(g.get(), CpuContext());
  BOOST_TEST(stats.nodes_added == 1);  // port 0 is read by nothing
  BOOST_TEST(InputOf(*g, "r0")->name() == "split/folded_1");
  BOOST_TEST(InputOf(*g, "r1")->name() == "split/folded_1");
  BOOST_TEST(Values<float>(ConstValue(*InputOf(*g, "r0"))) == std::vector<float>({3, 4}));
  BOOST_TEST(g->num_nodes() == 3);
}

BOOST_AUTO_TEST_CASE(random_ops_and_their_consumers_are_not_folded) {
  const std::string text =
      ConstInts("dims", {2, 2}) +
      Node("rand", "RandomUniform", {"dims"},
           Attrs("DT_INT32", "attr { key: 'dtype' value { type: DT_FLOAT } }")) +
      ConstFloat("two", 2.0f) + Node("scaled", "Mul", {"rand", "two"}, kTf) +
      Retval("ret", "scaled", 0, "DT_FLOAT");
  auto g = Import(text);
  BOOST_TEST_REQUIRE(g->FindNode("rand")->IsStateful());
  const int before = g->num_nodes();
  CheckUnchanged(*g, before, Fold(g.get(), CpuContext()));
}

BOOST_AUTO_TEST_CASE(a_file_read_is_not_folded_into_the_graph) {
  // ReadFile is not stateful, but it reads the disk of the task it runs on,
  // at every step: folded, it would read the master's, once.
  const std::string path = "/tmp/actorflow_folding_" + std::to_string(::getpid());
  std::FILE* f = std::fopen(path.c_str(), "w");
  BOOST_TEST_REQUIRE(f != nullptr);
  std::fputs("contents", f);
  std::fclose(f);
  auto g = Import(
      "node { name: 'path' op: 'Const' attr { key: 'dtype' value { type: DT_STRING } }"
      " attr { key: 'value' value { tensor { dtype: DT_STRING tensor_shape {} string_val: '" +
      path + "' } } } }\n" + Node("read", "ReadFile", {"path"}) +
      Retval("ret", "read", 0, "DT_STRING"));
  const int before = g->num_nodes();
  CheckUnchanged(*g, before, Fold(g.get(), CpuContext()));
  std::remove(path.c_str());
}

BOOST_AUTO_TEST_CASE(placeholder_consumers_are_not_folded) {
  auto g = Import(PlaceholderNode("x", {2}) + ConstFloat("one", 1.0f) +
                  Node("sum", "Add", {"x", "one"}, kTf) + Retval("ret", "sum", 0, "DT_FLOAT"));
  const int before = g->num_nodes();
  CheckUnchanged(*g, before, Fold(g.get(), CpuContext()));
}

BOOST_AUTO_TEST_CASE(preserved_nodes_are_not_folded) {
  auto g =
      Import(ConstFloat("a", 2.0f) + ConstFloat("b", 3.0f) + Node("m", "Mul", {"a", "b"}, kTf) +
             Node("neg", "Neg", {"m"}, kTf) + Retval("ret", "neg", 0, "DT_FLOAT"));
  PassContext context = CpuContext();
  context.preserved = {"m"};
  const int before = g->num_nodes();
  CheckUnchanged(*g, before, Fold(g.get(), context));
  BOOST_TEST(g->FindNode("m")->type_string() == "Mul");
}

BOOST_AUTO_TEST_CASE(nodes_inside_a_while_loop_are_not_folded) {
  const std::string i = Attrs("DT_INT32");
  const std::string text =
      ConstInt("i0", 0) + ConstInt("n", 6) + Enter("enter_i", "i0", "loop") +
      Enter("enter_n", "n", "loop", true) +
      Node("merge_i", "Merge", {"enter_i", "next_i"}, i + " attr { key: 'N' value { i: 2 } }") +
      Node("less", "Less", {"merge_i", "enter_n"}, i) + Node("cond", "LoopCond", {"less"}) +
      Node("switch_i", "Switch", {"merge_i", "cond"}, i) +
      Node("exit_i", "Exit", {"switch_i:0"}, i) + Node("body_i", "Identity", {"switch_i:1"}, i) +
      ConstInt("one", 1, "body_i") + ConstInt("two", 2, "body_i") +
      Node("step", "Mul", {"one", "two"}, i) + Node("add_i", "Add", {"body_i", "step"}, i) +
      Node("next_i", "NextIteration", {"add_i"}, i) + Retval("ret", "exit_i", 0);
  auto g = Import(text);
  const int before = g->num_nodes();
  CheckUnchanged(*g, before, Fold(g.get(), CpuContext()));
  BOOST_TEST(g->FindNode("step")->type_string() == "Mul");
  BOOST_TEST(RunGraph(*g, {}, 1)[0].scalar<int32_t>() == 6);
}

std::string FillGraph(bool summed) {
  return ConstInts("dims", {1000}) + ConstFloat("v", 0.5f) +
         Node("fill", "Fill", {"dims", "v"}, kTf) +
         (summed ? ConstInt("axis", 0) + Node("sum", "Sum", {"fill", "axis"}, kTf) +
                       Retval("ret", "sum", 0, "DT_FLOAT")
                 : Retval("ret", "fill", 0, "DT_FLOAT"));
}

BOOST_AUTO_TEST_CASE(values_above_the_size_cap_stay_computed) {
  int calls = 0;
  const ConstantEvaluator cpu = MakeCpuConstantEvaluator();
  PassContext small;
  small.evaluate = [&](const tensorflow::GraphDef& def, int n, std::vector<Tensor>* out) {
    ++calls;
    return cpu(def, n, out);
  };
  small.max_constant_bytes = 1000;  // the Fill makes 4000 bytes
  // With its shape known the Fill is not even computed; without, it is
  // computed and then left in place.
  for (bool infer_shapes : {true, false}) {
    calls = 0;
    auto g = Import(FillGraph(false), infer_shapes);
    const int before = g->num_nodes();
    CheckUnchanged(*g, before, Fold(g.get(), small));
    BOOST_TEST(InputOf(*g, "ret")->type_string() == "Fill");
    BOOST_TEST(calls == (infer_shapes ? 0 : 1));
  }

  auto big_enough = Import(FillGraph(false));
  Fold(big_enough.get(), CpuContext());
  const af::Node* folded = InputOf(*big_enough, "ret");
  BOOST_TEST(folded->name() == "fill/folded");
  BOOST_TEST(ConstValue(*folded).NumElements() == 1000);

  // The cap applies to what becomes a Const: a large value only summed on
  // the way is fine.
  auto summed = Import(FillGraph(true));
  Fold(summed.get(), small);
  BOOST_TEST(ConstValue(*InputOf(*summed, "ret")).scalar<float>() == 500.0f);
  BOOST_TEST(summed->FindNode("fill") == nullptr);
}

BOOST_AUTO_TEST_CASE(control_inputs_move_onto_the_new_consts) {
  const std::string text = Arg("x", 0) + Node("gate", "NoOp", {}) + ConstFloat("a", 1.5f) +
                           ConstFloat("b", 2.0f, "gate") +
                           Node("add", "Add", {"a", "b", "^x"}, kTf) +
                           Node("sq", "Mul", {"add", "add"}, kTf) +
                           Node("after", "NoOp", {"^add"}) + Retval("ret", "sq", 0, "DT_FLOAT");
  auto g = Import(text);
  PassContext context = CpuContext();
  context.preserved = {"after"};
  Fold(g.get(), context);
  const af::Node* sq = InputOf(*g, "ret");
  BOOST_TEST(sq->name() == "sq/folded");
  BOOST_TEST(HasControlInput(*sq, "x"));
  BOOST_TEST(HasControlInput(*sq, "gate"));  // through the Const b
  const af::Node* after = g->FindNode("after");
  BOOST_TEST_REQUIRE(after->in_edges().size() == 1u);
  const af::Node* add = after->in_edges()[0]->src();
  BOOST_TEST(add->name() == "add/folded");
  BOOST_TEST(HasControlInput(*add, "x"));
  BOOST_TEST(g->FindNode("add") == nullptr);
  BOOST_TEST(g->FindNode("a") == nullptr);
  BOOST_TEST(g->FindNode("b") == nullptr);
  // The rewritten NodeDefs say the same as the edges.
  BOOST_TEST(after->def().input_size() == 1);
  BOOST_TEST(after->def().input(0) == "^add/folded");
  BOOST_TEST(RunGraph(*g, {Tensor::Scalar<float>(0.0f)}, 1)[0].scalar<float>() == 12.25f);
}

BOOST_AUTO_TEST_CASE(failing_evaluation_leaves_the_graph_alone) {
  // Shape inference would refuse this graph at import; the kernel refuses
  // it when it runs.
  const std::string text = ConstFloats("t", {1, 2, 3, 4, 5, 6}) + ConstInts("shape", {4, 2}) +
                           Node("r", "Reshape", {"t", "shape"}, kTf) +
                           Retval("ret", "r", 0, "DT_FLOAT");
  auto g = Import(text, /*infer_shapes=*/false);
  const int before = g->num_nodes();
  CheckUnchanged(*g, before, Fold(g.get(), CpuContext()));
  BOOST_TEST(InputOf(*g, "ret")->type_string() == "Reshape");
}

BOOST_AUTO_TEST_CASE(failing_node_stays_and_what_it_reads_folds) {
  const std::string text = ConstFloats("t", {1, 2, 3, 4, 5, 6}) + ConstInts("s", {4, 2}) +
                           Node("shape", "Identity", {"s"}, Attrs("DT_INT32")) +
                           Node("r", "Reshape", {"t", "shape"}, kTf) +
                           Retval("ret", "r", 0, "DT_FLOAT");
  auto g = Import(text);
  Fold(g.get(), CpuContext());
  BOOST_TEST(InputOf(*g, "ret")->name() == "r");
  BOOST_TEST(InputOf(*g, "r", 1)->name() == "shape/folded");
  BOOST_TEST(g->FindNode("shape") == nullptr);

  // An evaluator without a kernel for Relu: the Add below it still folds.
  int calls = 0;
  PassContext context;
  const ConstantEvaluator cpu = MakeCpuConstantEvaluator();
  context.evaluate = [&](const tensorflow::GraphDef& def, int n, std::vector<Tensor>* out) {
    ++calls;
    for (const auto& node : def.node())
      if (node.op() == "Relu") return errors::NotFound("no CPU kernel for Relu");
    return cpu(def, n, out);
  };
  auto chain = Import(ArithmeticGraph());
  Fold(chain.get(), context);
  BOOST_TEST(InputOf(*chain, "ret")->name() == "relu");
  BOOST_TEST(InputOf(*chain, "relu")->name() == "add/folded");
  BOOST_TEST(chain->num_nodes() == 3);
  BOOST_TEST(calls == 2);
}

BOOST_AUTO_TEST_CASE(without_an_evaluator_only_shapes_fold) {
  auto g =
      Import(PlaceholderNode("p", {2, 3}) + Node("s", "Shape", {"p"}, kTf) + ConstFloat("a", 1.0f) +
             ConstFloat("b", 2.0f) + Node("sum", "Add", {"a", "b"}, kTf) + Retval("r0", "s", 0) +
             Retval("r1", "sum", 1, "DT_FLOAT"));
  const PassStats stats = Fold(g.get(), PassContext{});
  BOOST_TEST(InputOf(*g, "r0")->name() == "s/folded");
  BOOST_TEST(InputOf(*g, "r1")->name() == "sum");
  BOOST_TEST(stats.nodes_added == 1);
  BOOST_TEST(stats.nodes_removed == 1);
}

BOOST_AUTO_TEST_CASE(string_values_fold_into_string_val) {
  auto g = Import(
      "node { name: 's' op: 'Const' attr { key: 'dtype' value { type: DT_STRING } }"
      " attr { key: 'value' value { tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } }"
      " string_val: 'ab' string_val: 'cde' } } } }\n" +
      Node("id", "Identity", {"s"}, Attrs("DT_STRING")) + Retval("ret", "id", 0, "DT_STRING"));
  Fold(g.get(), CpuContext());
  const af::Node* folded = InputOf(*g, "ret");
  const tensorflow::TensorProto* proto = nullptr;
  BOOST_TEST_REQUIRE(GetNodeAttr(folded->def(), "value", &proto).ok());
  BOOST_TEST(proto->string_val_size() == 2);
  BOOST_TEST(proto->string_val(1) == "cde");
}

BOOST_AUTO_TEST_CASE(evaluator_runs_from_several_threads) {
  const tensorflow::GraphDef def =
      ParseGraph(ConstFloat("a", 1.0f) + ConstFloat("b", 2.0f) +
                 Node("sum", "Add", {"a", "b"}, kTf) + Retval("ret", "sum", 0, "DT_FLOAT"));
  const ConstantEvaluator evaluate = MakeCpuConstantEvaluator();
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        std::vector<Tensor> out;
        if (evaluate(def, 1, &out).ok() && out.size() == 1 && out[0].scalar<float>() == 3.0f)
          ++good;
      }
    });
  for (auto& t : threads) t.join();
  BOOST_TEST(good.load() == 100);
  std::vector<Tensor> out;
  const Status missing = evaluate(def, 2, &out);  // retval 1 never set
  BOOST_TEST(!missing.ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
