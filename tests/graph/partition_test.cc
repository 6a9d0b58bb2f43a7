#include "graph/partition.h"

#include <boost/test/unit_test.hpp>
#include <map>
#include <set>
#include <tuple>

#include "core/node_def_util.h"
#include "graph/placer.h"
#include "graph/subgraph.h"
#include "pass_test_util.h"

namespace af {
namespace {

using namespace pass_testing;  // NOLINT: test helpers
using Partitions = std::map<std::string, tensorflow::GraphDef>;

void Assign(Graph* g, const std::map<std::string, std::string>& devices) {
  for (const auto& [node, device] : devices) {
    Node* n = g->FindNode(node);
    BOOST_REQUIRE_MESSAGE(n != nullptr, node);
    n->set_assigned_device_name(device);
  }
}

PartitionOptions Incarnations() {
  PartitionOptions options;
  options.device_incarnation = [](const std::string& device) -> uint64_t {
    return device == kCpu0 ? 7 : 9;
  };
  return options;
}

Partitions Partition(const Graph& g, const PartitionOptions& options = Incarnations()) {
  Partitions parts;
  Status s = PartitionGraph(g, options, &parts);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return parts;
}

std::vector<const tensorflow::NodeDef*> OfOp(const tensorflow::GraphDef& def,
                                             const std::string& op) {
  std::vector<const tensorflow::NodeDef*> out;
  for (const auto& n : def.node()) {
    if (n.op() == op) out.push_back(&n);
  }
  return out;
}

int CountOp(const Partitions& parts, const std::string& op) {
  int count = 0;
  for (const auto& [device, def] : parts) count += static_cast<int>(OfOp(def, op).size());
  return count;
}

const tensorflow::NodeDef* Find(const tensorflow::GraphDef& def, const std::string& name) {
  for (const auto& n : def.node()) {
    if (n.name() == name) return &n;
  }
  BOOST_FAIL("no node " << name);
  return nullptr;
}

std::string StringAttr(const tensorflow::NodeDef& n, const char* name) {
  std::string value;
  Status s = GetNodeAttr(n, name, &value);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  return value;
}

// Every partition is a valid graph on its own, and every node names the
// partition's device.
void ExpectValidPartitions(const Partitions& parts) {
  for (const auto& [device, def] : parts) {
    Graph g(PassTestRegistry());
    Status s = ImportGraphDef(def, &g);
    BOOST_TEST(s.ok(), device << ": " << s.ToString());
    for (const auto& n : def.node()) BOOST_TEST(n.device() == device, n.name());
  }
}

// Checks each _Recv against its _Send: same tensor_name, devices and
// incarnation, matching types; tensor names are unique.
void ExpectMatchedPairs(const Partitions& parts, const PartitionOptions& options) {
  std::map<std::string, std::pair<std::string, const tensorflow::NodeDef*>> sends;
  for (const auto& [device, def] : parts) {
    for (const tensorflow::NodeDef* send : OfOp(def, "_Send")) {
      const std::string name = StringAttr(*send, "tensor_name");
      BOOST_TEST(sends.emplace(name, std::make_pair(device, send)).second, "duplicate " << name);
      BOOST_TEST(StringAttr(*send, "send_device") == device);
    }
  }
  int recvs = 0;
  for (const auto& [device, def] : parts) {
    for (const tensorflow::NodeDef* recv : OfOp(def, "_Recv")) {
      ++recvs;
      auto it = sends.find(StringAttr(*recv, "tensor_name"));
      BOOST_REQUIRE(it != sends.end());
      const auto& [send_device, send] = it->second;
      BOOST_TEST(StringAttr(*recv, "recv_device") == device);
      BOOST_TEST(StringAttr(*send, "recv_device") == device);
      BOOST_TEST(StringAttr(*recv, "send_device") == send_device);
      BOOST_TEST(send_device != device);
      int64_t inc_send = -1, inc_recv = -2;
      BOOST_REQUIRE(GetNodeAttr(*send, "send_device_incarnation", &inc_send).ok());
      BOOST_REQUIRE(GetNodeAttr(*recv, "send_device_incarnation", &inc_recv).ok());
      BOOST_TEST(inc_send == inc_recv);
      BOOST_TEST(static_cast<uint64_t>(inc_send) == options.device_incarnation(send_device));
      bool client_terminated = true;
      BOOST_REQUIRE(GetNodeAttr(*recv, "client_terminated", &client_terminated).ok());
      BOOST_TEST(!client_terminated);
      DataType t = DT_INVALID, tensor_type = DT_INVALID;
      BOOST_REQUIRE(GetNodeAttr(*send, "T", &t).ok());
      BOOST_REQUIRE(GetNodeAttr(*recv, "tensor_type", &tensor_type).ok());
      BOOST_TEST(t == tensor_type);
    }
  }
  BOOST_TEST(recvs == static_cast<int>(sends.size()));
}

// Distinct (tensor or control source, destination device) pairs that cross
// devices in a placed graph: the number of Send/Recv pairs expected.
int DistinctCutTensors(const Graph& g) {
  std::set<std::tuple<std::string, int, std::string>> cut;
  for (const Edge* e : g.edges()) {
    const std::string& dst = e->dst()->assigned_device_name();
    if (e->src()->assigned_device_name() != dst)
      cut.emplace(e->src()->name(), e->src_output(), dst);
  }
  return static_cast<int>(cut.size());
}

BOOST_AUTO_TEST_SUITE(partition)

BOOST_AUTO_TEST_CASE(one_send_recv_pair_per_tensor_and_destination) {
  Graph g(PassTestRegistry());
  Build(ConstOfShape("a", {4}) + NodeT("b", "Identity", {"a"}) + NodeT("c", "Add", {"a", "a"}) +
            NodeT("d", "Identity", {"a"}) + NodeT("e", "Add", {"b", "d"}),
        &g);
  Assign(&g, {{"a", kCpu0}, {"b", kGpu0}, {"c", kGpu0}, {"d", kCpu1}, {"e", kCpu0}});
  Partitions parts = Partition(g);
  BOOST_TEST(parts.size() == 3u);
  // a:0 -> GPU (shared by b and both inputs of c), a:0 -> CPU:1, b:0 -> CPU:0, d:0 -> CPU:0.
  BOOST_TEST(DistinctCutTensors(g) == 4);
  BOOST_TEST(CountOp(parts, "_Send") == 4);
  BOOST_TEST(CountOp(parts, "_Recv") == 4);
  BOOST_TEST(OfOp(parts[kCpu0], "_Send").size() == 2u);
  BOOST_TEST(OfOp(parts[kGpu0], "_Recv").size() == 1u);

  // b and c on the GPU read the one Recv.
  const tensorflow::NodeDef* recv = OfOp(parts[kGpu0], "_Recv")[0];
  const tensorflow::NodeDef* b = Find(parts[kGpu0], "b");
  const tensorflow::NodeDef* c = Find(parts[kGpu0], "c");
  BOOST_TEST(b->input(0) == recv->name());
  BOOST_TEST(c->input(0) == recv->name());
  BOOST_TEST(c->input(1) == recv->name());
  BOOST_TEST(StringAttr(*recv, "tensor_name").rfind("edge_", 0) == 0u);
  BOOST_TEST(Contains(StringAttr(*recv, "tensor_name"), "_a"));
  // The Send reads the original tensor on its own device.
  for (const tensorflow::NodeDef* send : OfOp(parts[kCpu0], "_Send")) {
    BOOST_TEST((send->input(0) == "a"));
  }
  ExpectMatchedPairs(parts, Incarnations());
  ExpectValidPartitions(parts);
}

BOOST_AUTO_TEST_CASE(control_edges_cross_devices_as_dummy_tensors) {
  Graph g(PassTestRegistry());
  Build(ConstOfShape("x", {2}) + NodeText("y", "NoOp", {"^x"}) +
            ConstOfShape("z", {1}, "DT_FLOAT", "input: '^x' ") + NodeT("local", "Identity", {"x"}) +
            NodeText("w", "NoOp", {"^local", "^x"}),
        &g);
  Assign(&g, {{"x", kCpu0}, {"y", kGpu0}, {"z", kGpu0}, {"local", kCpu0}, {"w", kCpu0}});
  Partitions parts = Partition(g);
  BOOST_TEST(parts.size() == 2u);
  // One dummy Const on the source device, control-dependent on x, sent once.
  std::vector<const tensorflow::NodeDef*> dummies;
  for (const tensorflow::NodeDef* n : OfOp(parts[kCpu0], "Const")) {
    if (n->name() != "x") dummies.push_back(n);
  }
  BOOST_REQUIRE(dummies.size() == 1u);
  BOOST_TEST(dummies[0]->input_size() == 1);
  BOOST_TEST(dummies[0]->input(0) == "^x");
  BOOST_REQUIRE(OfOp(parts[kCpu0], "_Send").size() == 1u);
  BOOST_TEST(OfOp(parts[kCpu0], "_Send")[0]->input(0) == dummies[0]->name());
  BOOST_REQUIRE(OfOp(parts[kGpu0], "_Recv").size() == 1u);
  const std::string recv = OfOp(parts[kGpu0], "_Recv")[0]->name();
  const tensorflow::NodeDef* y = Find(parts[kGpu0], "y");
  BOOST_REQUIRE(y->input_size() == 1);
  BOOST_TEST(y->input(0) == "^" + recv);
  BOOST_TEST(Find(parts[kGpu0], "z")->input(0) == "^" + recv);
  // Same-device control edges stay as they were.
  const tensorflow::NodeDef* w = Find(parts[kCpu0], "w");
  BOOST_TEST(w->input_size() == 2);
  BOOST_TEST(w->input(0) == "^local");
  BOOST_TEST(w->input(1) == "^x");
  ExpectMatchedPairs(parts, Incarnations());
  ExpectValidPartitions(parts);
}

BOOST_AUTO_TEST_CASE(one_device_means_one_partition_without_transfers) {
  Graph g(PassTestRegistry());
  Build(CounterLoop() + NodeT("result", "Identity", {"exit"}, "DT_INT32"), &g);
  for (Node* n : g.nodes()) n->set_assigned_device_name(kCpu1);
  Partitions parts = Partition(g);
  BOOST_REQUIRE(parts.size() == 1u);
  BOOST_TEST(parts.begin()->first == kCpu1);
  BOOST_TEST(parts[kCpu1].node_size() == g.num_nodes());
  BOOST_TEST(CountOp(parts, "_Send") == 0);
  ExpectValidPartitions(parts);
}

BOOST_AUTO_TEST_CASE(requested_full_names_count_and_missing_devices_are_errors) {
  Graph g(PassTestRegistry());
  Build(Placeholder("a", "DT_FLOAT", Device("/job:localhost/replica:0/task:0/cpu:1")) +
            NodeT("b", "Identity", {"a"}),
        &g);
  Partitions parts;
  Status s = PartitionGraph(g, {}, &parts);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "'b'"), s.message());
  BOOST_TEST(parts.empty());
  g.FindNode("b")->set_assigned_device_name(kCpu0);
  parts = Partition(g, {});
  BOOST_TEST(parts.count(kCpu1) == 1u);  // a's requested name, canonicalized
  // Without incarnations every Send says 0.
  int64_t incarnation = -1;
  BOOST_REQUIRE(
      GetNodeAttr(*OfOp(parts[kCpu1], "_Send")[0], "send_device_incarnation", &incarnation).ok());
  BOOST_TEST(incarnation == 0);
}

