#include "graph/placer.h"

#include <boost/test/unit_test.hpp>

#include "pass_test_util.h"

namespace af {
namespace {

using namespace pass_testing;  // NOLINT: test helpers

const std::vector<DeviceInfo> kTwoCpusOneGpu = {{kCpu0, ""}, {kCpu1, ""}, {kGpu0, "GPU"}};

PlacerOptions TestOptions() {
  PlacerOptions options;
  options.kernels = PassTestKernels();
  return options;
}

void Place(Graph* g, const std::vector<DeviceInfo>& devices = kTwoCpusOneGpu,
           const PlacerOptions& options = TestOptions()) {
  Status s = PlaceGraph(g, devices, options);
  BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString());
  for (const Node* n : g->nodes()) {
    BOOST_TEST(!n->assigned_device_name().empty(), n->name());
  }
}

const std::string& DeviceOf(const Graph& g, const std::string& node) {
  return g.FindNode(node)->assigned_device_name();
}

Status PlaceError(Graph* g, const std::vector<DeviceInfo>& devices = kTwoCpusOneGpu) {
  Status s = PlaceGraph(g, devices, TestOptions());
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  for (const Node* n : g->nodes()) {
    BOOST_TEST(n->assigned_device_name().empty(), n->name());  // nothing half placed
  }
  return s;
}

BOOST_AUTO_TEST_SUITE(placer)

BOOST_AUTO_TEST_CASE(explicit_and_legacy_constraints_are_obeyed) {
  Graph g(PassTestRegistry());
  Build(Placeholder("a", "DT_FLOAT", Device("/device:GPU:0")) +
            NodeT("b", "Identity", {"a"}, "DT_FLOAT", Device("/cpu:1")) +
            NodeT("c", "Identity", {"b"}, "DT_FLOAT", Device(kCpu0)),
        &g);
  Place(&g);
  BOOST_TEST(DeviceOf(g, "a") == kGpu0);
  BOOST_TEST(DeviceOf(g, "b") == kCpu1);
  BOOST_TEST(DeviceOf(g, "c") == kCpu0);
}

BOOST_AUTO_TEST_CASE(partial_constraints_choose_among_matching_devices) {
  Graph g(PassTestRegistry());
  Build(Placeholder("a", "DT_FLOAT", Device("/device:GPU:*")) +
            NodeT("b", "Identity", {"a"}, "DT_FLOAT", Device("/job:localhost/device:CPU:*")) +
            NodeT("c", "Identity", {"b"}, "DT_FLOAT", Device("/job:localhost/task:0")),
        &g);
  Place(&g);
  BOOST_TEST(DeviceOf(g, "a") == kGpu0);
  BOOST_TEST((DeviceOf(g, "b") == kCpu0 || DeviceOf(g, "b") == kCpu1));
  BOOST_TEST(!DeviceOf(g, "c").empty());
}

BOOST_AUTO_TEST_CASE(already_assigned_nodes_keep_their_device) {
  Graph g(PassTestRegistry());
  Build(Placeholder("a") + NodeT("b", "Identity", {"a"}), &g);
  g.FindNode("b")->set_assigned_device_name("/job:localhost/replica:0/task:0/cpu:1");
  Place(&g);
  BOOST_TEST(DeviceOf(g, "b") == kCpu1);
  // Assigned to a device that does not exist: an error naming both.
  Graph h(PassTestRegistry());
  Build(Placeholder("a"), &h);
  h.FindNode("a")->set_assigned_device_name("/job:localhost/replica:0/task:0/device:GPU:7");
  Status s = PlaceGraph(&h, kTwoCpusOneGpu, TestOptions());
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "'a'"), s.message());
  BOOST_TEST(Contains(s.message(), "GPU:7"), s.message());
}

