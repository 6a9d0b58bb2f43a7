// The training session's hooks: the order of their calls, fetches they
// add, stop requests, StopAtStepHook by last step and by number of steps,
// summaries every N steps, checkpoints every N steps, and the end of input
// (OUT_OF_RANGE) stopping the loop. In one process, without failures.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/event_file_reader.h"
#include "client/training/monitored_training_session.h"
#include "client/training/stop_at_step_hook.h"
#include "core/checkpoint_state.h"
#include "tests/client/training_test_util.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using testing::LinearModel;
using testing::RecordingHook;
using testing::TempDir;

MonitoredTrainingSessionOptions Quiet() {
  MonitoredTrainingSessionOptions o;
  o.log = [](const std::string&) {};
  o.log_step_count_steps = 0;
  return o;
}

BOOST_FIXTURE_TEST_SUITE(training_hooks, testing::EmptyContainers)

BOOST_AUTO_TEST_CASE(hooks_are_called_in_order_and_get_their_fetches) {
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  std::vector<std::string> trace;
  auto first = std::make_shared<RecordingHook>("a", &trace);
  auto second = std::make_shared<RecordingHook>("b", &trace);
  first->fetch = model.global_step;
  second->fetch = model.loss;  // also fetched by the program: fetched once, given to both
  MonitoredTrainingSessionOptions o = Quiet();
  o.hooks = {first, second};
  std::unique_ptr<MonitoredTrainingSession> session;
  Status s = MonitoredTrainingSession::Create(root, o, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  std::vector<Tensor> out;
  for (int i = 0; i < 2; ++i) {
    s = session->Run({}, {model.loss}, {model.train}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(out.size() == 1u);
    BOOST_TEST(second->fetched.back().scalar<float>() == out[0].scalar<float>());
  }
  BOOST_TEST(session->Close().ok());
  const std::vector<std::string> want = {
      "a.begin",      "b.begin",     "a.after_create_session", "b.after_create_session",
      "a.before_run", "b.before_run", "a.after_run",           "b.after_run",
      "a.before_run", "b.before_run", "a.after_run",           "b.after_run",
      "a.end",        "b.end"};
  BOOST_TEST(trace == want, boost::test_tools::per_element());
  // The global step read in each step (before or after its own increment).
  BOOST_TEST(first->fetched.size() == 2u);
  BOOST_TEST(first->fetched[1].scalar<int64_t>() >= 1);
  BOOST_TEST(session->ShouldStop());  // closed
}

BOOST_AUTO_TEST_CASE(a_hook_that_requests_stop_ends_the_loop) {
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  std::vector<std::string> trace;
  auto stopper = std::make_shared<RecordingHook>("s", &trace);
  stopper->stop_after = [](int64_t run) { return run == 3; };
  MonitoredTrainingSessionOptions o = Quiet();
  o.hooks = {stopper};
  std::unique_ptr<MonitoredTrainingSession> session;
  BOOST_TEST_REQUIRE(MonitoredTrainingSession::Create(root, o, &session).ok());
  int steps = 0;
  while (!session->ShouldStop()) {
    BOOST_TEST_REQUIRE(session->Run({}, {}, {model.train}, nullptr).ok());
    ++steps;
  }
  BOOST_TEST(steps == 3);
}

BOOST_AUTO_TEST_CASE(stop_at_step_stops_at_the_last_step) {
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  MonitoredTrainingSessionOptions o = Quiet();
  o.hooks = {StopAtStepHook::AtStep(7)};
  std::unique_ptr<MonitoredTrainingSession> session;
  BOOST_TEST_REQUIRE(MonitoredTrainingSession::Create(root, o, &session).ok());
  int steps = 0;
  while (!session->ShouldStop() && steps < 100) {
    BOOST_TEST_REQUIRE(session->Run({}, {}, {model.train}, nullptr).ok());
    ++steps;
  }
  BOOST_TEST(steps == 7);
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session->session()->Run({model.global_step}, &out).ok());
  BOOST_TEST(out[0].scalar<int64_t>() == 7);
}

BOOST_AUTO_TEST_CASE(stop_at_step_counts_num_steps_from_the_first_session) {
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  // The global step starts at 4: the goal is 4 + 3.
  {
    ClientSession setup(root);
    BOOST_TEST_REQUIRE(setup.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
    BOOST_TEST_REQUIRE(setup.Run({}, {}, {ops::Assign(root, model.global_step,
                                                      Input::Initializer(int64_t{4}))
                                              .operation},
                                 nullptr)
                           .ok());
  }
  auto stop = StopAtStepHook::ForSteps(3);
  MonitoredTrainingSessionOptions o = Quiet();
  o.hooks = {stop};
  std::unique_ptr<MonitoredTrainingSession> session;
  BOOST_TEST_REQUIRE(MonitoredTrainingSession::Create(root, o, &session).ok());
  BOOST_TEST(stop->last_step().value_or(-1) == 7);
  int steps = 0;
  while (!session->ShouldStop() && steps < 100) {
    BOOST_TEST_REQUIRE(session->Run({}, {}, {model.train}, nullptr).ok());
    ++steps;
  }
  BOOST_TEST(steps == 3);
}

BOOST_AUTO_TEST_CASE(stop_at_step_needs_a_global_step) {
  Scope root = Scope::NewRootScope();
  Variable v(root.WithOpName("v"), Input::Initializer(1.0f));
  MonitoredTrainingSessionOptions o = Quiet();
  o.hooks = {StopAtStepHook::AtStep(3)};
  std::unique_ptr<MonitoredTrainingSession> session;
  Status s = MonitoredTrainingSession::Create(root, o, &session);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION, s);
  BOOST_TEST(s.message().find("global step") != std::string::npos, s);
}

BOOST_AUTO_TEST_CASE(running_out_of_input_stops_the_loop) {
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  // Three batches of input, then OUT_OF_RANGE (as a closed queue).
  Variable batches(root.WithOpName("batches_read"), Input::Initializer(int64_t{0}), false);
  auto next = ops::CountUpTo(root, batches.var, 3);
  MonitoredTrainingSessionOptions o = Quiet();
  std::unique_ptr<MonitoredTrainingSession> session;
  BOOST_TEST_REQUIRE(MonitoredTrainingSession::Create(root, o, &session).ok());
  int steps = 0;
  Status s;
  while (!session->ShouldStop() && steps < 100) {
    s = session->Run({}, {next}, {model.train}, nullptr);
    if (!s.ok()) break;
    ++steps;
  }
  BOOST_TEST(steps == 3);
  BOOST_TEST(s.code() == Code::OUT_OF_RANGE, s);
  BOOST_TEST(session->ShouldStop());
  BOOST_TEST(session->Close().ok());
}

BOOST_AUTO_TEST_CASE(the_chief_writes_summaries_and_checkpoints_every_n_steps) {
  TempDir dir("af_hooks");
  Scope root = Scope::NewRootScope();
  LinearModel model(root);
  MonitoredTrainingSessionOptions o = Quiet();
  o.checkpoint_dir = dir.path();
  o.save_checkpoint_steps = 4;
  o.save_summaries_steps = 3;
  o.summary_scalars = {{"loss", model.loss}};
  o.hooks = {StopAtStepHook::AtStep(10)};
  std::vector<std::string> log;
  o.log = [&log](const std::string& line) { log.push_back(line); };
  std::unique_ptr<MonitoredTrainingSession> session;
  Status s = MonitoredTrainingSession::Create(root, o, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  while (!session->ShouldStop()) {
    s = session->Run({}, {}, {model.train}, nullptr);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  BOOST_TEST_REQUIRE(session->Close().ok());

  // Checkpoints: at creation (step 0), every 4 steps, and at the end.
  std::vector<std::string> kept;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    const std::string name = e.path().filename().string();
    if (name.size() > 6 && name.substr(name.size() - 6) == ".index") kept.push_back(name);
  }
  std::sort(kept.begin(), kept.end());
  const std::vector<std::string> want_ckpts = {"model.ckpt-0.index", "model.ckpt-10.index",
                                               "model.ckpt-4.index", "model.ckpt-8.index"};
  BOOST_TEST(kept == want_ckpts, boost::test_tools::per_element());
  BOOST_TEST(LatestCheckpoint(dir.path()) == dir.path() + "/model.ckpt-10");

  // Summaries: one event file in the directory, "loss" every 3 steps.
  std::vector<std::string> event_files;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    if (e.path().filename().string().rfind("events.out.tfevents.", 0) == 0)
      event_files.push_back(e.path().string());
  BOOST_TEST_REQUIRE(event_files.size() == 1u);
  std::vector<tensorflow::Event> events;
  BOOST_TEST_REQUIRE(ReadEventFile(event_files[0], &events).ok());
  std::vector<int64_t> loss_steps;
  for (const tensorflow::Event& e : events)
    for (const auto& v : e.summary().value())
      if (v.tag() == "loss") loss_steps.push_back(e.step());
  // (The global step a step fetches may be read before or after the
  // step's own increment, so the exact steps may shift by one.)
  for (size_t i = 1; i < loss_steps.size(); ++i) BOOST_TEST(loss_steps[i] > loss_steps[i - 1]);
  BOOST_TEST(loss_steps.size() >= 3u);
  BOOST_TEST(loss_steps.size() <= 5u);
  bool logged_save = false;
  for (const std::string& line : log)
    logged_save |= line.find("saved checkpoint " + dir.path() + "/model.ckpt-4") == 0;
  BOOST_TEST(logged_save);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
