// A training loop that survives a dying ps process (issue 11 items 3 and
// 9): the model's variables live on an `actorflow server` ps task; the
// task is killed with SIGKILL and a new process is started on its address,
// as a cluster manager would. The MonitoredTrainingSession re-creates its
// session, finds the variables uninitialized, restores the latest
// checkpoint (the ps task wrote its own shard of it) and goes on; the
// loop's Run calls never see the failure. Recovery times are printed
// (--log_level=message), not asserted.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "client/optimizers/optimizers.h"
#include "client/replica_device_setter.h"
#include "client/standard_ops.h"
#include "client/training/monitored_training_session.h"
#include "client/training/stop_at_step_hook.h"
#include "tests/distributed/linear_fit_test_util.h"
#include "tests/distributed/server_process.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using testing::Address;
using testing::FreePorts;
using testing::ServerProcess;

constexpr int64_t kLastStep = 300;

// One ps task holding w, b and the global step of y = 3x - 1, and the
// options of a chief training it with checkpoints every 25 steps.
struct PsTraining {
  std::string spec;
  std::vector<std::string> ps_args;
  testing::TempDir dir{"af_recovery"};
  Scope root = Scope::NewRootScope();
  MonitoredTrainingSessionOptions options;
  Output w, b, global_step, x, y, loss;
  Operation train;
  Tensor xs{DT_FLOAT, TensorShape{8, 1}}, ys{DT_FLOAT, TensorShape{8, 1}};

  explicit PsTraining(uint16_t port) {
    spec = "ps=" + Address(port);
    ps_args = {"--cluster", spec, "--job", "ps", "--task", "0"};
    BOOST_TEST_REQUIRE(ClusterSpec::FromFlag(spec, &options.session.cluster).ok());
    options.session.default_timeout_ms = 30000;
    options.session.setup_timeout_ms = 20000;
    options.checkpoint_dir = dir.path();
    options.save_checkpoint_steps = 25;
    options.log_step_count_steps = 100;
    options.recovery_deadline_ms = 60000;
    options.task_name = "/job:localhost/replica:0/task:0 (chief)";
    options.log = [](const std::string& line) { BOOST_TEST_MESSAGE(line); };
    options.hooks = {StopAtStepHook::AtStep(kLastStep)};

    const testing::LinearFit fit(root, options.session.cluster);
    w = fit.w, b = fit.b, global_step = fit.global_step, x = fit.x, y = fit.y;
    loss = fit.loss, train = fit.train, xs = fit.xs, ys = fit.ys;
    BOOST_TEST(root.graph()->FindNode("w")->def().device() == "/job:ps/task:0");
    BOOST_TEST(root.graph()->FindNode("global_step")->def().device() == "/job:ps/task:0");
  }

  Status Step(MonitoredTrainingSession& session, float* loss_value) {
    std::vector<Tensor> out;
    AF_RETURN_IF_ERROR(session.Run({{x, xs}, {y, ys}}, {loss}, {train}, &out));
    *loss_value = out[0].scalar<float>();
    return Status::OK();
  }

  // One recovery that restored a checkpoint, and a model trained to the
  // goal: the global step, the loss and the fit.
  void CheckRecoveredAndTrained(MonitoredTrainingSession& session, float first_loss,
                                float last_loss) {
    BOOST_TEST(session.recoveries() == 1);
    const std::vector<RecoveryRecord> records = session.recovery_records();
    BOOST_TEST_REQUIRE(records.size() == 1u);
    const RecoveryRecord& r = records[0];
    BOOST_TEST_MESSAGE("recovered from " << r.cause << " in " << r.seconds << " s, "
                                         << r.attempts << " session(s) created: " << r.action);
    BOOST_TEST((r.cause.code() == Code::UNAVAILABLE || r.cause.code() == Code::ABORTED ||
                r.cause.code() == Code::FAILED_PRECONDITION),
               r.cause);
    BOOST_TEST(r.action.find("restored " + dir.path() + "/model.ckpt-") == 0, r.action);
    BOOST_TEST(r.action.find("w (on /job:ps/task:0)") != std::string::npos, r.action);
    std::vector<Tensor> values;
    BOOST_TEST_REQUIRE(session.session()->Run({global_step, w, b}, &values).ok());
    BOOST_TEST(values[0].scalar<int64_t>() == kLastStep);
    BOOST_TEST(last_loss < first_loss / 100, "loss " << first_loss << " -> " << last_loss);
    BOOST_TEST(std::abs(values[1].data<float>()[0] - 3.0f) < 0.05f);
    BOOST_TEST(std::abs(values[2].data<float>()[0] + 1.0f) < 0.05f);
  }
};

