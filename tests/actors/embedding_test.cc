// Actorflow embedded in an application's own CAF actor system
// (actors/embedding.h): an application actor trains by messages only (on
// a runtime made from a plain thread, or one it created by message),
// subscribers get StepAborted and WorkerLost events, a badly prepared
// system is refused, and the default path works again after release.
//
// UseActorSystem refuses while Actorflow's own system runs, and suites
// before this one may keep it running for good (queues pin it: actors/
// queue/queue_factory.cc). Then each case re-runs itself alone in a fresh
// process of this binary, where it runs as written.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <caf/actor_system.hpp>
#include <caf/after.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/actor_system_holder.h"
#include "actors/embedding.h"
#include "actors/virtual_cluster.h"
#include "client/optimizers/gradient_descent.h"
#include "client/session.h"
#include "client/standard_ops.h"
#include "client/variables.h"
#include "core/cluster_spec.h"

namespace af {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kExamples = 64;
constexpr int kTrainSteps = 40;

// Runs `body` here, or alone in a fresh process when this one cannot embed.
void RunEmbedded(const std::string& test_name, void (*body)()) {
  if (!actors::CurrentActorSystem()) return body();
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  BOOST_TEST_REQUIRE(n > 0);
  exe[n] = '\0';
  BOOST_TEST_MESSAGE("Actorflow's own actor system runs here; re-running " << test_name
                                                                          << " alone");
  const std::string command = std::string("timeout 240 '") + exe +
                              "' --run_test=embedding/" + test_name + " --log_level=error";
  const int rc = std::system(command.c_str());
  BOOST_TEST(rc == 0, "the fresh process failed: " << command << " exited " << rc);
}

// What an application does before creating its system.
struct AppConfig : caf::actor_system_config {
  AppConfig() {
    load<caf::io::middleman>();
    RegisterActorflowTypes(*this);
    set("scheduler.max-threads", 2);
  }
};

// Embeds `system` for a test's scope and releases it on every way out,
// before the system is destroyed: a failed check must not leave later
// suites a dangling system.
class Embedded {
 public:
  explicit Embedded(caf::actor_system& system) {
    Status s = UseActorSystem(system);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  }
  ~Embedded() { (void)ReleaseActorSystem(); }
  Embedded(const Embedded&) = delete;
  Embedded& operator=(const Embedded&) = delete;
};

// y = 3 x + 2 (+ noise) on x in [-1, 1]; w and b start at 0.
struct Regression {
  tensorflow::GraphDef graph;
  Tensor x, y;
  std::string loss, train, init, w, b;
};

Regression BuildRegression() {
  Regression r;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::normal_distribution<float> noise(0.0f, 0.01f);
  r.x = Tensor(DT_FLOAT, TensorShape{kExamples});
  r.y = Tensor(DT_FLOAT, TensorShape{kExamples});
  for (int i = 0; i < kExamples; ++i) {
    r.x.data<float>()[i] = uniform(rng);
    r.y.data<float>()[i] = 3.0f * r.x.data<float>()[i] + 2.0f + noise(rng);
  }
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialTensorShape({-1}));
  auto y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT, PartialTensorShape({-1}));
  Variable w(root.WithOpName("emb_w"), ops::Const(root, 0.0f));
  Variable b(root.WithOpName("emb_b"), ops::Const(root, 0.0f));
  auto predicted = ops::Add(root, ops::Mul(root, x, w), b);
  auto loss = ops::Mean(root.WithOpName("loss"), ops::Square(root, ops::Sub(root, predicted, y)),
                        0);
  GradientDescentOptimizer sgd(0.3);
  Operation train;
  Status s = sgd.Minimize(root, loss, &train);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  Operation init = GlobalVariablesInitializer(root);
  BOOST_TEST_REQUIRE(root.ok(), root.status().ToString());
  s = root.ToGraphDef(&r.graph);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  r.loss = Output(loss).name();
  r.train = train.name();
  r.init = init.name();
  r.w = Output(w).name();
  r.b = Output(b).name();
  return r;
}