BOOST_AUTO_TEST_CASE(unsatisfiable_constraint_names_node_spec_and_devices) {
  Graph g(PassTestRegistry());
  Build(Placeholder("a", "DT_FLOAT", Device("/device:GPU:1")) + NodeT("b", "Identity", {"a"}), &g);
  Status s = PlaceError(&g);
  BOOST_TEST(Contains(s.message(), "Cannot assign a device for operation 'a'"), s.message());
  BOOST_TEST(Contains(s.message(), "'/device:GPU:1'"), s.message());
  BOOST_TEST(Contains(s.message(), "no devices matching that specification"), s.message());
  for (const std::string& d : {kCpu0, kCpu1, kGpu0})
    BOOST_TEST(Contains(s.message(), d), s.message());

  Graph job(PassTestRegistry());
  Build(Placeholder("p", "DT_FLOAT", Device("/job:ps")), &job);
  s = PlaceError(&job);
  BOOST_TEST(Contains(s.message(), "'p'"), s.message());
  BOOST_TEST(Contains(s.message(), "/job:ps"), s.message());
}

BOOST_AUTO_TEST_CASE(malformed_constraint_is_an_error_naming_node_and_spec) {
  Graph g(PassTestRegistry());
  Build(Placeholder("a", "DT_FLOAT", Device("/gpu:zero")), &g);
  Status s = PlaceError(&g);
  BOOST_TEST(Contains(s.message(), "'a'"), s.message());
  BOOST_TEST(Contains(s.message(), "/gpu:zero"), s.message());
}

BOOST_AUTO_TEST_CASE(kernels_restrict_placement_to_their_device_types) {
  Graph g(PassTestRegistry());
  Build(Placeholder("x") + NodeText("on_gpu", "TestGpuOnly", {"x"}) +
            NodeText("on_cpu", "TestCpuOnly", {"on_gpu"}),
        &g);
  Place(&g);
  BOOST_TEST(DeviceOf(g, "on_gpu") == kGpu0);
  BOOST_TEST((DeviceOf(g, "on_cpu") == kCpu0 || DeviceOf(g, "on_cpu") == kCpu1));

  // Asking for a device type the op has no kernel for names the op.
  Graph bad(PassTestRegistry());
  Build(Placeholder("x") + NodeText("c", "TestCpuOnly", {"x"}, Device("/device:GPU:0")), &bad);
  Status s = PlaceError(&bad);
  BOOST_TEST(Contains(s.message(), "'c'"), s.message());
  BOOST_TEST(Contains(s.message(), "TestCpuOnly"), s.message());
  BOOST_TEST(Contains(s.message(), "no supported kernel for GPU devices"), s.message());
  BOOST_TEST(Contains(s.message(), kCpu0), s.message());

  // No device of a type with a kernel at all.
  Graph cpu_only(PassTestRegistry());
  Build(Placeholder("x") + NodeText("g", "TestGpuOnly", {"x"}), &cpu_only);
  s = PlaceError(&cpu_only, {{kCpu0, "CPU"}});
  BOOST_TEST(Contains(s.message(), "'g'"), s.message());
  BOOST_TEST(Contains(s.message(), "TestGpuOnly"), s.message());
  BOOST_TEST(Contains(s.message(), "[GPU]"), s.message());

  Graph none(PassTestRegistry());
  Build(Placeholder("x") + NodeText("k", "TestNoKernel", {"x"}), &none);
  s = PlaceError(&none);
  BOOST_TEST(Contains(s.message(), "TestNoKernel"), s.message());
  BOOST_TEST(Contains(s.message(), "no registered kernels"), s.message());
}

BOOST_AUTO_TEST_CASE(soft_placement_relaxes_unsatisfiable_constraints) {
  Graph g(PassTestRegistry());
  Build(Placeholder("a", "DT_FLOAT", Device("/device:GPU:3")) +
            NodeText("c", "TestCpuOnly", {"a"}, Device("/device:GPU:0")),
        &g);
  PlacerOptions options = TestOptions();
  options.allow_soft_placement = true;
  Place(&g, kTwoCpusOneGpu, options);
  BOOST_TEST(DeviceOf(g, "a") == kGpu0);  // same type, other id
  BOOST_TEST((DeviceOf(g, "c") == kCpu0 || DeviceOf(g, "c") == kCpu1));
}

