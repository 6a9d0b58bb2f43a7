// Sessions whose master runs in a server (SessionOptions::target
// "af://host:port"): the client sends only the graph, the feeds and the
// fetches; the server's master places over its own task and its cluster's,
// heartbeats them and reports their failures; losing the server itself
// fails the client's calls instead of hanging them.
#include <signal.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "tests/actors/session_test_util.h"
#include "core/step_traffic.h"
#include "graph/optimizer_trace.h"
#include "tests/distributed/remote_session_test_util.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using testing::Address;
using testing::FreePorts;
using testing::GraphBuilder;
using testing::ServerProcess;

// Two ps and two worker servers of one cluster spec.
struct Cluster {
  std::string spec;
  ServerProcess ps0, ps1, worker0, worker1;

  Cluster() {
    const std::vector<uint16_t> ports = FreePorts(4);
    BOOST_TEST_REQUIRE(ports.size() == 4u);
    spec = "ps=" + Address(ports[0]) + "," + Address(ports[1]) + ";worker=" +
           Address(ports[2]) + "," + Address(ports[3]);
    const std::pair<ServerProcess*, std::vector<std::string>> tasks[] = {
        {&ps0, {"--job", "ps", "--task", "0"}},
        {&ps1, {"--job", "ps", "--task", "1"}},
        {&worker0, {"--job", "worker", "--task", "0"}},
        {&worker1, {"--job", "worker", "--task", "1"}}};
    for (const auto& [server, args] : tasks) {
      server->any_port = false;
      std::vector<std::string> all = {"--cluster", spec};
      all.insert(all.end(), args.begin(), args.end());
      Status s = server->Start(all);
      BOOST_TEST_REQUIRE(s.ok(), s);
    }
  }
  std::string target() const { return "af://" + worker0.address(); }
};

// x fed; constants on both ps tasks; products on both workers; the sum on
// ps 0: y = 5x.
tensorflow::GraphDef FourTaskGraph() {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, "/job:worker/task:0");
  b.Const("w0", Tensor::Scalar<float>(2), "/job:ps/task:0");
  b.Const("w1", Tensor::Scalar<float>(3), "/job:ps/task:1");
  b.Op("Mul", "a", {"x", "w0"}, DT_FLOAT, "/job:worker/task:0");
  b.Op("Mul", "b", {"x", "w1"}, DT_FLOAT, "/job:worker/task:1");
  b.Op("Add", "y", {"a", "b"}, DT_FLOAT, "/job:ps/task:0");
  return b.graph();
}

std::set<std::string> TasksThatRan(const RunMetadata& metadata) {
  std::set<std::string> tasks;
  for (const auto& dev : metadata.step_stats.dev_stats()) {
    if (dev.node_stats_size() > 0) {
      tasks.insert(dev.device().substr(0, dev.device().find("/device:")));
    }
  }
  return tasks;
}

