// How a device collects a traced step: the timing buffer (lock-free up to
// its capacity, complete past it), the DeviceStepStats built from it
// (labels, transfer peers, wall-clock times, thread names), and the trace
// fields of the step messages on the wire.
#include <boost/test/unit_test.hpp>

#include <google/protobuf/text_format.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <set>
#include <thread>

#include "actors/device/step_trace.h"
#include "actors/transport/wire_codec.h"
#include "graph/graph_def_import.h"

namespace af {
namespace {

constexpr char kDev0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kDev1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

// c -> _Send (to CPU:1); _Recv (from CPU:1) -> n = Neg(r).
void BuildGraph(Graph* g) {
  const std::string transfer_attrs =
      std::string("attr { key: 'send_device_incarnation' value { i: 1 } } ") +
      "attr { key: 'client_terminated' value { b: false } } ";
  const std::string text =
      "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }"
      "node { name: 's' op: '_Send' input: 'c' attr { key: 'T' value { type: DT_FLOAT } } "
      "  attr { key: 'tensor_name' value { s: 'edge_1_c' } } " + transfer_attrs +
      "  attr { key: 'send_device' value { s: '" + kDev0 + "' } } "
      "  attr { key: 'recv_device' value { s: '" + kDev1 + "' } } }"
      "node { name: 'r' op: '_Recv' attr { key: 'tensor_type' value { type: DT_FLOAT } } "
      "  attr { key: 'tensor_name' value { s: 'edge_7_m' } } " + transfer_attrs +
      "  attr { key: 'send_device' value { s: '" + kDev1 + "' } } "
      "  attr { key: 'recv_device' value { s: '" + kDev0 + "' } } }"
      "node { name: 'n' op: 'Neg' input: 'r' input: '^c' "
      "  attr { key: 'T' value { type: DT_FLOAT } } }";
  tensorflow::GraphDef def;
  BOOST_TEST_REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &def));
  Status s = ImportGraphDef(def, g);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
}

NodeTiming Timing(const Graph& g, const std::string& node, int64_t start, int64_t end,
                  int thread) {
  NodeTiming t;
  t.node_id = g.FindNode(node)->id();
  t.start_ns = start;
  t.end_ns = end;
  t.thread_id = thread;
  return t;
}

BOOST_AUTO_TEST_SUITE(trace_collection)

BOOST_AUTO_TEST_CASE(buffer_keeps_every_timing_past_its_capacity_from_many_threads) {
  NodeTimingBuffer buffer(8, nullptr);
  constexpr int kThreads = 4, kPerThread = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&buffer, t] {
      for (int i = 0; i < kPerThread; ++i) {
        NodeTiming timing;
        timing.node_id = t * kPerThread + i;
        buffer.Add(timing);
      }
    });
  }
  for (auto& t : threads) t.join();
  const auto entries = buffer.Take();
  BOOST_TEST_REQUIRE(entries.size() == size_t{kThreads * kPerThread});
  std::set<int> ids;
  for (const auto& e : entries) {
    ids.insert(e.timing.node_id);
    BOOST_TEST(e.pool_thread == -1);
  }
  BOOST_TEST(ids.size() == size_t{kThreads * kPerThread});
}

BOOST_AUTO_TEST_CASE(buffer_names_the_device_pool_threads) {
  ThreadPool pool("trace_test", 2);
  NodeTimingBuffer buffer(4, &pool);
  std::atomic<int> done{0};
  pool.Schedule([&] {
    NodeTiming t;
    t.node_id = 1;
    buffer.Add(t);
    done.fetch_add(1);
  });
  NodeTiming outside;
  outside.node_id = 2;
  buffer.Add(outside);
  while (done.load() == 0) std::this_thread::yield();
  const auto entries = buffer.Take();
  BOOST_TEST_REQUIRE(entries.size() == 2u);
  for (const auto& e : entries) {
    if (e.timing.node_id == 1) BOOST_TEST(e.pool_thread >= 0);
    if (e.timing.node_id == 2) BOOST_TEST(e.pool_thread == -1);
  }
}