BOOST_AUTO_TEST_CASE(class_attrs_colocate_nodes) {
  Graph g(PassTestRegistry());
  Build(
      Placeholder("a", "DT_FLOAT", Device("/device:CPU:1")) +
          NodeT("b", "Identity", {"a"}, "DT_FLOAT", ColocateWith("a")) +
          NodeT("c", "Identity", {"b"}, "DT_FLOAT", ColocateWith("gone")) +
          NodeT("d", "Identity", {"a"}, "DT_FLOAT", ColocateWith("gone") + Device("/device:GPU:0")),
      &g);
  Place(&g);
  BOOST_TEST(DeviceOf(g, "b") == kCpu1);
  // c and d share a class even though node "gone" does not exist.
  BOOST_TEST(DeviceOf(g, "c") == kGpu0);
  BOOST_TEST(DeviceOf(g, "d") == kGpu0);

  // Colocated nodes with conflicting constraints.
  Graph bad(PassTestRegistry());
  Build(Placeholder("a", "DT_FLOAT", Device("/device:CPU:0")) +
            NodeT("b", "Identity", {"a"}, "DT_FLOAT", ColocateWith("a") + Device("/device:CPU:1")),
        &bad);
  Status s = PlaceError(&bad);
  BOOST_TEST(Contains(s.message(), "Cannot colocate nodes 'a' and 'b'"), s.message());
  BOOST_TEST(Contains(s.message(), "/device:CPU:1"), s.message());

  // Colocated nodes whose kernels share no device type.
  Graph disjoint(PassTestRegistry());
  Build(Placeholder("x") + NodeText("g", "TestGpuOnly", {"x"}) +
            NodeText("c", "TestCpuOnly", {"x"}, ColocateWith("g")),
        &disjoint);
  s = PlaceError(&disjoint);
  BOOST_TEST(Contains(s.message(), "TestCpuOnly"), s.message());
  BOOST_TEST(Contains(s.message(), "colocated nodes have no device type in common"), s.message());
}

BOOST_AUTO_TEST_CASE(variables_sit_with_the_ops_that_mutate_them) {
  Graph g(PassTestRegistry());
  Build(NodeText("v", "VariableV2", {},
                 TypeAttr("dtype", "DT_FLOAT") +
                     "attr { key: 'shape' value { shape { dim { size: 64 } } } } ") +
            ConstOfShape("init", {64}) +
            NodeT("assign", "Assign", {"v", "init"}, "DT_FLOAT", Device("/device:CPU:1")) +
            NodeT("read", "Identity", {"v"}),
        &g);
  Place(&g);
  BOOST_TEST(DeviceOf(g, "v") == kCpu1);
  BOOST_TEST(DeviceOf(g, "assign") == kCpu1);
}

BOOST_AUTO_TEST_CASE(a_while_loop_may_span_devices_but_a_loop_variable_stays_together) {
  Graph g(PassTestRegistry());
  Build(CounterLoop() + NodeT("result", "Identity", {"exit"}, "DT_INT32"), &g);
  g.FindNode("merge")->mutable_def()->set_device("/device:CPU:0");
  g.FindNode("body")->mutable_def()->set_device("/device:CPU:1");
  g.FindNode("add")->mutable_def()->set_device("/device:CPU:1");
  Place(&g);
  // Enter, Merge, NextIteration, Switch and Exit of the variable follow the
  // Merge; the body is where it was asked to be.
  for (const char* name : {"enter", "merge", "switch", "next", "exit"}) {
    BOOST_TEST(DeviceOf(g, name) == kCpu0, name);
  }
  BOOST_TEST(DeviceOf(g, "body") == kCpu1);
  BOOST_TEST(DeviceOf(g, "add") == kCpu1);

  // Splitting a loop variable's control nodes is a constraint conflict.
  Graph split(PassTestRegistry());
  Build(CounterLoop() + NodeT("result", "Identity", {"exit"}, "DT_INT32"), &split);
  split.FindNode("merge")->mutable_def()->set_device("/device:CPU:0");
  split.FindNode("next")->mutable_def()->set_device("/device:CPU:1");
  Status s = PlaceError(&split);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "Cannot colocate"), s.message());
}

