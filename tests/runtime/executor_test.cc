// Plain dataflow: feeds and fetches, errors that abort the step, async
// Recv through the rendezvous, and no leaks.
#include <boost/test/unit_test.hpp>

#include <thread>

#include "runtime/rendezvous.h"
#include "tests/runtime/executor_test_util.h"

namespace af::test {
namespace {

const std::string kTf = "attr { key: 'T' value { type: DT_FLOAT } }";

std::string MatMulGraph() {
  return Arg("a", 0) + Arg("b", 1) + Node("mm", "MatMul", {"a", "b"}, kTf) +
         Node("relu", "Relu", {"mm"}, kTf) + Retval("ret", "relu", 0, "DT_FLOAT");
}

Tensor Matrix(int rows, int cols, float start) {
  Tensor t(DT_FLOAT, TensorShape{rows, cols});
  for (int i = 0; i < rows * cols; ++i) t.data<float>()[i] = start + static_cast<float>(i);
  return t;
}

BOOST_AUTO_TEST_CASE(feeds_flow_through_kernels_to_fetches) {
  ExecutorFixture f;
  Status s = f.Build(ParseGraph(MatMulGraph()));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  std::vector<Tensor> out;
  s = f.Run({Matrix(2, 3, 1), Matrix(3, 2, -2)}, 1, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  // [[1,2,3],[4,5,6]] x [[-2,-1],[0,1],[2,3]] = [[4,10],[4,19]]
  BOOST_TEST(out[0].shape() == (TensorShape{2, 2}));
  const float* p = out[0].data<float>();
  BOOST_TEST(p[0] == 4.0f);
  BOOST_TEST(p[1] == 10.0f);
  BOOST_TEST(p[2] == 4.0f);
  BOOST_TEST(p[3] == 19.0f);
}

BOOST_AUTO_TEST_CASE(kernel_error_aborts_the_step_and_the_next_run_works) {
  ExecutorFixture f;
  Status s = f.Build(ParseGraph(MatMulGraph()));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  const int64_t before = GetCpuAllocator()->GetStats().bytes_in_use;
  std::vector<Tensor> out;
  s = f.Run({Matrix(2, 3, 1), Matrix(4, 2, 0)}, 1, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("'mm'") != std::string::npos, s.ToString());
  BOOST_TEST(GetCpuAllocator()->GetStats().bytes_in_use == before);
  s = f.Run({Matrix(2, 3, 1), Matrix(3, 2, 0)}, 1, &out);
  BOOST_TEST(s.ok(), s.ToString());
}

std::string SendRecvAttrs(const std::string& type_attr, const std::string& type) {
  return "attr { key: '" + type_attr + "' value { type: " + type + " } }"
         " attr { key: 'tensor_name' value { s: 'edge_1' } }"
         " attr { key: 'send_device' value { s: '/job:localhost/replica:0/task:0/device:CPU:0' } }"
         " attr { key: 'send_device_incarnation' value { i: 1 } }"
         " attr { key: 'recv_device' value { s: '/job:localhost/replica:0/task:0/device:CPU:0' } }"
         " attr { key: 'client_terminated' value { b: false } }";
}

BOOST_AUTO_TEST_CASE(send_hands_the_same_buffer_to_recv) {
  ExecutorFixture f;
  Status s = f.Build(ParseGraph(Arg("x", 0) + Node("send", "_Send", {"x"}, SendRecvAttrs("T", "DT_FLOAT")) +
                                Node("recv", "_Recv", {}, SendRecvAttrs("tensor_type", "DT_FLOAT")) +
                                Retval("ret", "recv", 0, "DT_FLOAT")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  for (int i = 0; i < 20; ++i) {
    LocalRendezvous rendezvous;
    Tensor x = Matrix(2, 2, 0);
    std::vector<Tensor> out;
    s = f.Run({x}, 1, &out, &rendezvous);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].SharesBufferWith(x));
    BOOST_TEST(rendezvous.NumPending() == 0u);
  }
}

BOOST_AUTO_TEST_CASE(aborting_the_rendezvous_ends_a_waiting_recv) {
  ExecutorFixture f;
  Status s = f.Build(ParseGraph(Node("recv", "_Recv", {}, SendRecvAttrs("tensor_type", "DT_FLOAT")) +
                                Retval("ret", "recv", 0, "DT_FLOAT")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  LocalRendezvous rendezvous;
  std::thread aborter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    rendezvous.StartAbort(errors::Cancelled("step cancelled by test"));
  });
  std::vector<Tensor> out;
  s = f.Run({}, 1, &out, &rendezvous);
  aborter.join();
  BOOST_TEST(s.code() == Code::CANCELLED, s.ToString());
}

BOOST_AUTO_TEST_CASE(unfed_placeholder_names_itself) {
  ExecutorFixture f;
  Status s = f.Build(ParseGraph(
      Node("x", "Placeholder", {}, "attr { key: 'dtype' value { type: DT_FLOAT } }") +
      Retval("ret", "x", 0, "DT_FLOAT")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  std::vector<Tensor> out;
  s = f.Run({}, 1, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("placeholder tensor 'x'") != std::string::npos, s.ToString());
}

}  // namespace
}  // namespace af::test