// --- The application's trainer: one request from the answer to the last.

struct TrainOutcome {
  Status status;
  std::vector<float> losses;
  float w = 0, b = 0;
};

struct TrainerState {
  TrainerState() = default;  // not an aggregate (see actors/master/master_service.cc)
  EmbeddedSession session;
  Regression model;
  TrainOutcome outcome;
  std::shared_ptr<std::promise<TrainOutcome>> done;
};
using TrainerActor = caf::stateful_actor<TrainerState>;

constexpr milliseconds kStepTime{20000};
constexpr seconds kRequestTimeout{30};

void Finish(TrainerActor* self, Status status) {
  self->state.outcome.status = std::move(status);
  self->state.done->set_value(std::move(self->state.outcome));
  self->quit();
}

auto FailWith(TrainerActor* self, const std::string& what) {
  return [=](caf::error& err) {
    Finish(self, errors::Internal(what, ": ", self->system().render(err)));
  };
}

void CloseSession(TrainerActor* self) {
  self->request(self->state.session, kRequestTimeout, close_atom::value,
                int64_t{kStepTime.count()})
      .then([=](wire::WireStatus& status) { Finish(self, ToStatus(status)); },
            FailWith(self, "Close"));
}

void ReadVariables(TrainerActor* self) {
  const Regression& m = self->state.model;
  self->request(self->state.session, kRequestTimeout, run_atom::value,
                MakeRunRequest({}, {m.w, m.b}, {}, kStepTime))
      .then(
          [=](wire::RunStepResponse& response) {
            Status s = ToStatus(response.status);
            if (!s.ok()) return Finish(self, s);
            self->state.outcome.w = response.outputs[0].scalar<float>();
            self->state.outcome.b = response.outputs[1].scalar<float>();
            CloseSession(self);
          },
          FailWith(self, "Run (read)"));
}

void TrainStep(TrainerActor* self, int step) {
  if (step == kTrainSteps) return ReadVariables(self);
  const Regression& m = self->state.model;
  self->request(self->state.session, kRequestTimeout, run_atom::value,
                MakeRunRequest({{"x:0", m.x}, {"y:0", m.y}}, {m.loss}, {m.train}, kStepTime))
      .then(
          [=](wire::RunStepResponse& response) {
            Status s = ToStatus(response.status);
            if (!s.ok()) return Finish(self, s);
            self->state.outcome.losses.push_back(response.outputs.at(0).scalar<float>());
            TrainStep(self, step + 1);
          },
          FailWith(self, "Run (train)"));
}

caf::behavior Trainer(TrainerActor* self, EmbeddedSession session, Regression model,
                      std::shared_ptr<std::promise<TrainOutcome>> done) {
  self->state.session = std::move(session);
  self->state.model = std::move(model);
  self->state.done = std::move(done);
  self->request(self->state.session, kRequestTimeout, extend_atom::value,
                SerializeGraph(self->state.model.graph), int64_t{kStepTime.count()})
      .then(
          [=](wire::WireStatus& extended) {
            Status s = ToStatus(extended);
            if (!s.ok()) return Finish(self, s);
            self->request(self->state.session, kRequestTimeout, run_atom::value,
                          MakeRunRequest({}, {}, {self->state.model.init}, kStepTime))
                .then(
                    [=](wire::RunStepResponse& response) {
                      Status s = ToStatus(response.status);
                      if (!s.ok()) return Finish(self, s);
                      TrainStep(self, 0);
                    },
                    FailWith(self, "Run (init)"));
          },
          FailWith(self, "Extend"));
  return {[](caf::ok_atom) {}};  // everything arrives as responses
}

// The outcome, or `timed_out` when the actor does not finish within `limit`.
template <typename Outcome>
Outcome WaitFor(std::future<Outcome>& future, seconds limit, Outcome timed_out) {
  if (future.wait_for(limit) != std::future_status::ready) return timed_out;
  return future.get();
}