BOOST_AUTO_TEST_CASE(device_step_stats_carry_labels_peers_and_wall_clock_times) {
  Graph g;
  BuildGraph(&g);
  const int64_t base = 5'000'000'123;  // a steady-clock reading
  std::vector<NodeTimingBuffer::Entry> timings = {
      {Timing(g, "n", base + 900, base + 1900, 7), -1},
      {Timing(g, "c", base, base + 10, 3), 0},
      {Timing(g, "s", base + 20, base + 20, 3), 0},
      {Timing(g, "r", base + 5, base + 800, 7), -1},
      {NodeTiming{100000, base, base + 1, 3}, 0},  // not a node of the graph
  };
  tensorflow::DeviceStepStats stats;
  BuildDeviceStepStats(kDev0, g, timings, &stats);
  BOOST_TEST(stats.device() == kDev0);
  BOOST_TEST_REQUIRE(stats.node_stats_size() == 4);
  // In start order.
  const char* order[] = {"c", "r", "s", "n"};
  for (int i = 0; i < 4; ++i) BOOST_TEST(stats.node_stats(i).node_name() == order[i]);
  const auto& c = stats.node_stats(0);
  const auto& r = stats.node_stats(1);
  const auto& s = stats.node_stats(2);
  const auto& n = stats.node_stats(3);
  BOOST_TEST(c.timeline_label() == "c = Const()");
  BOOST_TEST(n.timeline_label() == "n = Neg(r, ^c)");
  BOOST_TEST(s.timeline_label() == std::string("s = _Send(edge_1_c @") + kDev1 + ")");
  BOOST_TEST(r.timeline_label() == std::string("r = _Recv(edge_7_m @") + kDev1 + ")");
  // One offset for every reading of the process.
  BOOST_TEST(n.all_start_nanos() - c.all_start_nanos() == 900);
  BOOST_TEST(c.all_start_nanos() == SteadyToWallNanos(base));
  BOOST_TEST(c.all_start_micros() == c.all_start_nanos() / 1000);
  BOOST_TEST(n.all_end_rel_nanos() == 1000);
  BOOST_TEST(n.op_end_rel_nanos() == 1000);
  BOOST_TEST(n.op_start_rel_nanos() == 0);
  BOOST_TEST(s.all_end_rel_nanos() == 0);
  BOOST_TEST(n.thread_id() == 7u);
  BOOST_TEST(stats.thread_names().at(3) == "pool thread 0");
  BOOST_TEST(stats.thread_names().at(7) == "thread 7");
  BOOST_TEST(stats.thread_names().size() == 2u);
}

BOOST_AUTO_TEST_CASE(steady_readings_map_to_the_wall_clock) {
  const auto steady = std::chrono::steady_clock::now().time_since_epoch();
  const auto wall = std::chrono::system_clock::now().time_since_epoch();
  const int64_t converted =
      SteadyToWallNanos(std::chrono::duration_cast<std::chrono::nanoseconds>(steady).count());
  const int64_t actual = std::chrono::duration_cast<std::chrono::nanoseconds>(wall).count();
  // Same clock up to how far the wall clock was stepped since the offset
  // was measured: a minute is far more than any sane adjustment.
  BOOST_TEST(std::llabs(converted - actual) < int64_t{60'000'000'000});
}

BOOST_AUTO_TEST_CASE(trace_fields_cross_the_wire) {
  wire::RunGraphRequest req;
  req.session_id = 1;
  req.step_id = 2;
  req.trace = true;
  wire::RunGraphRequest req_back;
  BOOST_TEST_REQUIRE(
      wire::DecodeRunGraphRequest(wire::EncodeRunGraphRequest(req), &req_back).ok());
  BOOST_TEST(req_back.trace);

  tensorflow::DeviceStepStats stats;
  stats.set_device(kDev0);
  stats.add_node_stats()->set_node_name("x");
  (*stats.mutable_thread_names())[4] = "pool thread 1";
  wire::RunGraphResponse response;
  response.partitions.resize(2);
  response.partitions[0].retvals.push_back(Tensor::Scalar<float>(2));
  response.partitions[0].step_stats = stats.SerializeAsString();
  wire::RunGraphResponse back;
  Status s = wire::DecodeRunGraphResponse(wire::EncodeRunGraphResponse(response), &back);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(back.partitions.size() == 2u);
  BOOST_TEST(back.partitions[1].step_stats.empty());
  tensorflow::DeviceStepStats stats_back;
  BOOST_TEST_REQUIRE(stats_back.ParseFromString(back.partitions[0].step_stats));
  BOOST_TEST(stats_back.device() == kDev0);
  BOOST_TEST(stats_back.node_stats(0).node_name() == "x");
  BOOST_TEST(stats_back.thread_names().at(4) == "pool thread 1");
  BOOST_TEST(back.partitions[0].retvals[0].scalar<float>() == 2.f);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