BOOST_AUTO_TEST_CASE(greedy_spreads_independent_expensive_matmuls) {
  Graph g(PassTestRegistry());
  Build(ConstOfShape("a", {256, 256}) + ConstOfShape("b", {256, 256}) +
            ConstOfShape("c", {256, 256}) + ConstOfShape("d", {256, 256}) +
            NodeT("m1", "MatMul", {"a", "b"}) + NodeT("m2", "MatMul", {"c", "d"}) +
            NodeT("sum", "Add", {"m1", "m2"}),
        &g);
  Place(&g, {{kCpu0, "CPU"}, {kCpu1, "CPU"}});
  BOOST_TEST(DeviceOf(g, "m1") != DeviceOf(g, "m2"));
  // Cheap sources stay together on the first device.
  for (const char* name : {"a", "b", "c", "d"}) BOOST_TEST(DeviceOf(g, name) == kCpu0, name);

  // Tiny MatMuls are not worth a transfer: they stay with their inputs.
  Graph small(PassTestRegistry());
  Build(ConstOfShape("a", {2, 2}) + ConstOfShape("b", {2, 2}) + NodeT("m1", "MatMul", {"a", "b"}) +
            NodeT("m2", "MatMul", {"a", "b"}),
        &small);
  Place(&small, {{kCpu0, "CPU"}, {kCpu1, "CPU"}});
  BOOST_TEST(DeviceOf(small, "m1") == kCpu0);
  BOOST_TEST(DeviceOf(small, "m2") == kCpu0);
}

BOOST_AUTO_TEST_CASE(greedy_sends_big_work_to_the_faster_device) {
  Graph g(PassTestRegistry());
  Build(Placeholder("x") + ConstOfShape("w", {1024, 1024}) + ConstOfShape("v", {1024, 1024}) +
            NodeT("mm", "MatMul", {"w", "v"}) + NodeT("out", "Identity", {"mm"}),
        &g);
  Place(&g, {{kCpu0, "CPU"}, {kGpu0, "GPU"}});
  BOOST_TEST(DeviceOf(g, "w") == kCpu0);
  BOOST_TEST(DeviceOf(g, "mm") == kGpu0);

  // Measured times override the estimate: a MatMul measured slow
  // everywhere gains nothing from a transfer.
  CostModel measured;
  measured.RecordMeasured("mm", 1.0);
  PlacerOptions options = TestOptions();
  options.cost_model = &measured;
  Graph h(PassTestRegistry());
  Build(ConstOfShape("w", {1024, 1024}) + ConstOfShape("v", {1024, 1024}) +
            NodeT("mm", "MatMul", {"w", "v"}),
        &h);
  Place(&h, {{kCpu0, "CPU"}, {kGpu0, "GPU"}}, options);
  BOOST_TEST(DeviceOf(h, "mm") == kCpu0);
}

BOOST_AUTO_TEST_CASE(bad_device_lists_are_errors) {
  Graph g(PassTestRegistry());
  Build(Placeholder("a"), &g);
  BOOST_TEST(PlaceGraph(&g, {}, TestOptions()).code() == Code::INVALID_ARGUMENT);
  Status s = PlaceGraph(&g, {{"/device:CPU:0", ""}}, TestOptions());
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "/device:CPU:0"), s.message());
  s = PlaceGraph(&g, {{kCpu0, "GPU"}}, TestOptions());
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  s = PlaceGraph(&g, {{kCpu0, ""}, {"/job:localhost/replica:0/task:0/cpu:0", ""}}, TestOptions());
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "twice"), s.message());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