// A thread that plays the cluster manager. A test server stops when the
// thread that started it ends (--exit_with_parent is PR_SET_PDEATHSIG,
// which follows the forking thread), so the thread lives until the test
// ends, whichever way it ends.
class Launcher {
 public:
  template <typename Fn>
  explicit Launcher(Fn fn)
      : thread_([this, fn] {
          fn();
          while (!done_) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }) {}
  ~Launcher() {
    done_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

BOOST_AUTO_TEST_CASE(kill_9_of_the_ps_mid_training_is_recovered_from_the_latest_checkpoint) {
  const std::vector<uint16_t> ports = FreePorts(1);
  BOOST_TEST_REQUIRE(ports.size() == 1u);
  PsTraining t(ports[0]);
  ServerProcess ps, restarted;
  ps.any_port = restarted.any_port = false;
  BOOST_TEST_REQUIRE(ps.Start(t.ps_args).ok());
  std::unique_ptr<MonitoredTrainingSession> session;
  Status s = MonitoredTrainingSession::Create(t.root, t.options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);

  // The fault, while the loop runs: kill -9 after step 60 (most likely in
  // the middle of a step), and a new process on the address a second later.
  std::atomic<int> steps{0};
  std::atomic<bool> restarted_yet{false};
  Status restart_status;
  Launcher launcher([&] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (steps < 60 && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ps.Stop(SIGKILL);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    restart_status = restarted.Start(t.ps_args);
    restarted_yet = true;
  });

  float first_loss = -1, last_loss = -1;
  while (!session->ShouldStop() && steps < 2000) {
    s = t.Step(*session, steps == 0 ? &first_loss : &last_loss);
    BOOST_TEST_REQUIRE(s.ok(), s);  // the loop never sees the failure
    ++steps;
  }
  while (!restarted_yet) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  BOOST_TEST_REQUIRE(restart_status.ok(), restart_status);
  t.CheckRecoveredAndTrained(*session, first_loss, last_loss);
  // The steps since the restored checkpoint ran twice.
  BOOST_TEST(steps.load() > kLastStep);
  BOOST_TEST_REQUIRE(session->Close().ok());
}

// The ps task dies and comes back while the loop does something else: the
// master takes the new process back on its own, so the next step may fail
// with FAILED_PRECONDITION (uninitialized variables) rather than
// UNAVAILABLE; either way it is one recovery from the checkpoint.
BOOST_AUTO_TEST_CASE(a_ps_restarted_between_steps_is_recovered_from_the_latest_checkpoint) {
  const std::vector<uint16_t> ports = FreePorts(1);
  BOOST_TEST_REQUIRE(ports.size() == 1u);
  PsTraining t(ports[0]);
  ServerProcess ps, restarted;
  ps.any_port = restarted.any_port = false;
  BOOST_TEST_REQUIRE(ps.Start(t.ps_args).ok());
  std::unique_ptr<MonitoredTrainingSession> session;
  Status s = MonitoredTrainingSession::Create(t.root, t.options, &session);
  BOOST_TEST_REQUIRE(s.ok(), s);
  float first_loss = -1, last_loss = -1;
  int steps = 0;
  for (; steps < 60; ++steps) {
    s = t.Step(*session, steps == 0 ? &first_loss : &last_loss);
    BOOST_TEST_REQUIRE(s.ok(), s);
  }
  // The launcher hands its result over through a future: the test thread
  // read a plain Status the launcher wrote, with no ordering between them.
  std::promise<Status> restart_promise;
  std::future<Status> restart_future = restart_promise.get_future();
  {
    Launcher launcher([&] {
      ps.Stop(SIGKILL);
      restart_promise.set_value(restarted.Start(t.ps_args));
    });
    BOOST_TEST_REQUIRE(
        (restart_future.wait_for(std::chrono::seconds(60)) == std::future_status::ready));
    const Status restart_status = restart_future.get();
    BOOST_TEST_REQUIRE(restart_status.ok(), restart_status);
    // Time for the master's heartbeats to notice the loss and take the new
    // process back (they probe every 250 ms).
    std::this_thread::sleep_for(std::chrono::seconds(3));
    while (!session->ShouldStop() && steps < 2000) {
      s = t.Step(*session, &last_loss);
      BOOST_TEST_REQUIRE(s.ok(), s);
      ++steps;
    }
    t.CheckRecoveredAndTrained(*session, first_loss, last_loss);
    BOOST_TEST_REQUIRE(session->Close().ok());
  }
}

}  // namespace
}  // namespace af