TrainOutcome Wait(std::future<TrainOutcome>& future, seconds limit) {
  TrainOutcome timed_out;
  timed_out.status = errors::DeadlineExceeded("the application actor did not finish");
  return WaitFor(future, limit, std::move(timed_out));
}

// The trainer ran every step and fitted y = 3 x + 2.
void CheckTrained(const TrainOutcome& outcome) {
  BOOST_TEST_REQUIRE(outcome.status.ok(), outcome.status.ToString());
  BOOST_TEST_REQUIRE(outcome.losses.size() == static_cast<size_t>(kTrainSteps));
  BOOST_TEST_MESSAGE("loss " << outcome.losses.front() << " -> " << outcome.losses.back()
                             << ", w " << outcome.w << ", b " << outcome.b);
  BOOST_TEST(outcome.losses.back() < 0.01f * outcome.losses.front());
  BOOST_TEST(std::abs(outcome.w - 3.0f) < 0.2f);
  BOOST_TEST(std::abs(outcome.b - 2.0f) < 0.1f);
}

void TrainsByMessages() {
  AppConfig cfg;
  caf::actor_system system{cfg};
  Embedded embedded(system);
  {
    std::unique_ptr<EmbeddedRuntime> runtime;
    Status s = EmbeddedRuntime::Create(system, {}, &runtime);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST_REQUIRE(runtime->devices().size() == 1u);
    BOOST_TEST(runtime->devices()[0].name == "/job:localhost/replica:0/task:0/device:CPU:0");

    auto done = std::make_shared<std::promise<TrainOutcome>>();
    auto future = done->get_future();
    system.spawn(Trainer, runtime->session(), BuildRegression(), done);
    CheckTrained(Wait(future, seconds(120)));
    // The session quit after Close; the runtime's other actors stop here.
  }
  Status released = ReleaseActorSystem();
  BOOST_TEST(released.ok(), released.ToString());
}

// --- An application actor that creates the runtime itself: CreateAsync
// answers by message, so no handler waits for the workers to list devices.

struct OwnerState {
  OwnerState() = default;
  std::shared_ptr<EmbeddedRuntime> runtime;
  size_t devices = 0;
  std::shared_ptr<std::promise<size_t>> dropped;  // the device count, once the runtime is gone
};
using OwnerActor = caf::stateful_actor<OwnerState>;

caf::behavior Owner(OwnerActor* self, Regression model,
                    std::shared_ptr<std::promise<TrainOutcome>> trained,
                    std::shared_ptr<std::promise<size_t>> dropped) {
  self->state.dropped = std::move(dropped);
  EmbeddedRuntime::CreateAsync(self->system(), {}, caf::actor_cast<caf::actor>(self));
  // The trainer ends after Close: then the owner lets the runtime go.
  self->set_down_handler([=](caf::down_msg&) {
    self->state.runtime.reset();
    self->state.dropped->set_value(self->state.devices);
    self->quit();
  });
  return {
      [=](created_atom, EmbeddedRuntimeCreated& created) {
        if (!created.status.ok()) {
          TrainOutcome failed;
          failed.status = created.status;
          trained->set_value(std::move(failed));
          self->state.dropped->set_value(0);
          return self->quit();
        }
        self->state.runtime = std::move(created.runtime);
        self->state.devices = self->state.runtime->devices().size();
        auto trainer = self->spawn(Trainer, self->state.runtime->session(), model, trained);
        self->monitor(trainer);
      },
  };
}

