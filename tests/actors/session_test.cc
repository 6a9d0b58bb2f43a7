// Session runs of hand-built graphs in one process: feeds and fetches,
// errors that name what is wrong, recovery after a failed step, concurrent
// steps and partitions on two devices.
#include <atomic>
#include <chrono>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "tests/actors/session_test_util.h"

namespace af {
namespace {

using testing::GraphBuilder;
using testing::LocalCpu;
using testing::Matrix;

std::unique_ptr<Session> NewSession(int num_cpu_devices = 1) {
  SessionOptions options;
  options.num_cpu_devices = num_cpu_devices;
  options.threads_per_device = 2;
  options.default_timeout_ms = 20000;
  std::unique_ptr<Session> session;
  Status s = Session::Create(options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  return session;
}

// x (fed) -> Identity -> y; c = x + 2.
tensorflow::GraphDef ScalarGraph() {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT);
  b.Op("Identity", "y", {"x"});
  b.Const("two", Tensor::Scalar<float>(2.0f));
  b.Op("Add", "c", {"x", "two"});
  return b.graph();
}

BOOST_AUTO_TEST_CASE(lists_local_devices) {
  auto session = NewSession(2);
  const auto& devices = session->ListDevices();
  BOOST_TEST_REQUIRE(devices.size() == 2u);
  BOOST_TEST(devices[0].name == LocalCpu(0));
  BOOST_TEST(devices[1].name == LocalCpu(1));
  BOOST_TEST(devices[0].type == "CPU");
  // One incarnation per process: a restart changes every device's.
  BOOST_TEST(devices[0].incarnation != 0u);
  BOOST_TEST(devices[0].incarnation == devices[1].incarnation);
  auto other = NewSession(1);  // another worker actor, drawn anew
  BOOST_TEST(other->ListDevices()[0].incarnation != devices[0].incarnation);
}

BOOST_AUTO_TEST_CASE(feeds_identity_and_add) {
  auto session = NewSession();
  BOOST_TEST_REQUIRE(session->Extend(ScalarGraph()).ok());
  for (int i = 0; i < 3; ++i) {  // the second and third use the cached step
    std::vector<Tensor> out;
    Status s = session->Run({{"x:0", Tensor::Scalar<float>(1.5f + i)}}, {"y:0", "c"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST_REQUIRE(out.size() == 2u);
    BOOST_TEST(out[0].scalar<float>() == 1.5f + i);
    BOOST_TEST(out[1].scalar<float>() == 3.5f + i);
  }
}

BOOST_AUTO_TEST_CASE(fetch_order_follows_the_call) {
  auto session = NewSession();
  BOOST_TEST_REQUIRE(session->Extend(ScalarGraph()).ok());
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session->Run({{"x", Tensor::Scalar<float>(5)}}, {"c", "y"}, {}, &out).ok());
  BOOST_TEST(out[0].scalar<float>() == 7.0f);
  BOOST_TEST(out[1].scalar<float>() == 5.0f);
  BOOST_TEST_REQUIRE(session->Run({{"x", Tensor::Scalar<float>(5)}}, {"y", "c"}, {}, &out).ok());
  BOOST_TEST(out[0].scalar<float>() == 5.0f);
  BOOST_TEST(out[1].scalar<float>() == 7.0f);
}

BOOST_AUTO_TEST_CASE(matmul_matches_reference) {
  auto session = NewSession();
  GraphBuilder b;
  b.Placeholder("a", DT_FLOAT);
  b.Const("w", Matrix(3, 2, {1, -2, 0.5f, 4, 3, 0}));
  b.Op("MatMul", "y", {"a", "w"});
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  const std::vector<float> a = {1, 2, 3, -1, 0.25f, 2};
  const std::vector<float> w = {1, -2, 0.5f, 4, 3, 0};
  std::vector<Tensor> out;
  Status s = session->Run({{"a:0", Matrix(2, 3, a)}}, {"y:0"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(out[0].shape() == (TensorShape{2, 2}));
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      double ref = 0;
      for (int k = 0; k < 3; ++k) ref += static_cast<double>(a[i * 3 + k]) * w[k * 2 + j];
      BOOST_TEST(out[0].data<float>()[i * 2 + j] == ref, boost::test_tools::tolerance(1e-5));
    }
  }
}

BOOST_AUTO_TEST_CASE(unknown_names_are_invalid_argument_naming_them) {
  auto session = NewSession();
  BOOST_TEST_REQUIRE(session->Extend(ScalarGraph()).ok());
  std::vector<Tensor> out;
  Status s = session->Run({{"nope:0", Tensor::Scalar<float>(1)}}, {"y:0"}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("nope:0") != std::string::npos, s.ToString());

  s = session->Run({{"x:0", Tensor::Scalar<float>(1)}}, {"missing:0"}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("missing:0") != std::string::npos, s.ToString());

  s = session->Run({{"x:0", Tensor::Scalar<float>(1)}}, {}, {"ghost"}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("ghost") != std::string::npos, s.ToString());

  s = session->Run({{"x:0", Tensor::Scalar<float>(1)}, {"x:0", Tensor::Scalar<float>(2)}},
                   {"y:0"}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);

  // The session still works.
  s = session->Run({{"x:0", Tensor::Scalar<float>(1)}}, {"y:0"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].scalar<float>() == 1.0f);
}

BOOST_AUTO_TEST_CASE(extend_rejects_name_clash_and_keeps_graph) {
  auto session = NewSession();
  BOOST_TEST_REQUIRE(session->Extend(ScalarGraph()).ok());
  GraphBuilder clash;
  clash.Const("z", Tensor::Scalar<float>(9));
  clash.Const("two", Tensor::Scalar<float>(3));
  Status s = session->Extend(clash.graph());
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("two") != std::string::npos, s.ToString());
  std::vector<Tensor> out;
  // Neither node of the failed Extend was added.
  s = session->Run({}, {"z:0"}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  GraphBuilder more;
  more.Const("z", Tensor::Scalar<float>(9));
  more.Op("Add", "c2", {"c", "z"});
  BOOST_TEST_REQUIRE(session->Extend(more.graph()).ok());
  s = session->Run({{"x:0", Tensor::Scalar<float>(1)}}, {"c2:0"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].scalar<float>() == 12.0f);
}

BOOST_AUTO_TEST_CASE(extend_rejects_bad_graph) {
  auto session = NewSession();
  GraphBuilder b;
  b.Op("Identity", "y", {"does_not_exist"});
  Status s = session->Extend(b.graph());
  BOOST_TEST(!s.ok());
  BOOST_TEST(s.message().find("does_not_exist") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_CASE(error_mid_step_then_next_run_works) {
  auto session = NewSession();
  GraphBuilder b;
  b.Placeholder("a", DT_FLOAT);
  b.Placeholder("b", DT_FLOAT);
  b.Op("MatMul", "y", {"a", "b"});
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  std::vector<Tensor> out;
  Status s = session->Run({{"a", Matrix(2, 3, {1, 2, 3, 4, 5, 6})},
                           {"b", Matrix(2, 3, {1, 2, 3, 4, 5, 6})}},
                          {"y"}, {}, &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s.ToString());
  BOOST_TEST(s.message().find("y") != std::string::npos, s.ToString());
  s = session->Run({{"a", Matrix(1, 2, {1, 2})}, {"b", Matrix(2, 1, {3, 4})}}, {"y"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].scalar<float>() == 11.0f);
}

BOOST_AUTO_TEST_CASE(fetching_a_fed_tensor_returns_the_feed) {
  auto session = NewSession();
  BOOST_TEST_REQUIRE(session->Extend(ScalarGraph()).ok());
  std::vector<Tensor> out;
  Status s = session->Run({{"x:0", Tensor::Scalar<float>(4)}}, {"x:0", "c:0"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].scalar<float>() == 4.0f);
  BOOST_TEST(out[1].scalar<float>() == 6.0f);
}

BOOST_AUTO_TEST_CASE(targets_run_without_fetches) {
  auto session = NewSession();
  BOOST_TEST_REQUIRE(session->Extend(ScalarGraph()).ok());
  std::vector<Tensor> out;
  Status s = session->Run({{"x:0", Tensor::Scalar<float>(4)}}, {}, {"c"}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out.empty());
}

BOOST_AUTO_TEST_CASE(eight_threads_run_concurrently) {
  auto session = NewSession(2);
  BOOST_TEST_REQUIRE(session->Extend(ScalarGraph()).ok());
  constexpr int kThreads = 8;
  constexpr int kSteps = 300;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<Tensor> out;
      for (int i = 0; i < kSteps; ++i) {
        const float x = static_cast<float>(t * 1000 + i);
        // Half the threads use another signature, so steps of both cached
        // plans interleave.
        Status s = (t % 2 == 0)
                       ? session->Run({{"x:0", Tensor::Scalar<float>(x)}}, {"c:0", "y:0"}, {}, &out)
                       : session->Run({{"x:0", Tensor::Scalar<float>(x)}}, {"c:0"}, {}, &out);
        if (!s.ok() || out[0].scalar<float>() != x + 2.0f ||
            (t % 2 == 0 && out[1].scalar<float>() != x)) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  BOOST_TEST(failures.load() == 0);
}

BOOST_AUTO_TEST_CASE(close_while_threads_run_ends_every_call_cleanly) {
  auto session = NewSession(2);
  BOOST_TEST_REQUIRE(session->Extend(ScalarGraph()).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> unexpected{0};
  std::atomic<int> completed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<Tensor> out;
      while (!stop.load()) {
        const float x = static_cast<float>(t);
        Status s = session->Run({{"x:0", Tensor::Scalar<float>(x)}}, {"c:0"}, {}, &out);
        if (s.ok()) {
          if (out[0].scalar<float>() != x + 2) unexpected.fetch_add(1);
          completed.fetch_add(1);
        } else if (s.code() == Code::FAILED_PRECONDITION || s.code() == Code::CANCELLED) {
          return;  // the session closed under us
        } else {
          unexpected.fetch_add(1);
          return;
        }
      }
    });
  }
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (completed.load() < 200 && unexpected.load() == 0 &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  BOOST_TEST(session->Close().ok());
  stop.store(true);
  for (auto& t : threads) t.join();
  BOOST_TEST(unexpected.load() == 0);
}

BOOST_AUTO_TEST_CASE(two_cpu_devices_share_a_step) {
  auto session = NewSession(2);
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT, LocalCpu(0));
  b.Const("w", Matrix(2, 2, {1, 2, 3, 4}), LocalCpu(1));
  b.Op("MatMul", "m", {"x", "w"}, DT_FLOAT, LocalCpu(1));
  b.Op("Add", "y", {"m", "x"}, DT_FLOAT, LocalCpu(0));
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out;
    Status s = session->Run({{"x", Matrix(1, 2, {1.0f + i, -1})}}, {"y", "m"}, {}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    const float x0 = 1.0f + i;
    // m = [x0*1 + -1*3, x0*2 + -1*4]
    BOOST_TEST(out[1].data<float>()[0] == x0 - 3);
    BOOST_TEST(out[1].data<float>()[1] == 2 * x0 - 4);
    BOOST_TEST(out[0].data<float>()[0] == 2 * x0 - 3);
    BOOST_TEST(out[0].data<float>()[1] == 2 * x0 - 5);
  }
}

BOOST_AUTO_TEST_CASE(two_sessions_in_one_process_are_independent) {
  auto first = NewSession();
  auto second = NewSession();
  BOOST_TEST_REQUIRE(first->Extend(ScalarGraph()).ok());
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT);
  b.Op("Neg", "c", {"x"});
  BOOST_TEST_REQUIRE(second->Extend(b.graph()).ok());
  std::vector<Tensor> out1, out2;
  BOOST_TEST_REQUIRE(first->Run({{"x", Tensor::Scalar<float>(1)}}, {"c"}, {}, &out1).ok());
  BOOST_TEST_REQUIRE(second->Run({{"x", Tensor::Scalar<float>(1)}}, {"c"}, {}, &out2).ok());
  BOOST_TEST(out1[0].scalar<float>() == 3.0f);
  BOOST_TEST(out2[0].scalar<float>() == -1.0f);
  first.reset();  // destroyed without Close
  BOOST_TEST_REQUIRE(second->Run({{"x", Tensor::Scalar<float>(2)}}, {"c"}, {}, &out2).ok());
  BOOST_TEST(out2[0].scalar<float>() == -2.0f);
}

BOOST_AUTO_TEST_CASE(closed_session_refuses_calls) {
  auto session = NewSession();
  BOOST_TEST_REQUIRE(session->Extend(ScalarGraph()).ok());
  BOOST_TEST_REQUIRE(session->Close().ok());
  std::vector<Tensor> out;
  Status s = session->Run({{"x:0", Tensor::Scalar<float>(1)}}, {"y:0"}, {}, &out);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION);
  BOOST_TEST(session->Close().ok());  // twice is fine
}

BOOST_AUTO_TEST_CASE(bad_options_are_rejected) {
  std::unique_ptr<Session> session;
  SessionOptions options;
  options.num_cpu_devices = 0;
  BOOST_TEST(Session::Create(options, &session).code() == Code::INVALID_ARGUMENT);
  options.num_cpu_devices = 1;
  options.remote_workers = {"no-port"};
  BOOST_TEST(Session::Create(options, &session).code() == Code::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace af

namespace af {
namespace {

// A Recv nobody sends to: the step can only end at its deadline.
BOOST_AUTO_TEST_CASE(deadline_aborts_a_stuck_step_and_the_session_recovers) {
  auto session = NewSession();
  GraphBuilder b;
  tensorflow::NodeDef* recv = b.Add("stuck", "_Recv", {}, LocalCpu(0));
  auto& attr = *recv->mutable_attr();
  attr["tensor_type"].set_type(tensorflow::DT_FLOAT);
  attr["tensor_name"].set_s("nobody_sends_this");
  attr["send_device"].set_s(LocalCpu(0));
  attr["send_device_incarnation"].set_i(1);
  attr["recv_device"].set_s(LocalCpu(0));
  b.Placeholder("x", DT_FLOAT);
  b.Op("Identity", "y", {"x"});
  BOOST_TEST_REQUIRE(session->Extend(b.graph()).ok());
  RunOptions quick;
  quick.timeout_ms = 300;
  std::vector<Tensor> out;
  const auto start = std::chrono::steady_clock::now();
  Status s = session->Run(quick, {}, {"stuck:0"}, {}, &out);
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s.ToString());
  // Bounded: it did not wait for the session's default timeout.
  BOOST_TEST((std::chrono::steady_clock::now() - start < std::chrono::seconds(10)));
  s = session->Run({{"x", Tensor::Scalar<float>(3)}}, {"y"}, {}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].scalar<float>() == 3.0f);
}

}  // namespace
}  // namespace af