BOOST_AUTO_TEST_CASE(a_graph_spans_two_ps_and_two_workers_through_the_servers_master) {
  Cluster cluster;
  SessionOptions options;
  options.target = cluster.target();
  options.default_timeout_ms = 30000;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  // The server's own task and the rest of its cluster; nothing here.
  BOOST_TEST(session->ListDevices().size() == 4u);
  for (const DeviceAttributes& d : session->ListDevices()) {
    BOOST_TEST(d.name.find("/job:localhost") == std::string::npos, d.name);
  }
  BOOST_TEST_REQUIRE(session->Extend(FourTaskGraph()).ok());
  for (int i = 1; i <= 3; ++i) {
    std::vector<Tensor> out;
    s = session->Run({{"x", Tensor::Scalar<float>(static_cast<float>(i))}}, {"y"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(out[0].scalar<float>() == 5.0f * i);
  }
  RunOptions traced;
  traced.trace_level = RunOptions::SOFTWARE_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  s = session->Run(traced, {{"x", Tensor::Scalar<float>(1)}}, {"y"}, {}, &out, &metadata);
  BOOST_TEST_REQUIRE(s.ok(), s);
  const std::set<std::string> tasks = TasksThatRan(metadata);
  for (const char* task : {"/job:ps/replica:0/task:0", "/job:ps/replica:0/task:1",
                           "/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"}) {
    BOOST_TEST(tasks.count(task) == 1u, task);
  }
  // The server's master ran the graph optimizer the session asked for.
  BOOST_TEST(tasks.count(kOptimizerTraceDevice) == 1u);
  // The server's master reports every scalar that crossed between its
  // tasks; y, fetched from ps 0, goes to the master in worker 0's process.
  BOOST_TEST_MESSAGE(TrafficDebugString(metadata.traffic));
  const std::string ps0 = "/job:ps/replica:0/task:0", ps1 = "/job:ps/replica:0/task:1",
                    w0 = "/job:worker/replica:0/task:0", w1 = "/job:worker/replica:0/task:1";
  const std::map<std::pair<std::string, std::string>, std::pair<uint64_t, uint64_t>> expected = {
      {{ps0, w0}, {8, 2}},  // w0, and y fetched
      {{ps1, w1}, {4, 1}},  // w1
      {{w0, w1}, {4, 1}},   // x
      {{w0, ps0}, {4, 1}},  // a
      {{w1, ps0}, {4, 1}}}; // b
  BOOST_TEST(metadata.traffic.size() == expected.size());
  for (const TaskTraffic& entry : metadata.traffic) {
    auto it = expected.find({entry.src, entry.dst});
    BOOST_TEST_REQUIRE((it != expected.end()), entry.src << " -> " << entry.dst);
    BOOST_TEST(entry.bytes == it->second.first, entry.src << " -> " << entry.dst);
    BOOST_TEST(entry.tensors == it->second.second, entry.src << " -> " << entry.dst);
  }
  // The step cache lives in the server's master: the same signature again
  // adds no plan.
  SessionStats before, after;
  BOOST_TEST_REQUIRE(session->GetStats(&before).ok());
  BOOST_TEST_REQUIRE(session->Run({{"x", Tensor::Scalar<float>(2)}}, {"y"}, {}, &out).ok());
  BOOST_TEST_REQUIRE(session->GetStats(&after).ok());
  BOOST_TEST(before.cached_steps == after.cached_steps);
  BOOST_TEST(after.graph_nodes > 0);
  // Errors of the server's master come back whole.
  s = session->Run({}, {"nonexistent"}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(s.message().find("nonexistent") != std::string::npos, s);
  BOOST_TEST(session->Close().ok());
  s = session->Run({{"x", Tensor::Scalar<float>(1)}}, {"y"}, {}, &out);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION, s);

  // A second session on the same server starts from nothing, and its
  // optimizer setting (off) travels with it.
  options.optimizer.opt_level = OptimizerOptions::L0;
  std::unique_ptr<Session> again;
  BOOST_TEST_REQUIRE(Session::Create(options, &again).ok());
  BOOST_TEST_REQUIRE(again->Extend(FourTaskGraph()).ok());
  s = again->Run(traced, {{"x", Tensor::Scalar<float>(4)}}, {"y"}, {}, &out, &metadata);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 20.0f);
  BOOST_TEST(TasksThatRan(metadata).count(kOptimizerTraceDevice) == 0u);
}

BOOST_AUTO_TEST_CASE(variables_live_on_in_the_servers_containers) {
  Cluster cluster;
  SessionOptions options;
  options.target = cluster.target();
  std::unique_ptr<Session> session;
  BOOST_TEST_REQUIRE(Session::Create(options, &session).ok());
  GraphBuilder b;
  tensorflow::NodeDef* v = b.Add("v", "VariableV2", {}, "/job:ps/task:1");
  (*v->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  (*v->mutable_attr())["shape"].mutable_shape();
  b.Const("one", Tensor::Scalar<float>(1), "/job:ps/task:1");
  b.Const("zero", Tensor::Scalar<float>(0), "/job:ps/task:1");
  tensorflow::NodeDef* init = b.Add("init", "Assign", {"v", "zero"}, "/job:ps/task:1");
  (*init->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  tensorflow::NodeDef* inc = b.Add("inc", "AssignAdd", {"v", "one"}, "/job:ps/task:1");
  (*inc->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session->Run({}, {}, {"init"}, &out).ok());
  for (int i = 0; i < 3; ++i) BOOST_TEST_REQUIRE(session->Run({}, {}, {"inc"}, &out).ok());
  Status s = session->Run({}, {"v"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 3.0f);
  std::vector<ContainerListing> listing;
  BOOST_TEST_REQUIRE(session->ListContainers(&listing).ok());
  bool found = false;
  for (const ContainerListing& l : listing) {
    if (l.device.find("/job:ps/replica:0/task:1") == 0 && !l.resources.empty()) found = true;
  }
  BOOST_TEST(found);
  BOOST_TEST(session->Reset({}).ok());
  s = session->Run({}, {"v"}, {}, &out);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION, s);  // reset: uninitialized again
}

BOOST_AUTO_TEST_CASE(losing_the_target_server_fails_the_call_naming_it) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({}).ok());
  std::unique_ptr<Session> session = testing::ConnectThroughMaster(server);
  // A step that waits forever on the server: a queue nobody fills.
  GraphBuilder b;
  tensorflow::NodeDef* q = b.Add("q", "FIFOQueueV2", {}, "");
  (*q->mutable_attr())["component_types"].mutable_list()->add_type(tensorflow::DT_FLOAT);
  tensorflow::NodeDef* deq = b.Add("deq", "QueueDequeueV2", {"q"}, "");
  (*deq->mutable_attr())["component_types"].mutable_list()->add_type(tensorflow::DT_FLOAT);
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  auto running = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return session->Run({}, {"deq"}, {}, &out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const auto killed = std::chrono::steady_clock::now();
  server.Stop(SIGKILL);
  BOOST_TEST_REQUIRE((running.wait_for(std::chrono::seconds(20)) == std::future_status::ready));
  Status s = running.get();
  BOOST_TEST_MESSAGE("the client saw its server die after "
                     << std::chrono::duration<double>(std::chrono::steady_clock::now() - killed)
                            .count()
                     << " s: " << s);
  BOOST_TEST(s.code() == Code::UNAVAILABLE, s);
  BOOST_TEST(s.message().find("af://" + server.address()) != std::string::npos, s);
  std::vector<Tensor> out;
  s = session->Run({}, {"deq"}, {}, &out);
  BOOST_TEST(s.code() == Code::UNAVAILABLE, s);
}

// Workers watch their sessions' masters: a master that dies (kill -9) or
// hangs (SIGSTOP: no heartbeats) leaves no session behind on the others.
// `master` is worker 0 (the af:// target); worker 1 only runs a partition.
void ExpectOrphanFreed(int fault, const std::string& reason) {
  const std::vector<uint16_t> ports = FreePorts(2);
  BOOST_TEST_REQUIRE(ports.size() == 2u);
  const std::string spec = "worker=" + Address(ports[0]) + "," + Address(ports[1]);
  ServerProcess master, other;
  master.any_port = other.any_port = false;
  BOOST_TEST_REQUIRE(master.Start({"--cluster", spec, "--job", "worker", "--task", "0"}).ok());
  BOOST_TEST_REQUIRE(other.Start({"--cluster", spec, "--job", "worker", "--task", "1"}).ok());
  std::unique_ptr<Session> session = testing::ConnectThroughMaster(master);
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, "/job:worker/task:0");
  b.Const("w", Tensor::Scalar<float>(2), "/job:worker/task:1");
  b.Op("Mul", "y", {"x", "w"}, DT_FLOAT, "/job:worker/task:1");
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::Scalar<float>(3)}}, {"y"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].scalar<float>() == 6.0f);
  const auto at = std::chrono::steady_clock::now();
  if (fault == SIGKILL) {
    master.Stop(SIGKILL);
  } else {
    master.Signal(fault);
  }
  // The workers' default: lost after max(10 s, 4x the master's heartbeat
  // loss time); wait well beyond it.
  const std::string line = "worker /job:worker/replica:0/task:1: freed session";
  BOOST_TEST(other.WaitForOutput(line, std::chrono::seconds(30)), other.output());
  BOOST_TEST(other.output().find(reason) != std::string::npos, other.output());
  BOOST_TEST_MESSAGE("worker 1 freed the session "
                     << std::chrono::duration<double>(std::chrono::steady_clock::now() - at)
                            .count()
                     << " s after the master's fault");
  if (fault != SIGKILL) master.Signal(SIGCONT);
}

