// A traced step whose graph spans this process and an `actorflow server`
// child: the remote worker's node times come back with its reply, and the
// Chrome trace pairs the transfers in both directions across processes.
#include <boost/test/unit_test.hpp>

#include <map>

#include "client/chrome_trace.h"
#include "graph/optimizer_trace.h"
#include "tests/actors/session_test_util.h"
#include "tests/client/json_test_util.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using testing::GraphBuilder;
using testing::JsonParser;
using testing::JsonValue;
using testing::LocalCpu;
using testing::Matrix;
using testing::ServerProcess;

const std::string kRemoteCpu = "/job:worker/replica:0/task:1/device:CPU:0";

BOOST_AUTO_TEST_CASE(trace_spans_the_local_and_the_remote_worker) {
  ServerProcess server;
  Status s = server.Start({"--task", "1", "--cpus", "1", "--threads", "1"});
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  SessionOptions options;
  options.remote_workers = {server.address()};
  options.threads_per_device = 1;
  options.default_timeout_ms = 30000;
  std::unique_ptr<Session> session;
  s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());

  // x (local) -> m = x w (remote) -> y = m + x (local).
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Const("w", Matrix(2, 2, {1, 2, 3, 4}), kRemoteCpu);
  b.Op("MatMul", "m", {"x", "w"}, DT_FLOAT, kRemoteCpu);
  b.Op("Add", "y", {"m", "x"}, DT_FLOAT, LocalCpu(0));
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());

  RunOptions run_options;
  run_options.trace_level = RunOptions::SOFTWARE_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  s = session->Run(run_options, {{"x", Matrix(1, 2, {1, -1})}}, {"y"}, {}, &out, &metadata);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].data<float>()[0] == -1.f);  // m = [-2, -2], y = m + x

  std::map<std::string, std::map<std::string, std::string>> ops;  // device -> node -> label
  for (const auto& dev : metadata.step_stats.dev_stats()) {
    if (dev.device() == kOptimizerTraceDevice) continue;  // passes, not devices
    for (const auto& n : dev.node_stats()) {
      ops[dev.device()][n.node_name()] = n.timeline_label();
      BOOST_TEST(n.all_start_nanos() > 0);
      BOOST_TEST(n.all_end_rel_nanos() >= 0);
    }
  }
  BOOST_TEST_REQUIRE(ops.size() == 2u);
  BOOST_TEST(ops[kRemoteCpu].count("m") == 1u);
  BOOST_TEST(ops[kRemoteCpu].count("w") == 1u);
  BOOST_TEST(ops[LocalCpu(0)].count("y") == 1u);

  JsonValue doc;
  std::string error;
  const std::string json = StepStatsToChromeTrace(metadata.step_stats);
  BOOST_TEST_REQUIRE(JsonParser::Parse(json, &doc, &error), error);
  std::map<std::string, int> pid_of;
  std::map<double, std::pair<int, int>> flows;  // id -> (pid of s, pid of f)
  for (const JsonValue& e : doc["traceEvents"].array) {
    const std::string& ph = e["ph"].string;
    const int pid = static_cast<int>(e["pid"].number);
    if (ph == "M" && e["name"].string == "process_name") pid_of[e["args"]["name"].string] = pid;
    if (ph == "s") flows[e["id"].number].first = pid;
    if (ph == "f") flows[e["id"].number].second = pid;
  }
  // x travels out to the server, m comes back: one arrow each way.
  BOOST_TEST_REQUIRE(flows.size() == 2u);
  int outbound = 0, inbound = 0;
  for (const auto& [id, ends] : flows) {
    if (ends == std::pair{pid_of[LocalCpu(0)], pid_of[kRemoteCpu]}) ++outbound;
    if (ends == std::pair{pid_of[kRemoteCpu], pid_of[LocalCpu(0)]}) ++inbound;
  }
  BOOST_TEST(outbound == 1);
  BOOST_TEST(inbound == 1);
  BOOST_TEST(session->Close().ok());
}

}  // namespace
}  // namespace af
