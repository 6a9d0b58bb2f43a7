// Propagation in graphs without control flow, where nodes count their
// inputs with atomic counters from any thread: joins of nodes that run on
// the device's pool at once, dead values arriving by Recv, the root
// iteration's state reused from step to step, and NoOps that are skipped
// but still order their dependents.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "core/rendezvous_key.h"
#include "runtime/rendezvous.h"
#include "tests/runtime/executor_test_util.h"

namespace af::test {
namespace {

const std::string kTf = "attr { key: 'T' value { type: DT_FLOAT } }";

Tensor Square(int n, float start) {
  Tensor t(DT_FLOAT, TensorShape{n, n});
  for (int i = 0; i < n * n; ++i) t.data<float>()[i] = start + static_cast<float>(i % 7);
  return t;
}

// `width` MatMuls (expensive: they go to the pool) of the same two feeds,
// summed by one AddN: every product arrives from another thread.
std::string WideJoin(int width) {
  std::string g = Arg("a", 0) + Arg("b", 1);
  std::vector<std::string> products;
  for (int i = 0; i < width; ++i) {
    const std::string name = "mm" + std::to_string(i);
    g += Node(name, "MatMul", {"a", "b"}, kTf);
    products.push_back(name);
  }
  g += Node("sum", "AddN", products,
            kTf + " attr { key: 'N' value { i: " + std::to_string(width) + " } }");
  return g + Retval("ret", "sum", 0, "DT_FLOAT");
}

// width * (a x b), in double precision.
std::vector<double> WideJoinReference(const Tensor& a, const Tensor& b, int n, int width) {
  std::vector<double> out(static_cast<size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int k = 0; k < n; ++k)
        acc += static_cast<double>(a.data<float>()[i * n + k]) * b.data<float>()[k * n + j];
      out[static_cast<size_t>(i) * n + j] = acc * width;
    }
  return out;
}

bool Matches(const Tensor& got, const std::vector<double>& want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (std::abs(got.data<float>()[i] - want[i]) > 1e-4 * std::max(1.0, std::abs(want[i])))
      return false;
  return true;
}

BOOST_AUTO_TEST_CASE(a_join_of_nodes_finishing_on_many_threads_fires_once_with_every_input) {
  constexpr int kWidth = 48, kN = 8;
  ExecutorFixture f(4);
  Status s = f.Build(ParseGraph(WideJoin(kWidth)));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  const Tensor a = Square(kN, -3), b = Square(kN, 1);
  const std::vector<double> want = WideJoinReference(a, b, kN, kWidth);
  // Several steps at once on one executor, each with its own root state.
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 40; ++i) {
        std::vector<Tensor> out;
        Status st = f.Run({a, b}, 1, &out);
        if (!st.ok() || !Matches(out[0], want)) failures++;
      }
    });
  for (auto& t : threads) t.join();
  BOOST_TEST(failures.load() == 0);
}

