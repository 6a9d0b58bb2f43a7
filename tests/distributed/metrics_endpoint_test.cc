// `actorflow server --metrics_port`: a scrape after a few remote steps shows
// them (steps by outcome, their latency histogram, the data plane's bytes
// from the client's host, open sessions, memory) in Prometheus' text
// format; /healthz and /readyz answer the probes; wrong methods, unknown
// paths and an incomplete request get 405, 404 and 400, and the endpoint
// still serves after them. The live things' gauges: a queue's depth and
// capacity and an accumulator's gradients as steps change them, and the
// age of the heartbeats a server's master hears from the rest of its
// cluster, gone with the session. (A server's queues outlive the session
// that made them: its devices keep their stateful kernels.)
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <regex>
#include <string>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "core/net/tcp_socket.h"
#include "tests/actors/session_test_util.h"
#include "tests/distributed/server_process.h"

namespace af {
namespace {

using testing::Address;
using testing::FreePorts;
using testing::GraphBuilder;
using testing::ServerProcess;

// The "http://host:port" the server printed for its metrics.
std::string MetricsAddress(const ServerProcess& server) {
  std::smatch m;
  const std::string& out = server.output();
  if (!std::regex_search(out, m, std::regex(R"(metrics on http://([0-9.]+:[0-9]+)/metrics)"))) {
    return "";
  }
  return m[1];
}

// Sends `request` as is and returns everything the endpoint answers.
std::string Exchange(const std::string& address, const std::string& request) {
  std::atomic<bool> stop{false};
  int fd = -1;
  Status s = net::ConnectTcp(address, std::chrono::seconds(5), stop, &fd);
  BOOST_TEST_REQUIRE(s.ok(), s);
  if (!request.empty()) BOOST_TEST_REQUIRE(net::SendAll(fd, request.data(), request.size()).ok());
  shutdown(fd, SHUT_WR);  // an incomplete request ends here
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = recv(fd, buffer, sizeof buffer, 0)) > 0;) answer.append(buffer, n);
  close(fd);
  return answer;
}