void ActorCreatesRuntime() {
  AppConfig cfg;
  caf::actor_system system{cfg};
  Embedded embedded(system);
  {
    // Bad options come back as the message's status.
    caf::scoped_actor client{system};
    EmbeddedOptions bad;
    bad.num_cpu_devices = 0;
    EmbeddedRuntime::CreateAsync(system, bad, caf::actor_cast<caf::actor>(client));
    Status refused = errors::Internal("no answer");
    client->receive(
        [&](created_atom, EmbeddedRuntimeCreated& created) {
          refused = created.status;
          BOOST_TEST(!created.runtime);
        },
        caf::after(seconds(30)) >> [&] { refused = errors::DeadlineExceeded("no answer"); });
    BOOST_TEST((refused.code() == Code::INVALID_ARGUMENT), refused.ToString());
    BOOST_TEST(refused.message().find("num_cpu_devices") != std::string::npos,
               refused.ToString());
  }
  auto trained = std::make_shared<std::promise<TrainOutcome>>();
  auto dropped = std::make_shared<std::promise<size_t>>();
  auto trained_future = trained->get_future();
  auto dropped_future = dropped->get_future();
  // Held here: CAF destroys an actor nothing refers to, with its state.
  caf::actor owner = system.spawn(Owner, BuildRegression(), trained, dropped);
  CheckTrained(Wait(trained_future, seconds(120)));
  BOOST_TEST_REQUIRE((dropped_future.wait_for(seconds(30)) == std::future_status::ready));
  BOOST_TEST(dropped_future.get() == 1u);
  Status released = ReleaseActorSystem();
  BOOST_TEST(released.ok(), released.ToString());
}

// --- Health events.

struct WatchOutcome {
  Status run_status;      // the Run's answer (StepAborted test)
  bool got_abort = false;
  StepAborted abort;
  bool got_lost = false;
  WorkerLost lost;
};

using timeout_atom = caf::atom_constant<caf::atom("embtimeout")>;

// Subscribes, runs `request` (if any) and waits for the events wanted.
struct WatcherState {
  WatcherState() = default;
  WatchOutcome outcome;
  bool run_answered = false;
  bool want_abort = false, want_lost = false;
  std::shared_ptr<std::promise<WatchOutcome>> done;
  bool finished = false;
};
using WatcherActor = caf::stateful_actor<WatcherState>;

void MaybeFinish(WatcherActor* self, bool timed_out = false) {
  WatcherState& st = self->state;
  if (st.finished) return;
  const bool complete = (!st.want_abort || (st.outcome.got_abort && st.run_answered)) &&
                        (!st.want_lost || st.outcome.got_lost);
  if (!complete && !timed_out) return;
  st.finished = true;
  st.done->set_value(st.outcome);
  self->quit();
}

caf::behavior Watcher(WatcherActor* self, caf::actor events, EmbeddedSession session,
                      wire::RunStepRequest failing_run, bool want_abort, bool want_lost,
                      std::shared_ptr<std::promise<WatchOutcome>> done) {
  WatcherState& st = self->state;
  st.want_abort = want_abort;
  st.want_lost = want_lost;
  st.done = std::move(done);
  // The subscription is in the hub's mailbox before any step starts: both
  // go out from here, in this order.
  self->send(events, watch_atom::value, caf::actor_cast<caf::actor>(self));
  if (want_abort) {
    self->request(session, kRequestTimeout, run_atom::value, std::move(failing_run))
        .then(
            [=](wire::RunStepResponse& response) {
              self->state.outcome.run_status = ToStatus(response.status);
              self->state.run_answered = true;
              MaybeFinish(self);
            },
            [=](caf::error& err) {
              self->state.outcome.run_status =
                  errors::Internal("Run: ", self->system().render(err));
              self->state.run_answered = true;
              MaybeFinish(self);
            });
  }
  self->delayed_send(self, seconds(30), timeout_atom::value);
  return {
      [=](const StepAborted& event) {
        self->state.outcome.got_abort = true;
        self->state.outcome.abort = event;
        MaybeFinish(self);
      },
      [=](const WorkerLost& event) {
        self->state.outcome.got_lost = true;
        self->state.outcome.lost = event;
        MaybeFinish(self);
      },
      [=](timeout_atom) { MaybeFinish(self, /*timed_out=*/true); },
  };
}

WatchOutcome WaitWatch(std::future<WatchOutcome>& future) {
  WatchOutcome none;
  none.run_status = errors::DeadlineExceeded("the watcher did not finish");
  return WaitFor(future, seconds(60), std::move(none));
}