BOOST_AUTO_TEST_CASE(a_dead_masters_session_is_freed_by_its_workers) {
  ExpectOrphanFreed(SIGKILL, "went away");
}

BOOST_AUTO_TEST_CASE(a_hung_masters_session_is_freed_by_its_workers) {
  ExpectOrphanFreed(SIGSTOP, "sent no heartbeat for");
}

BOOST_AUTO_TEST_CASE(a_bad_or_missing_target_is_named) {
  std::unique_ptr<Session> session;
  SessionOptions options;
  options.target = "grpc://127.0.0.1:2222";
  Status s = Session::Create(options, &session);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(s.message().find("af://host:port") != std::string::npos, s);
  const std::vector<uint16_t> ports = FreePorts(1);
  options.target = "af://" + Address(ports[0]);  // nobody listens there now
  options.setup_timeout_ms = 500;
  s = Session::Create(options, &session);
  BOOST_TEST(s.code() == Code::UNAVAILABLE, s);
  BOOST_TEST(s.message().find(Address(ports[0])) != std::string::npos, s);
}

BOOST_AUTO_TEST_CASE(actorflow_run_takes_a_target) {
  ServerProcess server;
  BOOST_TEST_REQUIRE(server.Start({}).ok());
  const std::string stem = "/tmp/af_remote_master_" + std::to_string(getpid());
  const std::string graph = stem + ".pb", trace = stem + "_trace.json";
  GraphBuilder b;
  b.Const("a", Tensor::Scalar<float>(6), "");
  b.Const("b", Tensor::Scalar<float>(7), "");
  b.Op("Mul", "c", {"a", "b"}, DT_FLOAT, "");
  {
    std::ofstream file(graph, std::ios::binary);
    BOOST_TEST_REQUIRE(b.graph().SerializeToOstream(&file));
  }
  std::string output;
  const int code = testing::RunActorflow(
      {"run", "--graph", graph, "--fetch", "c", "--target", "af://" + server.address(),
       "--trace", trace},
      &output);
  BOOST_TEST(code == 0, output);
  BOOST_TEST(output.find("42") != std::string::npos, output);
  std::ifstream traced(trace);
  BOOST_TEST(traced.good());  // the step was traced through the server's master
  std::remove(graph.c_str());
  std::remove(trace.c_str());
}

}  // namespace
}  // namespace af
