#include "graph/cost_model.h"

#include <boost/test/unit_test.hpp>

#include "pass_test_util.h"

namespace af {
namespace {

using namespace pass_testing;  // NOLINT: test helpers

BOOST_AUTO_TEST_SUITE(cost_model)

BOOST_AUTO_TEST_CASE(matmul_costs_two_m_n_k_flops) {
  Graph g(PassTestRegistry());
  Build(ConstOfShape("a", {3, 5}) + ConstOfShape("b", {5, 7}) + ConstOfShape("at", {5, 3}) +
            NodeT("mm", "MatMul", {"a", "b"}) +
            NodeT("mmt", "MatMul", {"at", "b"}, "DT_FLOAT", BoolAttr("transpose_a", true)),
        &g);
  CostModel model;
  BOOST_TEST(model.EstimatedFlops(*g.FindNode("mm")) == 2.0 * 3 * 7 * 5);
  BOOST_TEST(model.EstimatedFlops(*g.FindNode("mmt")) == 2.0 * 3 * 7 * 5);
  BOOST_TEST(model.OutputBytes(*g.FindNode("mm"), 0) == 3 * 7 * 4);
}

BOOST_AUTO_TEST_CASE(elementwise_costs_elements_and_bookkeeping_costs_nothing) {
  Graph g(PassTestRegistry());
  Build(ConstOfShape("a", {10, 20}) + ConstOfShape("b", {10, 20}) +
            NodeT("sum", "Add", {"a", "b"}) + NodeT("id", "Identity", {"sum"}) +
            NodeText("noop", "NoOp", {"^id"}),
        &g);
  CostModel model;
  BOOST_TEST(model.EstimatedFlops(*g.FindNode("sum")) == 200.0);
  for (const char* name : {"a", "id", "noop"}) {
    BOOST_TEST(model.EstimatedFlops(*g.FindNode(name)) == 0.0, name);
    BOOST_TEST(model.RunsInline(*g.FindNode(name)), name);
    BOOST_TEST(model.StaticComputeMicros(*g.FindNode(name), DEVICE_CPU) ==
               CostModel::kCpuNodeOverheadMicros);
  }
  BOOST_TEST(!model.RunsInline(*g.FindNode("sum")));
  BOOST_TEST(model.StaticComputeMicros(*g.FindNode("sum"), DEVICE_CPU) ==
             CostModel::kCpuNodeOverheadMicros + 200.0 / CostModel::kCpuFlopsPerMicro);
}

BOOST_AUTO_TEST_CASE(gpus_win_on_big_work_and_lose_on_tiny_work) {
  Graph g(PassTestRegistry());
  Build(ConstOfShape("a", {512, 512}) + NodeT("big", "MatMul", {"a", "a"}) +
            ConstOfShape("s", {2}) + NodeT("tiny", "Add", {"s", "s"}),
        &g);
  CostModel model;
  const Node& big = *g.FindNode("big");
  const Node& tiny = *g.FindNode("tiny");
  BOOST_TEST(model.StaticComputeMicros(big, DEVICE_GPU) <
             model.StaticComputeMicros(big, DEVICE_CPU));
  BOOST_TEST(model.StaticComputeMicros(tiny, DEVICE_CPU) <
             model.StaticComputeMicros(tiny, DEVICE_GPU));
}

BOOST_AUTO_TEST_CASE(unknown_dimensions_count_as_one) {
  Graph g(PassTestRegistry());
  Build(Placeholder("p") + ConstOfShape("w", {4, 6}) + NodeT("mm", "MatMul", {"p", "w"}), &g);
  CostModel model;
  // p's shape is unknown: M and K count as 1, N = 6 is known.
  BOOST_TEST(model.EstimatedFlops(*g.FindNode("mm")) == 2.0 * 1 * 6 * 1);
  BOOST_TEST(model.OutputBytes(*g.FindNode("p"), 0) == 4);
  BOOST_TEST(model.OutputBytes(*g.FindNode("p"), 7) == 0);  // no such port
  g.FindNode("p")->set_output_shapes({PartialTensorShape({-1, 4})});
  BOOST_TEST(model.EstimatedFlops(*g.FindNode("mm")) == 2.0 * 1 * 6 * 4);
}

BOOST_AUTO_TEST_CASE(measured_times_are_averaged_and_replace_estimates) {
  Graph g(PassTestRegistry());
  Build(ConstOfShape("a", {100, 100}) + NodeT("mm", "MatMul", {"a", "a"}), &g);
  CostModel model;
  const Node& mm = *g.FindNode("mm");
  const double estimate = model.ComputeMicros(mm, DEVICE_CPU);
  BOOST_TEST(estimate == model.StaticComputeMicros(mm, DEVICE_CPU));
  BOOST_TEST(!model.HasMeasured("mm"));
  model.RecordMeasured("mm", 10.0);
  model.RecordMeasured("mm", 30.0);
  BOOST_TEST(model.HasMeasured("mm"));
  BOOST_TEST(model.MeasuredMicros("mm") == 20.0);
  BOOST_TEST(model.ComputeMicros(mm, DEVICE_CPU) == 20.0);
  BOOST_TEST(model.ComputeMicros(mm, DEVICE_GPU) == 20.0);
  // A measured bookkeeping node is no longer assumed to run inline.
  model.RecordMeasured("a", 1.0);
  BOOST_TEST(!model.RunsInline(*g.FindNode("a")));
  model.ClearMeasured();
  BOOST_TEST(model.ComputeMicros(mm, DEVICE_CPU) == estimate);
}

BOOST_AUTO_TEST_CASE(transfers_cost_latency_plus_bytes_over_bandwidth) {
  CostModel model;
  const std::string other_task = "/job:localhost/replica:0/task:1/device:CPU:0";
  BOOST_TEST(model.TransferMicros(1 << 20, kCpu0, kCpu0) == 0.0);
  BOOST_TEST(model.TransferMicros(10000, kCpu0, kGpu0) ==
             CostModel::kLocalLatencyMicros + 10000 / CostModel::kLocalBytesPerMicro);
  BOOST_TEST(model.TransferMicros(10000, kCpu0, other_task) ==
             CostModel::kRemoteLatencyMicros + 10000 / CostModel::kRemoteBytesPerMicro);
  BOOST_TEST(model.TransferMicros(1000000, kCpu0, kCpu1) >
             model.TransferMicros(1000, kCpu0, kCpu1));
  BOOST_TEST(model.TransferMicros(1000, kCpu0, other_task) >
             model.TransferMicros(1000, kCpu0, kCpu1));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