BOOST_AUTO_TEST_CASE(a_failed_step_leaves_no_values_behind_for_the_next) {
  // `a` feeds both MatMuls; the second fails on bad shapes, so the step
  // ends with values delivered to nodes that never ran. The next step must
  // not see them, and nothing may stay allocated.
  ExecutorFixture f(2);
  Status s = f.Build(ParseGraph(Arg("a", 0) + Arg("b", 1) + Arg("c", 2) +
                                Node("good", "MatMul", {"a", "b"}, kTf) +
                                Node("bad", "MatMul", {"a", "c"}, kTf) +
                                Node("sum", "AddN", {"good", "bad"},
                                     kTf + " attr { key: 'N' value { i: 2 } }") +
                                Retval("ret", "sum", 0, "DT_FLOAT")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  const Tensor a = Square(4, 0), b = Square(4, 2);
  const std::vector<double> want = WideJoinReference(a, b, 4, 2);
  const int64_t before = GetCpuAllocator()->GetStats().bytes_in_use;
  for (int i = 0; i < 10; ++i) {
    std::vector<Tensor> out;
    Tensor wrong(DT_FLOAT, TensorShape{3, 4});
    s = f.Run({a, b, wrong}, 1, &out);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s.ToString());
    s = f.Run({a, b, b}, 1, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(Matches(out[0], want));
  }
  // The root states kept for reuse hold no tensors.
  BOOST_TEST(GetCpuAllocator()->GetStats().bytes_in_use == before);
}

const char kDevice[] = "/job:localhost/replica:0/task:0/device:CPU:0";

std::string RecvAttrs(const std::string& tensor_name) {
  return std::string("attr { key: 'tensor_type' value { type: DT_FLOAT } }") +
         " attr { key: 'tensor_name' value { s: '" + tensor_name + "' } }"
         " attr { key: 'send_device' value { s: '" + kDevice + "' } }"
         " attr { key: 'send_device_incarnation' value { i: 1 } }"
         " attr { key: 'recv_device' value { s: '" + kDevice + "' } }"
         " attr { key: 'client_terminated' value { b: false } }";
}

BOOST_AUTO_TEST_CASE(a_dead_value_received_without_control_flow_kills_its_consumers) {
  // The Switch that made the value dead is in another partition; this one
  // has no control flow. A ControlTrigger after the dead node still runs.
  ExecutorFixture f(2);
  Status s = f.Build(ParseGraph(
      Node("recv", "_Recv", {}, RecvAttrs("edge_dead")) + Node("id", "Identity", {"recv"}, kTf) +
      Node("trigger", "ControlTrigger", {"^id"}) + ConstFloat("after", 7.0f, "trigger") +
      Retval("ret", "after", 0, "DT_FLOAT") + Retval("dead_ret", "id", 1, "DT_FLOAT")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  const std::string key = RendezvousKey(kDevice, 1, kDevice, "edge_dead", 0, 0);
  {
    LocalRendezvous rendezvous;
    BOOST_TEST_REQUIRE(rendezvous.Send(key, Tensor(), true).ok());
    std::vector<Tensor> out;
    s = f.Run({}, 2, &out, &rendezvous);
    // Fetching the dead Identity is an error naming it, not a hang.
    BOOST_TEST(!s.ok());
  }
  {
    LocalRendezvous rendezvous;
    Tensor live(DT_FLOAT, TensorShape{});
    live.scalar<float>() = 2.5f;
    BOOST_TEST_REQUIRE(rendezvous.Send(key, live, false).ok());
    std::vector<Tensor> out;
    s = f.Run({}, 2, &out, &rendezvous);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<float>() == 7.0f);
    BOOST_TEST(out[1].scalar<float>() == 2.5f);
  }
}

BOOST_AUTO_TEST_CASE(skipped_noops_still_order_dependents_and_are_timed_when_asked) {
  // first -> noop -> second, with no data between them: the NoOp's only
  // job is the ordering, and a traced step reports it like any node.
  ExecutorFixture f(2);
  Status s = f.Build(ParseGraph(ConstFloat("first", 1.0f) + Node("noop", "NoOp", {"^first"}) +
                                ConstFloat("second", 2.0f, "noop") +
                                Retval("ret", "second", 0, "DT_FLOAT")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  std::mutex mu;
  std::vector<std::pair<std::string, NodeTiming>> timed;
  CallFrame frame({}, 1);
  Executor::Args args;
  args.call_frame = &frame;
  args.timing_sink = [&](const NodeTiming& t) {
    std::lock_guard<std::mutex> lock(mu);
    timed.emplace_back(f.executor->graph().FindNodeId(t.node_id)->name(), t);
  };
  s = f.executor->Run(args);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(frame.ConsumeRetvals(&out).ok());
  BOOST_TEST(out[0].scalar<float>() == 2.0f);
  std::map<std::string, NodeTiming> by_name(timed.begin(), timed.end());
  BOOST_TEST_REQUIRE(by_name.count("noop") == 1u);
  BOOST_TEST(by_name["first"].end_ns <= by_name["noop"].start_ns);
  BOOST_TEST(by_name["noop"].end_ns <= by_name["second"].start_ns);
}

}  // namespace
}  // namespace af::test
