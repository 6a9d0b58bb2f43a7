// Step traces: RunOptions.trace_level fills RunMetadata.step_stats with every
// node each device ran (wall-clock times, threads, Send/Recv labels), and the
// Chrome trace built from it shows one process per device, a track per
// thread and a flow arrow from the Send to its Recv.
#include <boost/test/unit_test.hpp>

#include <map>
#include <set>

#include "client/chrome_trace.h"
#include "client/client_session.h"
#include "client/standard_ops.h"
#include "graph/optimizer_trace.h"
#include "tests/client/json_test_util.h"

namespace af {
namespace {

using testing::JsonParser;
using testing::JsonValue;

std::string Cpu(int i) { return "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(i); }

// x (fed) and w on CPU:0 feed a MatMul there; its square is computed on
// CPU:1, so the product crosses devices through one _Send/_Recv pair.
struct TwoDeviceGraph {
  TwoDeviceGraph() : root(Scope::NewRootScope()) {
    Scope cpu0 = root.WithDevice(Cpu(0)), cpu1 = root.WithDevice(Cpu(1));
    x = ops::Placeholder(cpu0.WithOpName("x"), DT_FLOAT);
    auto w = ops::Const(cpu0.WithOpName("w"), {{1.f, 2.f}, {3.f, 4.f}});
    a = ops::MatMul(cpu0.WithOpName("a"), x, w);
    b = ops::Square(cpu1.WithOpName("b"), a);
  }
  ClientSession::FeedType Feed() const {
    return {{x, Input::Initializer({{1.f, 0.f}, {0.f, 1.f}})}};
  }
  Scope root;
  Output x, a, b;
};

SessionOptions TwoCpus() {
  SessionOptions options;
  options.num_cpu_devices = 2;
  return options;
}

RunOptions Traced() {
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  return options;
}

const tensorflow::DeviceStepStats* FindDevice(const tensorflow::StepStats& stats,
                                              const std::string& device) {
  for (const auto& dev : stats.dev_stats())
    if (dev.device() == device) return &dev;
  return nullptr;
}

const tensorflow::NodeExecStats* FindOp(const tensorflow::DeviceStepStats& dev,
                                        const std::string& op) {
  for (const auto& n : dev.node_stats())
    if (n.timeline_label().find(" = " + op + "(") != std::string::npos) return &n;
  return nullptr;
}

// "<node> = _Send(<tensor> @<peer>)" -> {tensor, peer}.
std::pair<std::string, std::string> TransferOf(const tensorflow::NodeExecStats& n) {
  const std::string& label = n.timeline_label();
  const size_t open = label.find('('), at = label.rfind(" @"), close = label.rfind(')');
  if (open == std::string::npos || at == std::string::npos || close == std::string::npos ||
      at < open || close < at)
    return {};
  return {label.substr(open + 1, at - open - 1), label.substr(at + 2, close - at - 2)};
}

void CheckStepStats(const tensorflow::StepStats& stats) {
  // Both devices, and the graph optimizer's passes beside them.
  BOOST_TEST_REQUIRE(stats.dev_stats_size() == 3);
  BOOST_TEST(FindDevice(stats, kOptimizerTraceDevice) != nullptr);
  const auto* cpu0 = FindDevice(stats, Cpu(0));
  const auto* cpu1 = FindDevice(stats, Cpu(1));
  BOOST_TEST_REQUIRE(cpu0 != nullptr);
  BOOST_TEST_REQUIRE(cpu1 != nullptr);

  std::map<std::string, std::string> device_of;  // node -> device
  for (const auto* dev : {cpu0, cpu1}) {
    BOOST_TEST(dev->node_stats_size() > 0);
    for (const auto& n : dev->node_stats()) {
      BOOST_TEST(!n.node_name().empty());
      device_of[n.node_name()] = dev->device();
      BOOST_TEST(n.all_start_nanos() > 0, n.node_name());
      BOOST_TEST(n.all_start_micros() == n.all_start_nanos() / 1000, n.node_name());
      BOOST_TEST(n.all_end_rel_nanos() >= 0, n.node_name());
      BOOST_TEST(n.op_end_rel_nanos() >= n.op_start_rel_nanos(), n.node_name());
      BOOST_TEST(n.all_end_rel_micros() >= 0, n.node_name());
      BOOST_TEST(n.timeline_label().rfind(n.node_name() + " = ", 0) == 0, n.timeline_label());
      BOOST_TEST(dev->thread_names().count(n.thread_id()) == 1u, n.node_name());
    }
  }
  // Every node of the step, on the device it was pinned to.
  BOOST_TEST(device_of["w"] == Cpu(0));
  BOOST_TEST(device_of["a"] == Cpu(0));
  BOOST_TEST(device_of["b"] == Cpu(1));
  const auto* matmul = FindOp(*cpu0, "MatMul");
  BOOST_TEST_REQUIRE(matmul != nullptr);
  BOOST_TEST(matmul->timeline_label().find(", w)") != std::string::npos, matmul->timeline_label());
  BOOST_TEST(FindOp(*cpu0, "_Arg") != nullptr);     // the feed
  BOOST_TEST(FindOp(*cpu1, "_Retval") != nullptr);  // the fetch

  // The pair names the same tensor, each side naming the other's device.
  const auto* send = FindOp(*cpu0, "_Send");
  const auto* recv = FindOp(*cpu1, "_Recv");
  BOOST_TEST_REQUIRE(send != nullptr);
  BOOST_TEST_REQUIRE(recv != nullptr);
  const auto [send_tensor, send_peer] = TransferOf(*send);
  const auto [recv_tensor, recv_peer] = TransferOf(*recv);
  BOOST_TEST(!send_tensor.empty());
  BOOST_TEST(send_tensor == recv_tensor);
  BOOST_TEST(send_peer == Cpu(1));
  BOOST_TEST(recv_peer == Cpu(0));
}

JsonValue ParseTrace(const std::string& json) {
  JsonValue doc;
  std::string error;
  BOOST_TEST_REQUIRE(JsonParser::Parse(json, &doc, &error), error << "\n" << json);
  BOOST_TEST_REQUIRE(doc.kind == JsonValue::kObject);
  BOOST_TEST_REQUIRE(doc["traceEvents"].kind == JsonValue::kArray);
  return doc;
}

void CheckChromeTrace(const tensorflow::StepStats& stats, const std::string& json) {
  const JsonValue doc = ParseTrace(json);
  std::map<std::string, int> pid_of;             // device -> pid
  std::set<std::pair<int, int>> named_threads;   // (pid, tid)
  std::map<std::string, const JsonValue*> slices;  // node name -> its X event
  std::vector<const JsonValue*> flow_starts, flow_ends;
  int complete_events = 0;
  for (const JsonValue& e : doc["traceEvents"].array) {
    BOOST_TEST_REQUIRE(e.kind == JsonValue::kObject);
    const std::string ph = e["ph"].string;
    BOOST_TEST_REQUIRE(e["pid"].kind == JsonValue::kNumber);
    const int pid = static_cast<int>(e["pid"].number);
    if (ph == "M" && e["name"].string == "process_name") {
      pid_of[e["args"]["name"].string] = pid;
    } else if (ph == "M" && e["name"].string == "thread_name") {
      BOOST_TEST(!e["args"]["name"].string.empty());
      named_threads.insert({pid, static_cast<int>(e["tid"].number)});
    } else if (ph == "X") {
      ++complete_events;
      BOOST_TEST(e["dur"].number >= 0.0);
      BOOST_TEST(e["ts"].number >= 0.0);
      BOOST_TEST(e["cat"].string == e["args"]["op"].string);
      slices[e["name"].string] = &e;
    } else if (ph == "s") {
      flow_starts.push_back(&e);
    } else if (ph == "f") {
      flow_ends.push_back(&e);
    }
  }
  int nodes = 0;
  for (const auto& dev : stats.dev_stats()) nodes += dev.node_stats_size();
  BOOST_TEST(complete_events == nodes);
  BOOST_TEST_REQUIRE(pid_of.size() == 3u);  // the two devices and the optimizer's passes
  BOOST_TEST_REQUIRE(pid_of.count(kOptimizerTraceDevice) == 1u);
  BOOST_TEST_REQUIRE(pid_of.count(Cpu(0)) == 1u);
  BOOST_TEST_REQUIRE(pid_of.count(Cpu(1)) == 1u);
  BOOST_TEST(pid_of[Cpu(0)] != pid_of[Cpu(1)]);
  for (const auto& [name, e] : slices) {
    BOOST_TEST(named_threads.count({static_cast<int>((*e)["pid"].number),
                                    static_cast<int>((*e)["tid"].number)}) == 1u,
               name);
  }

  BOOST_TEST_REQUIRE(slices.count("a") == 1u);
  const JsonValue& a = *slices["a"];
  BOOST_TEST(a["cat"].string == "MatMul");
  BOOST_TEST(static_cast<int>(a["pid"].number) == pid_of[Cpu(0)]);
  BOOST_TEST_REQUIRE(a["args"]["inputs"].array.size() == 2u);
  BOOST_TEST(a["args"]["inputs"].array[1].string == "w");
  BOOST_TEST_REQUIRE(slices.count("b") == 1u);
  BOOST_TEST((*slices["b"])["cat"].string == "Square");
  BOOST_TEST(static_cast<int>((*slices["b"])["pid"].number) == pid_of[Cpu(1)]);

  // One arrow, from inside the Send on CPU:0 to inside the Recv on CPU:1.
  BOOST_TEST_REQUIRE(flow_starts.size() == 1u);
  BOOST_TEST_REQUIRE(flow_ends.size() == 1u);
  const JsonValue& s = *flow_starts[0];
  const JsonValue& f = *flow_ends[0];
  BOOST_TEST(s["id"].number == f["id"].number);
  BOOST_TEST(f["bp"].string == "e");
  const JsonValue* send = nullptr;
  const JsonValue* recv = nullptr;
  for (const auto& [name, e] : slices) {
    if ((*e)["cat"].string == "_Send") send = e;
    if ((*e)["cat"].string == "_Recv") recv = e;
  }
  BOOST_TEST_REQUIRE(send != nullptr);
  BOOST_TEST_REQUIRE(recv != nullptr);
  BOOST_TEST(s["name"].string == (*send)["args"]["tensor_name"].string);
  BOOST_TEST((*send)["args"]["tensor_name"].string == (*recv)["args"]["tensor_name"].string);
  for (const auto& [flow, slice] : {std::pair{&s, send}, std::pair{&f, recv}}) {
    BOOST_TEST((*flow)["pid"].number == (*slice)["pid"].number);
    BOOST_TEST((*flow)["tid"].number == (*slice)["tid"].number);
    BOOST_TEST((*flow)["ts"].number >= (*slice)["ts"].number - 1e-3);
    BOOST_TEST((*flow)["ts"].number <= (*slice)["ts"].number + (*slice)["dur"].number + 1e-3);
  }
  BOOST_TEST(static_cast<int>(s["pid"].number) == pid_of[Cpu(0)]);
  BOOST_TEST(static_cast<int>(f["pid"].number) == pid_of[Cpu(1)]);
}

BOOST_AUTO_TEST_SUITE(trace)

BOOST_AUTO_TEST_CASE(traced_run_records_every_node_of_both_devices) {
  TwoDeviceGraph g;
  ClientSession session(g.root, TwoCpus());
  BOOST_TEST_REQUIRE(session.status().ok(), session.status().ToString());
  std::vector<Tensor> out;
  RunMetadata metadata;
  Status s = session.Run(Traced(), g.Feed(), {g.b}, {}, &out, &metadata);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(out.size() == 1u);
  const float want[] = {1.f, 4.f, 9.f, 16.f};
  for (int i = 0; i < 4; ++i) BOOST_TEST(out[0].data<float>()[i] == want[i]);
  CheckStepStats(metadata.step_stats);
  CheckChromeTrace(metadata.step_stats, StepStatsToChromeTrace(metadata.step_stats));
}

BOOST_AUTO_TEST_CASE(untraced_runs_leave_step_stats_empty) {
  TwoDeviceGraph g;
  ClientSession session(g.root, TwoCpus());
  std::vector<Tensor> out;
  RunMetadata metadata;
  // Stale contents are cleared, not appended to.
  metadata.step_stats.add_dev_stats()->set_device("stale");
  Status s = session.Run(RunOptions{}, g.Feed(), {g.b}, {}, &out, &metadata);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(metadata.step_stats.dev_stats_size() == 0);
  // The same cached step traced (on the second run, which the devices also
  // measure for the cost model), untraced again, and traced again.
  for (int level : {RunOptions::SOFTWARE_TRACE, RunOptions::NO_TRACE, RunOptions::FULL_TRACE}) {
    RunOptions options;
    options.trace_level = static_cast<RunOptions::TraceLevel>(level);
    s = session.Run(options, g.Feed(), {g.b}, {}, &out, &metadata);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    if (level == RunOptions::NO_TRACE) {
      BOOST_TEST(metadata.step_stats.dev_stats_size() == 0);
    } else {
      CheckStepStats(metadata.step_stats);
    }
  }
  // A trace level without anywhere to put the trace just runs the step.
  s = session.Run(Traced(), g.Feed(), {g.b}, {}, &out, nullptr);
  BOOST_TEST(s.ok(), s.ToString());
}

BOOST_AUTO_TEST_CASE(session_run_with_metadata_traces_and_keeps_old_overloads) {
  TwoDeviceGraph g;
  tensorflow::GraphDef def;
  BOOST_TEST_REQUIRE(g.root.ToGraphDef(&def).ok());
  std::unique_ptr<Session> session;
  BOOST_TEST_REQUIRE(Session::Create(TwoCpus(), &session).ok());
  BOOST_TEST_REQUIRE(session->Extend(def).ok());
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x:0", Tensor::FromVector<float>({1.f, 0.f, 0.f, 1.f}, TensorShape{2, 2})}};
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session->Run(feeds, {"b:0"}, {}, &out).ok());
  BOOST_TEST_REQUIRE(session->Run(RunOptions{}, feeds, {"b:0"}, {}, &out).ok());
  RunMetadata metadata;
  Status s = session->Run(Traced(), feeds, {"b:0"}, {}, &out, &metadata);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  CheckStepStats(metadata.step_stats);
  BOOST_TEST(out[0].data<float>()[3] == 16.f);
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_CASE(bad_trace_level_is_invalid_argument) {
  TwoDeviceGraph g;
  ClientSession session(g.root, TwoCpus());
  std::vector<Tensor> out;
  RunMetadata metadata;
  RunOptions options;
  options.trace_level = static_cast<RunOptions::TraceLevel>(7);
  Status s = session.Run(options, g.Feed(), {g.b}, {}, &out, &metadata);
  BOOST_TEST(errors::IsInvalidArgument(s), s.ToString());
  BOOST_TEST(s.message().find("trace_level") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