BOOST_AUTO_TEST_CASE(references_never_cross_devices) {
  Graph g(PassTestRegistry());
  Build(NodeText("v", "VariableV2", {},
                 TypeAttr("dtype", "DT_FLOAT") + "attr { key: 'shape' value { shape { } } } ") +
            ConstOfShape("init", {}) + NodeT("assign", "Assign", {"v", "init"}) +
            NodeT("read", "Identity", {"v"}),
        &g);
  Assign(&g, {{"v", kCpu0}, {"init", kCpu0}, {"assign", kGpu0}, {"read", kGpu0}});
  Partitions parts;
  Status s = PartitionGraph(g, {}, &parts);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "'assign'"), s.message());
  // A ref read as a value crosses as a plain tensor of the base type.
  g.FindNode("assign")->set_assigned_device_name(kCpu0);
  parts = Partition(g);
  BOOST_REQUIRE(OfOp(parts[kCpu0], "_Send").size() == 1u);
  DataType t = DT_INVALID;
  BOOST_REQUIRE(GetNodeAttr(*OfOp(parts[kCpu0], "_Send")[0], "T", &t).ok());
  BOOST_TEST(t == DT_FLOAT);
  ExpectValidPartitions(parts);
}

BOOST_AUTO_TEST_CASE(prune_place_partition_end_to_end) {
  Graph g(PassTestRegistry());
  Build(Placeholder("x") + ConstOfShape("w1", {256, 256}) + ConstOfShape("w2", {256, 256}) +
            NodeT("h1", "MatMul", {"x", "w1"}) + NodeT("h2", "MatMul", {"x", "w2"}) +
            NodeT("y", "Add", {"h1", "h2"}) + NodeT("unused", "Identity", {"w1"}),
        &g);
  g.FindNode("x")->set_output_shapes({PartialTensorShape({256, 256})});
  std::unique_ptr<Graph> step;
  Status s = PruneForExecution(g, {{"x:0"}, {"y:0", "h2:0"}, {}}, &step);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  PlacerOptions placer;
  placer.kernels = PassTestKernels();
  s = PlaceGraph(step.get(), {{kCpu0, "CPU"}, {kCpu1, "CPU"}}, placer);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  BOOST_TEST(step->FindNode("h1")->assigned_device_name() !=
             step->FindNode("h2")->assigned_device_name());
  Partitions parts = Partition(*step);
  BOOST_TEST(parts.size() == 2u);
  BOOST_TEST(CountOp(parts, "_Send") == DistinctCutTensors(*step));
  BOOST_TEST(CountOp(parts, "_Arg") == 1);
  BOOST_TEST(CountOp(parts, "_Retval") == 2);
  ExpectMatchedPairs(parts, Incarnations());
  ExpectValidPartitions(parts);
}