std::string Get(const std::string& address, const std::string& path) {
  return Exchange(address, "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
}

// The value of the sample line `series` ("name{labels}"), or -1.
double Sample(const std::string& text, const std::string& series) {
  const size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

// The body of a scrape of /metrics.
std::string Scrape(const std::string& address) {
  const std::string answer = Get(address, "/metrics");
  BOOST_TEST_REQUIRE(answer.rfind("HTTP/1.1 200 OK\r\n", 0) == 0, answer);
  return answer.substr(answer.find("\r\n\r\n") + 4);
}

// Scrapes until `series` is no longer listed (true), or gives up after about
// 10 s (false): what a closed session held goes a moment after Close.
bool ScrapeUntilGone(const std::string& address, const std::string& series, std::string* body) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    *body = Scrape(address);
    if (Sample(*body, series) < 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

void AddFloatList(tensorflow::NodeDef* node, const std::string& attr) {
  (*node->mutable_attr())[attr].mutable_list()->add_type(tensorflow::DT_FLOAT);
}

BOOST_AUTO_TEST_SUITE(metrics_endpoint)

BOOST_AUTO_TEST_CASE(a_scrape_shows_the_steps_the_bytes_and_the_sessions) {
  ServerProcess server;
  Status s = server.Start({"--task", "1", "--metrics_port", "0"});
  BOOST_TEST_REQUIRE(s.ok(), s);
  const std::string metrics = MetricsAddress(server);
  BOOST_TEST_REQUIRE(!metrics.empty(), server.output());

  SessionOptions options;
  options.remote_workers = {server.address()};
  options.default_timeout_ms = 30000;
  std::unique_ptr<Session> session;
  BOOST_TEST_REQUIRE(Session::Create(options, &session).ok());
  GraphBuilder b;
  const std::string local = "/job:localhost/replica:0/task:0/device:CPU:0";
  const std::string remote = "/job:worker/replica:0/task:1/device:CPU:0";
  b.Placeholder("x", DT_FLOAT, local);
  b.Const("two", Tensor::Scalar<float>(2), remote);
  b.Op("Mul", "there", {"x", "two"}, DT_FLOAT, remote);
  b.Op("Neg", "back", {"there"}, DT_FLOAT, local);
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  Tensor x(DT_FLOAT, TensorShape({1024}));
  for (int i = 0; i < 1024; ++i) x.data<float>()[i] = static_cast<float>(i);
  // At least 5 steps, and more until a feed went by the data plane: while
  // its connection is being made (on a loaded machine, for several steps)
  // tensors go through CAF, which the per-peer bytes do not count.
  const std::string received_series =
      "actorflow_data_plane_bytes_received_total{host=\"127.0.0.1\"}";
  int kSteps = 0;
  for (; kSteps < 5 || (kSteps < 400 && Sample(Scrape(metrics), received_series) < 4096);
       ++kSteps) {
    std::vector<Tensor> out;
    s = session->Run({{"x", x}}, {"back"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }

  const std::string answer = Get(metrics, "/metrics");
  BOOST_TEST_REQUIRE(answer.rfind("HTTP/1.1 200 OK\r\n", 0) == 0, answer);
  BOOST_TEST(answer.find("Content-Type: text/plain; version=0.0.4") != std::string::npos);
  const std::string body = answer.substr(answer.find("\r\n\r\n") + 4);
  const std::string task = "/job:worker/replica:0/task:1";
  BOOST_TEST(Sample(body, "actorflow_worker_steps_total{task=\"" + task + "\",outcome=\"ok\"}") ==
                 kSteps,
             body);
  BOOST_TEST(Sample(body, "actorflow_worker_steps_total{task=\"" + task +
                              "\",outcome=\"error\"}") == 0,
             body);
  BOOST_TEST(Sample(body, "actorflow_worker_step_seconds_count") == kSteps, body);
  BOOST_TEST(Sample(body, "actorflow_worker_step_seconds_bucket{le=\"+Inf\"}") == kSteps, body);
  BOOST_TEST(Sample(body, "actorflow_worker_step_seconds_sum") > 0, body);
  // 4 KiB each way per step. A transfer goes through CAF while the data
  // plane's connection is still being made (the first steps, on a loaded
  // machine), and those are not counted here: a whole number of feeds, at
  // least one, at most one per step (the client is on 127.0.0.1).
  const double received = Sample(body, received_series);
  BOOST_TEST(received >= 4096, body);
  BOOST_TEST(received <= kSteps * 4096, body);
  BOOST_TEST(static_cast<int64_t>(received) % 4096 == 0, body);
  // The results' way back may all have gone through CAF: the total is
  // listed, the per-peer line only once a tensor went by the data plane.
  BOOST_TEST(Sample(body, "actorflow_data_plane_tensors_sent_total") >= 0, body);
  BOOST_TEST(Sample(body, "actorflow_worker_sessions") == 1, body);
  BOOST_TEST(Sample(body, "actorflow_process_resident_bytes") > 0, body);
  BOOST_TEST(body.find("# TYPE actorflow_worker_step_seconds histogram\n") != std::string::npos);

  BOOST_TEST(Get(metrics, "/healthz").find("200 OK") != std::string::npos);
  BOOST_TEST(Get(metrics, "/readyz").find("200 OK") != std::string::npos);
  BOOST_TEST(Get(metrics, "/secrets").find("404 Not Found") != std::string::npos);
  BOOST_TEST(Exchange(metrics, "POST /metrics HTTP/1.1\r\n\r\n").find("405") != std::string::npos);
  BOOST_TEST(Exchange(metrics, "GET /metr").find("400 Bad Request") != std::string::npos);
  BOOST_TEST(Exchange(metrics, "").find("400 Bad Request") != std::string::npos);
  BOOST_TEST(Get(metrics, "/metrics").find("200 OK") != std::string::npos);  // still serving

  BOOST_TEST_REQUIRE(session->Close().ok());
  BOOST_TEST(Sample(Get(metrics, "/metrics").substr(0), "actorflow_worker_sessions") <= 1);
}

BOOST_AUTO_TEST_CASE(a_scrape_shows_queue_depths_and_accumulator_holds) {
  ServerProcess server;
  Status s = server.Start({"--task", "1", "--metrics_port", "0"});
  BOOST_TEST_REQUIRE(s.ok(), s);
  const std::string metrics = MetricsAddress(server);
  BOOST_TEST_REQUIRE(!metrics.empty(), server.output());
  // Listed before any queue or accumulator exists, without series.
  std::string body = Scrape(metrics);
  for (const char* family :
       {"actorflow_queue_size", "actorflow_queue_capacity", "actorflow_accumulator_gradients_held",
        "actorflow_heartbeat_age_seconds"}) {
    BOOST_TEST(body.find("# TYPE " + std::string(family) + " gauge\n") != std::string::npos,
               family);
    BOOST_TEST(body.find("\n" + std::string(family) + "{") == std::string::npos, body);
  }

  SessionOptions options;
  options.remote_workers = {server.address()};
  options.default_timeout_ms = 30000;
  std::unique_ptr<Session> session;
  BOOST_TEST_REQUIRE(Session::Create(options, &session).ok());
  const std::string local = "/job:localhost/replica:0/task:0/device:CPU:0";
  const std::string remote = "/job:worker/replica:0/task:1/device:CPU:0";
  GraphBuilder b;
  // A shared, bounded queue, and a private unbounded one (named by its node).
  tensorflow::NodeDef* q = b.Add("q", "FIFOQueueV2", {}, remote);
  AddFloatList(q, "component_types");
  (*q->mutable_attr())["capacity"].set_i(10);
  (*q->mutable_attr())["shared_name"].set_s("work \"items\"");
  tensorflow::NodeDef* mine = b.Add("mine", "FIFOQueueV2", {}, remote);
  AddFloatList(mine, "component_types");
  b.Const("items", Tensor::FromVector<float>({1, 2, 3}, TensorShape{3}), remote);
  AddFloatList(b.Add("fill", "QueueEnqueueManyV2", {"q", "items"}, remote), "Tcomponents");
  AddFloatList(b.Add("fill_mine", "QueueEnqueueManyV2", {"mine", "items"}, remote), "Tcomponents");
  AddFloatList(b.Add("take", "QueueDequeueV2", {"q"}, remote), "component_types");
  b.Op("Identity", "taken", {"take"}, DT_FLOAT, local);
  tensorflow::NodeDef* acc = b.Add("acc", "ResourceConditionalAccumulator", {}, remote);
  (*acc->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  (*acc->mutable_attr())["shape"].mutable_shape();
  (*acc->mutable_attr())["shared_name"].set_s("grads");
  b.Const("step", Tensor::Scalar<int64_t>(0), remote);
  b.Const("gradient", Tensor::Scalar<float>(0.5f), remote);
  tensorflow::NodeDef* apply =
      b.Add("apply", "ResourceAccumulatorApplyGradient", {"acc", "step", "gradient"}, remote);
  (*apply->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  std::vector<Tensor> out;
  for (const char* target : {"fill", "fill_mine", "fill_mine", "apply", "apply"}) {
    s = session->Run({}, {}, {target}, &out);
    BOOST_TEST_REQUIRE(s.ok(), target << ": " << s);
  }
  s = session->Run({}, {"taken"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);

  body = Scrape(metrics);
  const std::string shared = "{queue=\"work \\\"items\\\"\"}";
  BOOST_TEST(Sample(body, "actorflow_queue_size" + shared) == 2, body);
  BOOST_TEST(Sample(body, "actorflow_queue_capacity" + shared) == 10, body);
  BOOST_TEST(Sample(body, "actorflow_queue_size{queue=\"mine\"}") == 6, body);
  BOOST_TEST(Sample(body, "actorflow_queue_capacity{queue=\"mine\"}") == -1, body);  // unbounded
  BOOST_TEST(Sample(body, "actorflow_accumulator_gradients_held{accumulator=\"grads\"}") == 2,
             body);
  BOOST_TEST_REQUIRE(session->Close().ok());
}

BOOST_AUTO_TEST_CASE(a_scrape_shows_the_age_of_the_heartbeats_a_servers_master_hears) {
  const std::vector<uint16_t> ports = FreePorts(2);
  BOOST_TEST_REQUIRE(ports.size() == 2u);
  const std::string spec = "ps=" + Address(ports[0]) + ";worker=" + Address(ports[1]);
  ServerProcess ps, worker;
  ps.any_port = worker.any_port = false;
  Status s = ps.Start({"--cluster", spec, "--job", "ps", "--task", "0"});
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = worker.Start({"--cluster", spec, "--job", "worker", "--task", "0", "--metrics_port", "0"});
  BOOST_TEST_REQUIRE(s.ok(), s);
  const std::string metrics = MetricsAddress(worker);
  BOOST_TEST_REQUIRE(!metrics.empty(), worker.output());

  // The session's master runs in the worker's process and watches the ps.
  SessionOptions options;
  options.target = "af://" + worker.address();
  options.default_timeout_ms = 30000;
  std::unique_ptr<Session> session;
  s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, "/job:worker/task:0");
  b.Const("w", Tensor::Scalar<float>(2), "/job:ps/task:0");
  b.Op("Mul", "y", {"x", "w"}, DT_FLOAT, "/job:worker/task:0");
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  std::vector<Tensor> out;
  s = session->Run({{"x", Tensor::Scalar<float>(3)}}, {"y"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);

  std::string body = Scrape(metrics);
  const std::string ps_age = "actorflow_heartbeat_age_seconds{task=\"/job:ps/replica:0/task:0\"}";
  BOOST_TEST(Sample(body, ps_age) >= 0, body);
  // Its own task is in its process: no heartbeat to age.
  BOOST_TEST(body.find("actorflow_heartbeat_age_seconds{task=\"/job:worker") == std::string::npos,
             body);

  BOOST_TEST_REQUIRE(session->Close().ok());
  BOOST_TEST(ScrapeUntilGone(metrics, ps_age, &body), body);
}

BOOST_AUTO_TEST_CASE(a_taken_metrics_port_is_a_clear_error) {
  int fd = -1;
  std::string bound;
  BOOST_TEST_REQUIRE(net::ListenTcp("127.0.0.1", 1, &fd, &bound).ok());
  const std::string port = bound.substr(bound.rfind(':') + 1);
  ServerProcess server;
  Status s = server.Start({"--task", "1", "--metrics_port", port}, std::chrono::seconds(10));
  BOOST_TEST(!s.ok());
  BOOST_TEST(server.output().find("metrics endpoint") != std::string::npos, server.output());
  close(fd);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
