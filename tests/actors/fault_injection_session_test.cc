// $ACTORFLOW_FAULTS in a client's own process (core/fault_injection/): its
// worker is /job:localhost/replica:0/task:0, its steps are delayed like a
// server's (also once cached, when they would otherwise run on the caller's
// thread), and a malformed spec fails Session::Create naming the field.
#include <chrono>
#include <cstdlib>

#include <boost/test/unit_test.hpp>

#include "core/fault_injection/fault_injector.h"
#include "tests/actors/session_test_util.h"

namespace af {
namespace {

using testing::GraphBuilder;

class ScopedFaultsEnvironment {
 public:
  explicit ScopedFaultsEnvironment(const char* spec) {
    setenv(faults::kFaultsEnvironmentVariable, spec, 1);
  }
  ~ScopedFaultsEnvironment() { unsetenv(faults::kFaultsEnvironmentVariable); }
};

Status NewSession(std::unique_ptr<Session>* session) {
  SessionOptions options;
  options.threads_per_device = 1;
  options.default_timeout_ms = 20000;
  return Session::Create(options, session);
}

tensorflow::GraphDef AddGraph() {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT);
  b.Const("two", Tensor::Scalar<float>(2.0f));
  b.Op("Add", "c", {"x", "two"});
  return b.graph();
}

BOOST_AUTO_TEST_CASE(compute_delays_apply_to_every_step_of_the_clients_own_worker) {
  ScopedFaultsEnvironment env("task=/job:localhost;compute=const:30ms;seed=2");
  std::unique_ptr<Session> session;
  Status s = NewSession(&session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_REQUIRE(session->Extend(AddGraph()).ok());
  // More runs than the master takes before it caches a step for the
  // caller's thread (actors/local_step.h): every one is delayed.
  for (int i = 0; i < 8; ++i) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<Tensor> out;
    s = session->Run({{"x", Tensor::Scalar<float>(1.0f + i)}}, {"c"}, {}, &out);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(out[0].scalar<float>() == 3.0f + i);
    BOOST_TEST(seconds >= 0.030, "step " << i << " took " << seconds << " s");
  }
}

BOOST_AUTO_TEST_CASE(a_spec_for_other_tasks_leaves_the_client_alone) {
  ScopedFaultsEnvironment env("task=/job:worker;compute=const:10s");
  std::unique_ptr<Session> session;
  Status s = NewSession(&session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_REQUIRE(session->Extend(AddGraph()).ok());
  RunOptions quick;
  quick.timeout_ms = 5000;  // a delayed step would miss it
  std::vector<Tensor> out;
  s = session->Run(quick, {{"x", Tensor::Scalar<float>(1.0f)}}, {"c"}, {}, &out, nullptr);
  BOOST_TEST(s.ok(), s);
}

BOOST_AUTO_TEST_CASE(a_malformed_environment_spec_fails_session_create) {
  ScopedFaultsEnvironment env("compute=exp:20ms;drop=lots");
  std::unique_ptr<Session> session;
  Status s = NewSession(&session);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(s.message().find("ACTORFLOW_FAULTS: fault spec: field 'drop'") != std::string::npos,
             s);
}

}  // namespace
}  // namespace af