// The same pipeline against the op definitions of core/ops, so that the
// _Arg/_Retval/_Send/_Recv/Const nodes the passes write are valid for the
// ops the runtime really registers.
BOOST_AUTO_TEST_CASE(pipeline_output_is_valid_for_the_global_op_registry) {
  Graph g;  // OpRegistry::Global()
  Build(Placeholder("x") + ConstOfShape("w1", {256, 256}) + ConstOfShape("w2", {256, 256}) +
            NodeT("h1", "MatMul", {"x", "w1"}) + NodeT("h2", "MatMul", {"x", "w2"}) +
            NodeT("y", "Add", {"h1", "h2"}) + NodeText("after", "NoOp", {"^h1"}),
        &g);
  g.FindNode("x")->set_output_shapes({PartialTensorShape({256, 256})});
  std::unique_ptr<Graph> step;
  Status s = PruneForExecution(g, {{"x:0"}, {"y:0"}, {"after"}}, &step);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  PlacerOptions placer;
  placer.kernels = PassTestKernels();
  s = PlaceGraph(step.get(), {{kCpu0, "CPU"}, {kCpu1, "CPU"}}, placer);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  // Pin the NoOp away from h1 so a control edge crosses too.
  const std::string& h1 = step->FindNode("h1")->assigned_device_name();
  step->FindNode("after")->set_assigned_device_name(h1 == kCpu0 ? kCpu1 : kCpu0);
  Partitions parts = Partition(*step);
  BOOST_TEST(CountOp(parts, "_Send") == DistinctCutTensors(*step));
  for (const auto& [device, def] : parts) {
    Graph reimported;
    s = ImportGraphDef(def, &reimported);
    BOOST_TEST(s.ok(), device << ": " << s.ToString());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