// A kernel that fails at run time (CheckNumerics on a NaN) aborts the
// step: the Run's answer and the event carry the same status.
void StepAbortedReachesSubscriber() {
  AppConfig cfg;
  caf::actor_system system{cfg};
  Embedded embedded(system);
  {
    std::unique_ptr<EmbeddedRuntime> runtime;
    Status s = EmbeddedRuntime::Create(system, {}, &runtime);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialTensorShape({-1}));
    auto checked = ops::CheckNumerics(root.WithOpName("checked"), x, "embedding-test");
    tensorflow::GraphDef graph;
    BOOST_TEST_REQUIRE(root.ToGraphDef(&graph).ok());

    // Extend from this plain thread: a scoped actor may block.
    caf::scoped_actor client{system};
    Status extended = errors::Internal("no answer");
    client->request(runtime->session(), kRequestTimeout, extend_atom::value,
                    SerializeGraph(graph), int64_t{20000})
        .receive([&](wire::WireStatus& st) { extended = ToStatus(st); },
                 [&](caf::error& err) { extended = errors::Internal(system.render(err)); });
    BOOST_TEST_REQUIRE(extended.ok(), extended.ToString());

    // A good step first: it must not raise an event.
    Tensor good(DT_FLOAT, TensorShape{2});
    good.data<float>()[0] = 1.0f;
    good.data<float>()[1] = 2.0f;
    Tensor bad(DT_FLOAT, TensorShape{2});
    bad.data<float>()[0] = 1.0f;
    bad.data<float>()[1] = std::nanf("");

    auto done = std::make_shared<std::promise<WatchOutcome>>();
    auto future = done->get_future();
    system.spawn(Watcher, runtime->events(), runtime->session(),
                 MakeRunRequest({{"x:0", bad}}, {Output(checked).name()}, {}, kStepTime),
                 /*want_abort=*/true, /*want_lost=*/false, done);
    WatchOutcome outcome = WaitWatch(future);
    BOOST_TEST((outcome.run_status.code() == Code::INVALID_ARGUMENT),
               outcome.run_status.ToString());
    BOOST_TEST_REQUIRE(outcome.got_abort, "no StepAborted within 30 s");
    BOOST_TEST(outcome.abort.step_id != 0);
    BOOST_TEST((outcome.abort.status.code() == outcome.run_status.code()));
    BOOST_TEST(outcome.abort.status.message().find("embedding-test") != std::string::npos,
               outcome.abort.status.ToString());

    // The session survives a failed step.
    wire::RunStepResponse again;
    client->request(runtime->session(), kRequestTimeout, run_atom::value,
                    MakeRunRequest({{"x:0", good}}, {Output(checked).name()}, {}, kStepTime))
        .receive([&](wire::RunStepResponse& r) { again = std::move(r); },
                 [&](caf::error& err) { again.status.code = -1; });
    BOOST_TEST(ToStatus(again.status).ok(), ToStatus(again.status).ToString());
    BOOST_TEST_REQUIRE(again.outputs.size() == 1u);
    BOOST_TEST(again.outputs[0].data<float>()[1] == 2.0f);
  }
  BOOST_TEST(ReleaseActorSystem().ok());
}

// A task of an in-process virtual cluster goes away: the master notices
// (its monitor of the task's worker) and the subscriber hears it.
void WorkerLostReachesSubscriber() {
  AppConfig cfg;
  caf::actor_system system{cfg};
  Embedded embedded(system);
  {
    VirtualClusterOptions cluster_options;
    cluster_options.jobs = {{"worker", 1}};
    std::unique_ptr<VirtualCluster> cluster;
    Status s = VirtualCluster::Start(cluster_options, &cluster);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    std::string address;
    BOOST_TEST_REQUIRE(cluster->spec().Address("worker", 0, &address).ok());

    EmbeddedOptions options;
    options.remote_tasks = {RemoteTask{address, "/job:worker/replica:0/task:0"}};
    std::unique_ptr<EmbeddedRuntime> runtime;
    s = EmbeddedRuntime::Create(system, options, &runtime);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST_REQUIRE(runtime->devices().size() == 2u);

    auto done = std::make_shared<std::promise<WatchOutcome>>();
    auto future = done->get_future();
    system.spawn(Watcher, runtime->events(), runtime->session(), wire::RunStepRequest{},
                 /*want_abort=*/false, /*want_lost=*/true, done);
    // Lets the watcher's subscription land before the task goes.
    std::this_thread::sleep_for(milliseconds(200));
    cluster->Stop();
    WatchOutcome outcome = WaitWatch(future);
    BOOST_TEST_REQUIRE(outcome.got_lost, "no WorkerLost within 30 s");
    BOOST_TEST(outcome.lost.task.find("/job:worker/replica:0/task:0") != std::string::npos,
               outcome.lost.task);
    BOOST_TEST(!outcome.lost.reason.ok());
    runtime.reset();
    cluster.reset();
  }
  BOOST_TEST(ReleaseActorSystem().ok());
}

