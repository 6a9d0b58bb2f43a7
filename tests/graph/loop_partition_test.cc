// Partitions of while loops split over two devices: the loop control each
// partition gets from control-flow/partition_loop_control.h.
#include <boost/test/unit_test.hpp>
#include <map>
#include <string>
#include <vector>

#include "control-flow/frame_analysis.h"
#include "control-flow/partition_loop_control.h"
#include "core/node_def_util.h"
#include "graph/partition.h"
#include "pass_test_util.h"

namespace af {
namespace {

using namespace pass_testing;  // NOLINT: test helpers
using Partitions = std::map<std::string, tensorflow::GraphDef>;

PartitionOptions Incarnations() {
  PartitionOptions options;
  options.device_incarnation = [](const std::string& device) -> uint64_t {
    return device == kCpu0 ? 7 : 9;
  };
  return options;
}

// Every node on CPU:0 except `on_cpu1`.
Partitions SplitAndPartition(Graph* g, const std::vector<std::string>& on_cpu1) {
  for (Node* n : g->nodes()) n->set_assigned_device_name(kCpu0);
  for (const std::string& name : on_cpu1) {
    Node* n = g->FindNode(name);
    BOOST_REQUIRE_MESSAGE(n != nullptr, name);
    n->set_assigned_device_name(kCpu1);
  }
  Partitions parts;
  Status s = PartitionGraph(*g, Incarnations(), &parts);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  s = AddLoopControl(*g, Incarnations(), &parts);
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

const tensorflow::NodeDef* Find(const tensorflow::GraphDef& def, const std::string& name) {
  for (const auto& n : def.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

std::string Attr(const tensorflow::NodeDef& n, const char* name) {
  std::string value;
  Status s = GetNodeAttr(n, name, &value);
  BOOST_REQUIRE_MESSAGE(s.ok(), n.name() << ": " << s.ToString());
  return value;
}

bool HasInput(const tensorflow::NodeDef& n, const std::string& input) {
  for (const std::string& in : n.input()) {
    if (in == input) return true;
  }
  return false;
}

// The _Recv feeding input `port` of node `consumer`.
const tensorflow::NodeDef* RecvFeeding(const tensorflow::GraphDef& def,
                                       const std::string& consumer, int port) {
  const tensorflow::NodeDef* n = Find(def, consumer);
  BOOST_REQUIRE_MESSAGE(n != nullptr, consumer);
  BOOST_REQUIRE(n->input_size() > port);
  const tensorflow::NodeDef* recv = Find(def, n->input(port));
  BOOST_REQUIRE_MESSAGE(recv != nullptr && recv->op() == "_Recv",
                        consumer << " input " << port << " is " << n->input(port));
  return recv;
}

// The control loop of `frame` in a partition, found from its Enter.
struct ControlLoop {
  const tensorflow::NodeDef *dummy = nullptr, *enter = nullptr, *merge = nullptr,
                            *sw = nullptr, *pivot = nullptr, *next = nullptr, *exit = nullptr;
};

ControlLoop FindControlLoop(const tensorflow::GraphDef& def, const std::string& frame) {
  ControlLoop loop;
  for (const tensorflow::NodeDef* enter : OfOp(def, "Enter")) {
    DataType t = DT_INVALID;
    if (Attr(*enter, "frame_name") == frame && GetNodeAttr(*enter, "T", &t).ok() &&
        t == DT_FLOAT)
      loop.enter = enter;
  }
  BOOST_REQUIRE_MESSAGE(loop.enter != nullptr, "no control loop for frame " << frame);
  bool is_constant = true;
  BOOST_REQUIRE(GetNodeAttr(*loop.enter, "is_constant", &is_constant).ok());
  BOOST_TEST(!is_constant);
  loop.dummy = Find(def, loop.enter->input(0));
  BOOST_REQUIRE(loop.dummy != nullptr);
  BOOST_TEST(loop.dummy->op() == "Const");
  for (const auto& n : def.node()) {
    if (n.op() == "Merge" && n.input_size() == 2 && n.input(0) == loop.enter->name())
      loop.merge = &n;
  }
  BOOST_REQUIRE(loop.merge != nullptr);
  for (const auto& n : def.node()) {
    if (n.op() == "Switch" && n.input(0) == loop.merge->name()) loop.sw = &n;
  }
  BOOST_REQUIRE(loop.sw != nullptr);
  for (const auto& n : def.node()) {
    if (n.op() == "Identity" && n.input(0) == loop.sw->name() + ":1") loop.pivot = &n;
    if (n.op() == "Exit" && n.input(0) == loop.sw->name()) loop.exit = &n;
  }
  BOOST_REQUIRE(loop.pivot != nullptr);
  BOOST_REQUIRE(loop.exit != nullptr);
  loop.next = Find(def, loop.merge->input(1));
  BOOST_REQUIRE(loop.next != nullptr);
  BOOST_TEST(loop.next->op() == "NextIteration");
  BOOST_TEST(loop.next->input(0) == loop.pivot->name());
  return loop;
}

// The _Send in `parts` matching `recv`.
const tensorflow::NodeDef* SendOf(const Partitions& parts, const tensorflow::NodeDef& recv) {
  const std::string name = Attr(recv, "tensor_name");
  const tensorflow::GraphDef& src = parts.at(Attr(recv, "send_device"));
  for (const tensorflow::NodeDef* send : OfOp(src, "_Send")) {
    if (Attr(*send, "tensor_name") == name) return send;
  }
  BOOST_FAIL("no _Send for " << recv.name());
  return nullptr;
}

// The frame (name) each node of a partition runs in.
std::map<std::string, std::string> FramesOf(const tensorflow::GraphDef& def) {
  Graph g(PassTestRegistry());
  Status s = ImportGraphDef(def, &g);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  FrameAnalysis analysis;
  s = AnalyzeFrames(g, &analysis);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  std::map<std::string, std::string> out;
  for (Node* n : g.nodes()) out[n->name()] = analysis.frames[analysis.frame_of_node[n->id()]].name;
  return out;
}

BOOST_AUTO_TEST_CASE(a_loop_body_on_a_second_device_gets_its_own_loop_control) {
  Graph g(PassTestRegistry());
  Build(CounterLoop() + NodeT("result", "Identity", {"exit"}, "DT_INT32"), &g);
  Partitions parts = SplitAndPartition(&g, {"body", "one", "add"});
  BOOST_REQUIRE(parts.size() == 2u);
  const tensorflow::GraphDef& leader = parts[kCpu0];
  const tensorflow::GraphDef& other = parts[kCpu1];

  // The leader (with the LoopCond) keeps the loop's own control nodes only.
  BOOST_TEST(OfOp(leader, "Enter").size() == 2u);  // enter, limit_enter
  BOOST_TEST(OfOp(leader, "Merge").size() == 1u);

  // CPU:1: Enter(dummy) -> Merge -> Switch(pred) -> pivot -> NextIteration.
  ControlLoop loop = FindControlLoop(other, "loop");
  BOOST_TEST(loop.dummy->input_size() == 0);  // the frame's parent is the root
  int64_t parallel = 0;
  BOOST_REQUIRE(GetNodeAttr(*loop.enter, "parallel_iterations", &parallel).ok());
  BOOST_TEST(parallel == 10);

  // pred is the LoopCond's value, sent by the leader every iteration.
  const tensorflow::NodeDef* pred = RecvFeeding(other, loop.sw->name(), 1);
  DataType t = DT_INVALID;
  BOOST_REQUIRE(GetNodeAttr(*pred, "tensor_type", &t).ok());
  BOOST_TEST(t == DT_BOOL);
  BOOST_TEST(SendOf(parts, *pred)->input(0) == "cond");
  BOOST_TEST(HasInput(*pred, "^" + loop.merge->name()));

  // Recvs of edges inside the frame are gated by their partition's
  // per-iteration trigger: the control Merge here, the loop's Merge on the
  // leader.
  const tensorflow::NodeDef* into_body = RecvFeeding(other, "body", 0);
  BOOST_TEST(HasInput(*into_body, "^" + loop.merge->name()));
  BOOST_TEST(SendOf(parts, *into_body)->input(0) == "switch:1");
  const tensorflow::NodeDef* back = RecvFeeding(leader, "next", 0);
  BOOST_TEST(HasInput(*back, "^merge"));

  // So every transfer of the loop runs inside its frame.
  std::map<std::string, std::string> other_frames = FramesOf(other);
  std::map<std::string, std::string> leader_frames = FramesOf(leader);
  BOOST_TEST(other_frames[into_body->name()] == "loop");
  BOOST_TEST(other_frames[pred->name()] == "loop");
  BOOST_TEST(other_frames[loop.pivot->name()] == "loop");
  BOOST_TEST(other_frames[loop.dummy->name()] == "");
  BOOST_TEST(leader_frames[back->name()] == "loop");
  for (const tensorflow::NodeDef* send : OfOp(leader, "_Send"))
    BOOST_TEST(leader_frames[send->name()] == "loop", send->name());
  for (const tensorflow::NodeDef* send : OfOp(other, "_Send"))
    BOOST_TEST(other_frames[send->name()] == "loop", send->name());
}

BOOST_AUTO_TEST_CASE(a_leader_without_loop_merges_drives_itself_and_reuses_the_cond_recv) {
  // LoopCond on CPU:1, every loop variable on CPU:0: the real Switch on
  // CPU:0 already receives the LoopCond, and CPU:1 has no Merge of its own.
  Graph g(PassTestRegistry());
  Build(CounterLoop() + NodeT("result", "Identity", {"exit"}, "DT_INT32"), &g);
  Partitions parts = SplitAndPartition(&g, {"less", "cond"});
  const tensorflow::GraphDef& cpu0 = parts[kCpu0];
  const tensorflow::GraphDef& cpu1 = parts[kCpu1];

  ControlLoop leader_loop = FindControlLoop(cpu1, "loop");
  BOOST_TEST(leader_loop.sw->input(1) == "cond");  // its own LoopCond, no transfer
  ControlLoop loop = FindControlLoop(cpu0, "loop");
  const tensorflow::NodeDef* pred = RecvFeeding(cpu0, "switch", 1);
  BOOST_TEST(loop.sw->input(1) == pred->name());  // one transfer of pred per iteration
  BOOST_TEST(HasInput(*pred, "^" + loop.merge->name()));
  int cond_sends = 0;
  for (const tensorflow::NodeDef* send : OfOp(cpu1, "_Send"))
    cond_sends += send->input(0) == "cond";
  BOOST_TEST(cond_sends == 1);
  // The leader's Recvs (merge and limit for Less) run once per iteration.
  const tensorflow::NodeDef* merge_in = RecvFeeding(cpu1, "less", 0);
  BOOST_TEST(HasInput(*merge_in, "^" + leader_loop.merge->name()));
  BOOST_TEST(FramesOf(cpu1)[merge_in->name()] == "loop");
}

// An outer loop of 3 whose body runs an inner counter loop; the inner body
// is on CPU:1.
std::string NestedLoops() {
  return ScalarInt("oinit", 0) + ScalarInt("olimit", 3) +
         NodeT("oenter", "Enter", {"oinit"}, "DT_INT32", StringAttr("frame_name", "outer")) +
         NodeT("olimit_enter", "Enter", {"olimit"}, "DT_INT32",
               StringAttr("frame_name", "outer") + BoolAttr("is_constant", true)) +
         NodeT("omerge", "Merge", {"oenter", "onext"}, "DT_INT32",
               "attr { key: 'N' value { i: 2 } } ") +
         NodeT("oless", "Less", {"omerge", "olimit_enter"}, "DT_INT32") +
         NodeText("ocond", "LoopCond", {"oless"}) +
         NodeT("oswitch", "Switch", {"omerge", "ocond"}, "DT_INT32") +
         NodeT("obody", "Identity", {"oswitch:1"}, "DT_INT32") +
         ScalarInt("iinit", 0, {"^obody"}) + ScalarInt("ilimit", 4, {"^obody"}) +
         NodeT("ienter", "Enter", {"iinit"}, "DT_INT32",
               StringAttr("frame_name", "inner") + "attr { key: 'parallel_iterations' "
                                                   "value { i: 3 } } ") +
         NodeT("ilimit_enter", "Enter", {"ilimit"}, "DT_INT32",
               StringAttr("frame_name", "inner") + BoolAttr("is_constant", true)) +
         NodeT("imerge", "Merge", {"ienter", "inext"}, "DT_INT32",
               "attr { key: 'N' value { i: 2 } } ") +
         NodeT("iless", "Less", {"imerge", "ilimit_enter"}, "DT_INT32") +
         NodeText("icond", "LoopCond", {"iless"}) +
         NodeT("iswitch", "Switch", {"imerge", "icond"}, "DT_INT32") +
         NodeT("ibody", "Identity", {"iswitch:1"}, "DT_INT32") +
         ScalarInt("ione", 1, {"^ibody"}) +
         NodeT("iadd", "Add", {"ibody", "ione"}, "DT_INT32") +
         NodeT("inext", "NextIteration", {"iadd"}, "DT_INT32") +
         NodeT("iexit", "Exit", {"iswitch"}, "DT_INT32") +
         NodeT("oadd", "Add", {"obody", "iexit"}, "DT_INT32") +
         NodeT("onext", "NextIteration", {"oadd"}, "DT_INT32") +
         NodeT("oexit", "Exit", {"oswitch"}, "DT_INT32") +
         NodeT("result", "Identity", {"oexit"}, "DT_INT32");
}

BOOST_AUTO_TEST_CASE(a_nested_loop_split_inside_gets_control_for_both_frames) {
  Graph g(PassTestRegistry());
  Build(NestedLoops(), &g);
  Partitions parts = SplitAndPartition(&g, {"ibody", "ione", "iadd"});
  const tensorflow::GraphDef& other = parts[kCpu1];
  // The outer frame has no node on CPU:1, yet CPU:1 needs its iterations
  // to start an inner frame instance in each of them.
  ControlLoop outer = FindControlLoop(other, "outer");
  ControlLoop inner = FindControlLoop(other, "inner");
  BOOST_TEST(outer.dummy->input_size() == 0);
  BOOST_REQUIRE(inner.dummy->input_size() == 1);
  BOOST_TEST(inner.dummy->input(0) == "^" + outer.merge->name());
  int64_t parallel = 0;
  BOOST_REQUIRE(GetNodeAttr(*inner.enter, "parallel_iterations", &parallel).ok());
  BOOST_TEST(parallel == 3);
  BOOST_TEST(SendOf(parts, *RecvFeeding(other, outer.sw->name(), 1))->input(0) == "ocond");
  BOOST_TEST(SendOf(parts, *RecvFeeding(other, inner.sw->name(), 1))->input(0) == "icond");

  std::map<std::string, std::string> frames = FramesOf(other);
  BOOST_TEST(frames[inner.dummy->name()] == "outer");
  BOOST_TEST(frames[RecvFeeding(other, "ibody", 0)->name()] == "inner");
  BOOST_TEST(frames["iadd"] == "inner");
  BOOST_TEST(FramesOf(parts[kCpu0])[RecvFeeding(parts[kCpu0], "inext", 0)->name()] == "inner");
}

BOOST_AUTO_TEST_CASE(loops_on_one_device_are_left_alone_and_a_frame_needs_a_loop_cond) {
  Graph g(PassTestRegistry());
  Build(CounterLoop() + Placeholder("x") + NodeT("y", "Identity", {"x"}), &g);
  Partitions parts = SplitAndPartition(&g, {"x", "y"});
  BOOST_TEST(OfOp(parts[kCpu1], "Enter").empty());
  BOOST_TEST(OfOp(parts[kCpu0], "Enter").size() == 2u);

  // A frame without a LoopCond cannot be driven on a second device.
  Graph bad(PassTestRegistry());
  Build(ScalarInt("init", 0) +
            NodeT("enter", "Enter", {"init"}, "DT_INT32", StringAttr("frame_name", "f")) +
            NodeT("a", "Identity", {"enter"}, "DT_INT32") +
            NodeT("b", "Identity", {"a"}, "DT_INT32") +
            NodeT("exit", "Exit", {"b"}, "DT_INT32"),
        &bad);
  for (Node* n : bad.nodes()) n->set_assigned_device_name(n->name() == "b" ? kCpu1 : kCpu0);
  Partitions bad_parts;
  BOOST_REQUIRE(PartitionGraph(bad, Incarnations(), &bad_parts).ok());
  Status s = AddLoopControl(bad, Incarnations(), &bad_parts);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "'f'"), s.message());
  BOOST_TEST(Contains(s.message(), "LoopCond"), s.message());
}

}  // namespace
}  // namespace af
