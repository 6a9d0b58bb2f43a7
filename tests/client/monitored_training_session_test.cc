// MonitoredTrainingSession in one process: what the chief does with a
// fresh model, a checkpoint, or live variables; a non-chief waiting for
// the chief (and timing out with the names it waits for); and recovery
// from a step that fails as a lost ps task makes it fail (UNAVAILABLE from
// a hook, FAILED_PRECONDITION from variables that lost their values),
// invisible to the loop. The multi-process version, with a real ps task
// killed with SIGKILL, is tests/distributed/training_recovery_test.cc.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <string>
#include <mutex>
#include <thread>
#include <vector>

#include "client/training/monitored_training_session.h"
#include "client/training/report_uninitialized_variables.h"
#include "client/training/stop_at_step_hook.h"
#include "tests/client/training_test_util.h"
#include "tests/temp_dir_test_util.h"
#include "tests/test_util.h"

namespace af {
namespace {

using testing::FaultHook;
using testing::LinearModel;
using testing::TempDir;

using testing::Contains;

// Boost.Test's log is not thread-safe, and a non-chief logs from its own
// thread: only the test's thread writes to it.
const std::thread::id kTestThread = std::this_thread::get_id();

MonitoredTrainingSessionOptions Options(std::vector<std::string>* log = nullptr) {
  MonitoredTrainingSessionOptions o;
  o.log = [log](const std::string& line) {
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    if (log != nullptr) log->push_back(line);
    if (std::this_thread::get_id() == kTestThread) BOOST_TEST_MESSAGE(line);
  };
  o.log_step_count_steps = 0;
  return o;
}

float Read(ClientSession& session, const Output& v) {
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({v}, &out).ok());
  return out[0].dtype() == DT_INT64 ? static_cast<float>(out[0].scalar<int64_t>())
                                    : out[0].scalar<float>();
}

// Runs until the session says stop (at most `limit` steps); every step
// must succeed. Returns the steps run.
int TrainUntilStop(MonitoredTrainingSession& session, const LinearModel& model, int limit = 200) {
  int steps = 0;
  while (!session.ShouldStop() && steps < limit) {
    Status s = session.Run({}, {model.loss}, {model.train}, nullptr);
    BOOST_TEST_REQUIRE(s.ok(), s);
    ++steps;
  }
  return steps;
}

BOOST_FIXTURE_TEST_SUITE(monitored_training_session, testing::EmptyContainers)

BOOST_AUTO_TEST_CASE(report_uninitialized_variables_names_what_has_no_value) {
  Scope root = Scope::NewRootScope();
  Variable w(root.WithOpName("w"), Input::Initializer(1.0f));
  Variable b(root.WithOpName("b"), Input::Initializer(2.0f));
  auto report = ReportUninitializedVariables(root);
  auto only_b = ReportUninitializedVariables(root, {b.var});
  ClientSession session(root);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session.Run({report, only_b}, &out).ok());
  BOOST_TEST(out[0].dtype() == DT_STRING);
  BOOST_TEST((ReportedNames(out[0]) == std::vector<std::string>{"w", "b"}));
  BOOST_TEST((ReportedNames(out[1]) == std::vector<std::string>{"b"}));
  BOOST_TEST_REQUIRE(session.Run({}, {}, {w.initializer}, nullptr).ok());
  BOOST_TEST_REQUIRE(session.Run({report}, &out).ok());
  BOOST_TEST((ReportedNames(out[0]) == std::vector<std::string>{"b"}));
  BOOST_TEST_REQUIRE(session.Run({}, {}, {b.initializer}, nullptr).ok());
  BOOST_TEST_REQUIRE(session.Run({report}, &out).ok());
  BOOST_TEST(out[0].NumElements() == 0);
  BOOST_TEST(out[0].dims() == 1);
}