// What UseActorSystem refuses, then the ordinary path in the same process.
void RulesAndDefaultPath() {
  {
    caf::actor_system_config bare_cfg;
    bare_cfg.load<caf::io::middleman>();  // but no Actorflow types
    caf::actor_system bare{bare_cfg};
    Status s = UseActorSystem(bare);
    BOOST_TEST((s.code() == Code::FAILED_PRECONDITION), s.ToString());
  }
  {
    AppConfig cfg;
    caf::actor_system first{cfg};
    AppConfig other_cfg;
    caf::actor_system second{other_cfg};
    Embedded embedded(first);
    BOOST_TEST(UseActorSystem(first).ok());  // the same one again is fine
    BOOST_TEST((UseActorSystem(second).code() == Code::FAILED_PRECONDITION));
    std::unique_ptr<EmbeddedRuntime> runtime;
    BOOST_TEST((EmbeddedRuntime::Create(second, {}, &runtime).code() ==
                Code::FAILED_PRECONDITION));
    BOOST_TEST_REQUIRE(EmbeddedRuntime::Create(first, {}, &runtime).ok());
    // Still held: refusing to release protects the application's shutdown.
    BOOST_TEST((ReleaseActorSystem().code() == Code::FAILED_PRECONDITION));
    runtime.reset();
    BOOST_TEST_REQUIRE(ReleaseActorSystem().ok());
  }
  // Nothing embedded any more: a Session makes Actorflow's own system.
  Regression model = BuildRegression();
  std::unique_ptr<Session> session;
  Status s = Session::Create(SessionOptions{}, &session);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(session->Extend(model.graph).ok());
  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(session->Run({}, {}, {model.init}, &out).ok());
  float first = 0, last = 0;
  for (int step = 0; step < 10; ++step) {
    s = session->Run({{"x:0", model.x}, {"y:0", model.y}}, {model.loss}, {model.train}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    (step == 0 ? first : last) = out[0].scalar<float>();
  }
  BOOST_TEST(last < first);
  // Actorflow's own system is running now: embedding must be refused.
  AppConfig late_cfg;
  caf::actor_system late{late_cfg};
  BOOST_TEST((UseActorSystem(late).code() == Code::FAILED_PRECONDITION));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(embedding)

BOOST_AUTO_TEST_CASE(trains_by_messages_in_application_system) {
  RunEmbedded("trains_by_messages_in_application_system", TrainsByMessages);
}

BOOST_AUTO_TEST_CASE(an_actor_creates_the_runtime_by_message) {
  RunEmbedded("an_actor_creates_the_runtime_by_message", ActorCreatesRuntime);
}

BOOST_AUTO_TEST_CASE(subscriber_gets_step_aborted) {
  RunEmbedded("subscriber_gets_step_aborted", StepAbortedReachesSubscriber);
}

BOOST_AUTO_TEST_CASE(subscriber_gets_worker_lost) {
  RunEmbedded("subscriber_gets_worker_lost", WorkerLostReachesSubscriber);
}

BOOST_AUTO_TEST_CASE(refuses_unprepared_systems_then_default_path_works) {
  RunEmbedded("refuses_unprepared_systems_then_default_path_works", RulesAndDefaultPath);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace af
