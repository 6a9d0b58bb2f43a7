// While loops in TensorFlow's raw form (Enter/Merge/Switch/LoopCond/
// NextIteration/Exit) whose bodies are pinned across two devices, for the
// tests of loops across devices (tests/actors) and processes
// (tests/distributed), with the values they must compute.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "client/session.h"
#include "core/tensor.h"
#include "core/tensor_proto.h"
#include "proto/graph.pb.h"

namespace af::testing {

class LoopGraphBuilder {
 public:
  tensorflow::NodeDef* Node(const std::string& name, const std::string& op,
                            const std::vector<std::string>& inputs, const std::string& device,
                            DataType t = DT_INT32) {
    tensorflow::NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    n->set_device(device);
    if (op != "LoopCond" && op != "Placeholder" && op != "Const")
      (*n->mutable_attr())["T"].set_type(static_cast<tensorflow::DataType>(t));
    return n;
  }
  void Placeholder(const std::string& name, const std::string& device) {
    (*Node(name, "Placeholder", {}, device)->mutable_attr())["dtype"].set_type(
        tensorflow::DT_INT32);
  }
  // An int32 scalar; `control` (a node name) puts it into that node's frame.
  void Scalar(const std::string& name, int32_t value, const std::string& control,
              const std::string& device) {
    std::vector<std::string> inputs;
    if (!control.empty()) inputs.push_back("^" + control);
    tensorflow::NodeDef* n = Node(name, "Const", inputs, device);
    (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
    TensorToProtoContent(Tensor::Scalar<int32_t>(value),
                         (*n->mutable_attr())["value"].mutable_tensor());
  }
  void Enter(const std::string& name, const std::string& input, const std::string& frame,
             bool is_constant, int parallel_iterations, const std::string& device) {
    tensorflow::NodeDef* n = Node(name, "Enter", {input}, device);
    (*n->mutable_attr())["frame_name"].set_s(frame);
    (*n->mutable_attr())["is_constant"].set_b(is_constant);
    (*n->mutable_attr())["parallel_iterations"].set_i(parallel_iterations);
  }
  // Enter, Merge, Switch and Exit of loop variable `v` ("<v>_merge",
  // "<v>_switch", "<v>_exit"); the body feeds "<v>_next" from `next`.
  void LoopVar(const std::string& v, const std::string& init, const std::string& next,
               const std::string& pred, const std::string& frame, int parallel_iterations,
               const std::string& device) {
    Enter(v + "_enter", init, frame, false, parallel_iterations, device);
    tensorflow::NodeDef* merge = Node(v + "_merge", "Merge", {v + "_enter", v + "_next"}, device);
    (*merge->mutable_attr())["N"].set_i(2);
    Node(v + "_switch", "Switch", {v + "_merge", pred}, device);
    Node(v + "_exit", "Exit", {v + "_switch"}, device);
    Node(v + "_next", "NextIteration", {next}, device);
  }
  const tensorflow::GraphDef& graph() const { return graph_; }

 private:
  tensorflow::GraphDef graph_;
};

struct SplitLoopOptions {
  std::string control_device;  // loop variables and the condition (the leader)
  std::string other_device;    // half the body
  int parallel_iterations = 10;
  // The loop's inputs (n, acc0) are fed on the other device and its
  // results ("i_out", "acc_out") read there.
  bool io_on_other = false;
  // The body's update is a cond whose Switch/Merge sit on the control
  // device and whose branches sit on the other one (dead tensors cross).
  bool cond_in_body = false;
  // The condition (Less, LoopCond) on the other device: the LoopCond's
  // device then holds none of the loop's Merges.
  bool loop_cond_on_other = false;
};

// while (i < n) { acc += 3 * i  (or the cond variant); i += 1 }
// Feeds "n" and "acc0" (int32 scalars); fetch "i_out" and "acc_out".
inline tensorflow::GraphDef SplitCounterLoop(const SplitLoopOptions& o) {
  LoopGraphBuilder b;
  const std::string& c = o.control_device;
  const std::string& d = o.other_device;
  const std::string io = o.io_on_other ? d : c;
  const int p = o.parallel_iterations;
  b.Placeholder("n", io);
  b.Placeholder("acc0", io);
  b.Scalar("i0", 0, "", io);
  b.Enter("n_enter", "n", "loop", true, p, c);
  b.Node("less", "Less", {"i_merge", "n_enter"}, o.loop_cond_on_other ? d : c);
  b.Node("cond", "LoopCond", {"less"}, o.loop_cond_on_other ? d : c);
  b.LoopVar("i", "i0", "i_add", "cond", "loop", p, c);
  b.LoopVar("acc", "acc0", "acc_update", "cond", "loop", p, c);
  b.Node("bi", "Identity", {"i_switch:1"}, c);
  b.Node("bacc", "Identity", {"acc_switch:1"}, c);
  b.Scalar("one", 1, "bi", c);
  b.Node("i_add", "Add", {"bi", "one"}, c);
  b.Scalar("three", 3, "bi", d);
  b.Node("times3", "Mul", {"bi", "three"}, d);
  if (!o.cond_in_body) {
    b.Node("acc_update", "Add", {"bacc", "times3"}, d);
  } else {
    // even i: acc + 3i; odd i: acc - 1. Only one branch is live.
    b.Scalar("two", 2, "bi", c);
    b.Scalar("zero", 0, "bi", c);
    b.Node("mod", "FloorMod", {"bi", "two"}, c);
    b.Node("even", "Equal", {"mod", "zero"}, c);
    b.Node("csw", "Switch", {"bacc", "even"}, c);
    b.Node("then_v", "Add", {"csw:1", "times3"}, d);
    b.Scalar("one_d", 1, "bi", d);
    b.Node("else_v", "Sub", {"csw:0", "one_d"}, d);
    (*b.Node("cmerge", "Merge", {"else_v", "then_v"}, c)->mutable_attr())["N"].set_i(2);
    b.Node("acc_update", "Identity", {"cmerge"}, c);
  }
  b.Node("i_out", "Identity", {"i_exit"}, io);
  b.Node("acc_out", "Identity", {"acc_exit"}, io);
  return b.graph();
}

inline int64_t ExpectedSplitLoopAcc(int64_t n, int64_t acc0, bool cond_in_body) {
  int64_t acc = acc0;
  for (int64_t i = 0; i < n; ++i) acc += !cond_in_body || i % 2 == 0 ? 3 * i : -1;
  return acc;
}

// for (j = 0; j < m; ++j) { s = total; for (k = 0; k < n; ++k) s += k * j;
//                           total = s + 1; }
// The inner body's arithmetic and the outer update sit on `d`, every loop
// variable and condition on `c`. Feeds "m", "n", "total0"; fetch
// "total_out" and "j_out".
inline tensorflow::GraphDef NestedSplitLoop(const std::string& c, const std::string& d,
                                            int parallel_iterations) {
  LoopGraphBuilder b;
  const int p = parallel_iterations;
  b.Placeholder("m", c);
  b.Placeholder("n", c);
  b.Placeholder("total0", c);
  b.Scalar("j0", 0, "", c);
  b.Enter("m_enter", "m", "outer", true, p, c);
  b.Enter("n_outer", "n", "outer", true, p, c);
  b.Node("oless", "Less", {"j_merge", "m_enter"}, c);
  b.Node("ocond", "LoopCond", {"oless"}, c);
  b.LoopVar("j", "j0", "j_add", "ocond", "outer", p, c);
  b.LoopVar("total", "total0", "total_add", "ocond", "outer", p, c);
  b.Node("obj", "Identity", {"j_switch:1"}, c);
  b.Node("obt", "Identity", {"total_switch:1"}, c);
  b.Scalar("jone", 1, "obj", c);
  b.Node("j_add", "Add", {"obj", "jone"}, c);
  // The inner loop.
  b.Scalar("k0", 0, "obj", c);
  b.Enter("n_inner", "n_outer", "inner", true, p, c);
  b.Enter("j_inner", "obj", "inner", true, p, c);
  b.Node("iless", "Less", {"k_merge", "n_inner"}, c);
  b.Node("icond", "LoopCond", {"iless"}, c);
  b.LoopVar("k", "k0", "k_add", "icond", "inner", p, c);
  b.LoopVar("s", "obt", "s_add", "icond", "inner", p, c);
  b.Node("ibk", "Identity", {"k_switch:1"}, c);
  b.Node("ibs", "Identity", {"s_switch:1"}, c);
  b.Scalar("kone", 1, "ibk", c);
  b.Node("k_add", "Add", {"ibk", "kone"}, c);
  b.Node("prod", "Mul", {"ibk", "j_inner"}, d);
  b.Node("s_add", "Add", {"ibs", "prod"}, d);
  // Back in the outer body.
  b.Scalar("tone", 1, "obj", d);
  b.Node("total_add", "Add", {"s_exit", "tone"}, d);
  b.Node("total_out", "Identity", {"total_exit"}, c);
  b.Node("j_out", "Identity", {"j_exit"}, c);
  return b.graph();
}

inline int64_t ExpectedNestedTotal(int64_t m, int64_t n, int64_t total0) {
  int64_t total = total0;
  for (int64_t j = 0; j < m; ++j) {
    int64_t s = total;
    for (int64_t k = 0; k < n; ++k) s += k * j;
    total = s + 1;
  }
  return total;
}

// A session with `options` that has extended `graph`.
inline std::unique_ptr<Session> SessionWithGraph(const SessionOptions& options,
                                                 const tensorflow::GraphDef& graph) {
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  s = session->Extend(graph);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return session;
}

// Runs the split loop for n iterations from acc0 and checks both results.
inline void CheckSplitLoop(Session* session, int n, int acc0, bool cond_in_body) {
  std::vector<Tensor> out;
  Status s = session->Run({{"n", Tensor::Scalar<int32_t>(n)}, {"acc0", Tensor::Scalar<int32_t>(acc0)}},
                          {"i_out", "acc_out"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), "n=" << n << ": " << s.ToString());
  BOOST_TEST(out[0].scalar<int32_t>() == n);
  BOOST_TEST(out[1].scalar<int32_t>() == ExpectedSplitLoopAcc(n, acc0, cond_in_body), "n=" << n);
}

}  // namespace af::testing
