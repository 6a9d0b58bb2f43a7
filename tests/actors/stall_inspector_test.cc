// The stall inspector: a step whose Recv waits too long is reported once,
// naming the step's task, the tensor and the device it waits for; a queue
// operation that waits too long is reported once, naming the queue and
// what it waits for.
#include <mutex>

#include <boost/test/unit_test.hpp>

#include "tests/actors/session_test_util.h"
#include "tests/actors/stall_log_test_util.h"

namespace af {
namespace {

using testing::StallLog;

using testing::GraphBuilder;
using testing::LocalCpu;

BOOST_AUTO_TEST_CASE(a_stuck_recv_is_reported_once) {
  StallLog stall_log;
  SessionOptions options = stall_log.Options(200);
  options.num_cpu_devices = 2;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  GraphBuilder b;
  tensorflow::NodeDef* recv = b.Add("stuck", "_Recv", {}, LocalCpu(1));
  auto& attr = *recv->mutable_attr();
  attr["tensor_type"].set_type(tensorflow::DT_FLOAT);
  attr["tensor_name"].set_s("nobody_sends_this");
  attr["send_device"].set_s(LocalCpu(0));
  attr["send_device_incarnation"].set_i(1);
  attr["recv_device"].set_s(LocalCpu(1));
  b.Op("Identity", "y", {"stuck"}, DT_FLOAT, LocalCpu(1));
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  RunOptions run;
  run.timeout_ms = 1200;  // several inspections while the step hangs
  std::vector<Tensor> out;
  s = session->Run(run, {}, {"y"}, {}, &out);
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
  const std::vector<std::string> lines = stall_log.Lines();
  BOOST_TEST_REQUIRE(lines.size() == 1u);  // once, not at every inspection
  const std::string& line = lines.front();
  BOOST_TEST(line.find("nobody_sends_this") != std::string::npos, line);
  BOOST_TEST(line.find("has waited") != std::string::npos, line);
  BOOST_TEST(line.find("for " + LocalCpu(0)) != std::string::npos, line);
  BOOST_TEST(line.find("/job:localhost/replica:0/task:0") != std::string::npos, line);
}

BOOST_AUTO_TEST_CASE(a_dequeue_from_an_empty_queue_is_reported_once) {
  StallLog stall_log;
  SessionOptions options = stall_log.Options(200);
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  GraphBuilder b;
  tensorflow::NodeDef* q = b.Add("input_queue", "FIFOQueueV2", {}, LocalCpu(0));
  (*q->mutable_attr())["component_types"].mutable_list()->add_type(tensorflow::DT_FLOAT);
  (*q->mutable_attr())["shared_name"].set_s("input_queue");
  tensorflow::NodeDef* deq = b.Add("deq", "QueueDequeueV2", {"input_queue"}, LocalCpu(0));
  (*deq->mutable_attr())["component_types"].mutable_list()->add_type(tensorflow::DT_FLOAT);
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  RunOptions run;
  run.timeout_ms = 1200;
  std::vector<Tensor> out;
  s = session->Run(run, {}, {"deq"}, {}, &out);
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
  const std::vector<std::string> lines = stall_log.Lines();
  BOOST_TEST_REQUIRE(lines.size() == 1u);
  const std::string& line = lines.front();
  BOOST_TEST(line.find("actorflow stall inspector: ") == 0u, line);
  BOOST_TEST(line.find("input_queue") != std::string::npos, line);
  BOOST_TEST(line.find("a dequeue has waited") != std::string::npos, line);
  BOOST_TEST(line.find("holds 0 of the 1 elements") != std::string::npos, line);
}

}  // namespace
}  // namespace af