BOOST_AUTO_TEST_CASE(the_chief_initializes_a_fresh_model_and_trains) {
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  MonitoredTrainingSessionOptions o = Options();
  o.hooks = {StopAtStepHook::AtStep(60)};
  std::unique_ptr<MonitoredTrainingSession> session;
  Status s = MonitoredTrainingSession::Create(root, o, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(TrainUntilStop(*session, model) == 60);
  BOOST_TEST(std::abs(Read(*session->session(), model.w) - 2.0f) < 0.01f);
  BOOST_TEST(std::abs(Read(*session->session(), model.b) - 1.0f) < 0.01f);
  BOOST_TEST(session->recoveries() == 0);
}

BOOST_AUTO_TEST_CASE(the_chief_restores_the_latest_checkpoint) {
  TempDir dir("af_mts_restore");
  float w_saved = 0, b_saved = 0;
  {
    Scope root = Scope::NewRootScope();
    LinearModel model(root);
    MonitoredTrainingSessionOptions o = Options();
    o.checkpoint_dir = dir.path();
    o.hooks = {StopAtStepHook::AtStep(6)};
    std::unique_ptr<MonitoredTrainingSession> session;
    BOOST_TEST_REQUIRE(MonitoredTrainingSession::Create(root, o, &session).ok());
    BOOST_TEST(TrainUntilStop(*session, model) == 6);
    w_saved = Read(*session->session(), model.w);
    b_saved = Read(*session->session(), model.b);
    BOOST_TEST_REQUIRE(session->Close().ok());  // saves the step-6 checkpoint
  }
  BOOST_TEST(LatestCheckpoint(dir.path()) == dir.path() + "/model.ckpt-6");
  testing::ResetContainers();  // a new program: nothing in memory

  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  MonitoredTrainingSessionOptions o = Options();
  o.checkpoint_dir = dir.path();
  std::unique_ptr<MonitoredTrainingSession> session;
  Status s = MonitoredTrainingSession::Create(root, o, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(Read(*session->session(), model.w) == w_saved);
  BOOST_TEST(Read(*session->session(), model.b) == b_saved);
  BOOST_TEST(Read(*session->session(), model.global_step) == 6.0f);
  BOOST_TEST_REQUIRE(session->Close().ok());

  // Variables that still hold values (ps tasks that outlived the chief)
  // are kept, not rolled back to the checkpoint.
  {
    ClientSession poke(root);
    BOOST_TEST_REQUIRE(
        poke.Run({}, {}, {ops::Assign(root, model.w, Input::Initializer(42.0f)).operation},
                 nullptr)
            .ok());
  }
  std::vector<std::string> log;
  o = Options(&log);
  o.checkpoint_dir = dir.path();
  BOOST_TEST_REQUIRE(MonitoredTrainingSession::Create(root, o, &session).ok());
  BOOST_TEST(Read(*session->session(), model.w) == 42.0f);
}

BOOST_AUTO_TEST_CASE(a_non_chief_times_out_naming_the_variables_it_waits_for) {
  Scope root = Scope::NewRootScope();
  LinearModel model(root, "/job:localhost/replica:0/task:0/device:CPU:0");
  MonitoredTrainingSessionOptions o = Options();
  o.is_chief = false;
  o.wait_for_init_ms = 300;
  o.task_name = "/job:worker/replica:0/task:1";
  std::unique_ptr<MonitoredTrainingSession> session;
  Status s = MonitoredTrainingSession::Create(root, o, &session);
  BOOST_TEST(s.code() == Code::DEADLINE_EXCEEDED, s);
  BOOST_TEST(Contains(s.message(), "/job:worker/replica:0/task:1 waited"), s);
  BOOST_TEST(Contains(s.message(), "still uninitialized: "), s);
  BOOST_TEST(Contains(s.message(), "w (on /job:localhost/replica:0/task:0/device:CPU:0)"), s);
  BOOST_TEST(Contains(s.message(), "b (on /job:localhost/replica:0/task:0/device:CPU:0)"), s);
  BOOST_TEST(Contains(s.message(), "global_step"), s);
  BOOST_TEST(session == nullptr);
}

BOOST_AUTO_TEST_CASE(a_non_chief_starts_once_the_chief_has_initialized) {
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  // The worker builds its own copy of the graph, as a worker process does:
  // the chief adds its init ops to its graph while the worker's session
  // reads the worker's (one graph shared by two threads would race). The
  // variables are shared by name through the process's containers.
  Scope worker_root = Scope::NewRootScope();
  LinearModel worker_model(worker_root);
  MonitoredTrainingSessionOptions worker = Options();
  worker.is_chief = false;
  worker.wait_for_init_ms = 20000;
  auto waiting = std::async(std::launch::async, [&] {
    std::unique_ptr<MonitoredTrainingSession> session;
    Status s = MonitoredTrainingSession::Create(worker_root, worker, &session);
    return std::make_pair(s, std::move(session));
  });
  // Not ready while nobody initialized.
  BOOST_TEST((waiting.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout));
  std::unique_ptr<MonitoredTrainingSession> chief;
  BOOST_TEST_REQUIRE(MonitoredTrainingSession::Create(root, Options(), &chief).ok());
  BOOST_TEST_REQUIRE(chief->Run({}, {}, {model.train}, nullptr).ok());
  BOOST_TEST_REQUIRE((waiting.wait_for(std::chrono::seconds(25)) == std::future_status::ready));
  auto [s, session] = waiting.get();
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(Read(*session->session(), worker_model.w) == Read(*chief->session(), model.w));
  BOOST_TEST_REQUIRE(session->Run({}, {}, {worker_model.train}, nullptr).ok());
}

BOOST_AUTO_TEST_CASE(a_step_that_loses_the_ps_state_is_recovered_from_the_checkpoint) {
  TempDir dir("af_mts_recover");
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  auto fault = std::make_shared<FaultHook>();
  fault->fail_at_run = 8;  // global step 8, after the step-5 checkpoint
  fault->lose_state = [] { testing::ResetContainers(); };
  std::vector<std::string> log;
  MonitoredTrainingSessionOptions o = Options(&log);
  o.checkpoint_dir = dir.path();
  o.save_checkpoint_steps = 5;
  o.hooks = {StopAtStepHook::AtStep(40), fault};
  std::unique_ptr<MonitoredTrainingSession> session;
  BOOST_TEST_REQUIRE(MonitoredTrainingSession::Create(root, o, &session).ok());
  // Every Run succeeds: the loop never sees the failure. The eighth Run
  // took the global step from 8 back to 5 and its retry to 6, so 34 more
  // reach 40.
  BOOST_TEST(TrainUntilStop(*session, model) == 8 + 34);
  BOOST_TEST(session->recoveries() == 1);
  const std::vector<RecoveryRecord> records = session->recovery_records();
  BOOST_TEST_REQUIRE(records.size() == 1u);
  BOOST_TEST(records[0].cause.code() == Code::UNAVAILABLE);
  BOOST_TEST(Contains(records[0].action, "restored " + dir.path() + "/model.ckpt-5"),
             records[0].action);
  BOOST_TEST(Contains(records[0].action, "uninitialized: w, b"), records[0].action);
  BOOST_TEST(records[0].attempts == 1);
  bool logged = false;
  for (const std::string& line : log)
    logged |= Contains(line, "recovered from UNAVAILABLE: injected") && Contains(line, " lost");
  BOOST_TEST(logged);
  BOOST_TEST(Read(*session->session(), model.global_step) == 40.0f);
  BOOST_TEST(std::abs(Read(*session->session(), model.w) - 2.0f) < 0.01f);
}

BOOST_AUTO_TEST_CASE(variables_that_lost_their_values_between_steps_are_restored) {
  TempDir dir("af_mts_lost");
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  MonitoredTrainingSessionOptions o = Options();
  o.checkpoint_dir = dir.path();
  o.save_checkpoint_steps = 2;
  std::unique_ptr<MonitoredTrainingSession> session;
  BOOST_TEST_REQUIRE(MonitoredTrainingSession::Create(root, o, &session).ok());
  for (int i = 0; i < 4; ++i)
    BOOST_TEST_REQUIRE(session->Run({}, {}, {model.train}, nullptr).ok());
  // As a ps task restarted between two steps and taken back by the master:
  // the next step reads uninitialized variables (FAILED_PRECONDITION).
  testing::ResetContainers();
  std::vector<Tensor> out;
  Status s = session->Run({}, {model.loss}, {model.train}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out.size() == 1u);
  BOOST_TEST(session->recoveries() == 1);
  BOOST_TEST(session->recovery_records()[0].cause.code() == Code::FAILED_PRECONDITION);
  BOOST_TEST(Read(*session->session(), model.global_step) == 5.0f);  // 4 restored, + 1
}

BOOST_AUTO_TEST_CASE(a_failure_without_state_loss_keeps_the_variables) {
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  auto fault = std::make_shared<FaultHook>();
  fault->fail_at_run = 3;
  MonitoredTrainingSessionOptions o = Options();
  o.hooks = {fault};
  std::unique_ptr<MonitoredTrainingSession> session;
  BOOST_TEST_REQUIRE(MonitoredTrainingSession::Create(root, o, &session).ok());
  for (int i = 0; i < 5; ++i)
    BOOST_TEST_REQUIRE(session->Run({}, {}, {model.train}, nullptr).ok());
  BOOST_TEST(session->recoveries() == 1);
  BOOST_TEST(session->recovery_records()[0].action == "variables intact");
  // The failed step's update happened, and its retry made one more.
  BOOST_TEST(Read(*session->session(), model.global_step) == 6.0f);
}

BOOST_AUTO_TEST_CASE(recovery_is_bounded_by_its_deadline) {
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  auto fault = std::make_shared<FaultHook>();
  fault->fail_always = true;
  MonitoredTrainingSessionOptions o = Options();
  o.hooks = {fault};
  o.recovery_deadline_ms = 500;
  std::unique_ptr<MonitoredTrainingSession> session;
  BOOST_TEST_REQUIRE(MonitoredTrainingSession::Create(root, o, &session).ok());
  Status s = session->Run({}, {}, {model.train}, nullptr);
  BOOST_TEST(s.code() == Code::UNAVAILABLE, s);
  // Either the retried step failed again, or (on a slow machine, or under
  // ThreadSanitizer) making the new session already used up the deadline.
  BOOST_TEST((Contains(s.message(), "still failed after recovering") ||
              Contains(s.message(), "within the recovery deadline (500 ms)")),
             s);
  BOOST_TEST(session->recoveries() == 0);
}

BOOST_AUTO_TEST_CASE(other_errors_are_returned_as_they_are) {
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  std::unique_ptr<MonitoredTrainingSession> session;
  BOOST_TEST_REQUIRE(MonitoredTrainingSession::Create(root, Options(), &session).ok());
  Status s = session->Run({}, {x}, {}, nullptr);  // x is not fed
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(session->recoveries() == 0);
  BOOST_TEST(session->Run({}, {}, {model.train}, nullptr).ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
