// An application that runs its own CAF actor system and embeds Actorflow
// in it (actors/embedding.h): its own actor trains y = 3 x + 2 by
// messages, each Run sent from the answer to the previous one, and prints
// the loss. Nothing blocks on an actor thread; main only waits at the end.
//
//   build/bin/af_embedding [--steps N]
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <iostream>
#include <memory>
#include <random>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/embedding.h"
#include "client/optimizers/gradient_descent.h"
#include "client/standard_ops.h"
#include "client/variables.h"

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr milliseconds kStepTime{20000};
constexpr seconds kRequestTimeout{30};

struct Model {
  tensorflow::GraphDef graph;
  af::Tensor x, y;
  std::string loss, train, init;
};

af::Status BuildModel(Model* m) {
  constexpr int kExamples = 128;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  m->x = af::Tensor(af::DT_FLOAT, af::TensorShape{kExamples});
  m->y = af::Tensor(af::DT_FLOAT, af::TensorShape{kExamples});
  for (int i = 0; i < kExamples; ++i) {
    m->x.data<float>()[i] = uniform(rng);
    m->y.data<float>()[i] = 3.0f * m->x.data<float>()[i] + 2.0f;
  }
  af::Scope root = af::Scope::NewRootScope();
  namespace ops = af::ops;
  auto x = ops::Placeholder(root.WithOpName("x"), af::DT_FLOAT, af::PartialTensorShape({-1}));
  auto y = ops::Placeholder(root.WithOpName("y"), af::DT_FLOAT, af::PartialTensorShape({-1}));
  af::Variable w(root.WithOpName("w"), ops::Const(root, 0.0f));
  af::Variable b(root.WithOpName("b"), ops::Const(root, 0.0f));
  auto error = ops::Sub(root, ops::Add(root, ops::Mul(root, x, w), b), y);
  auto loss = ops::Mean(root.WithOpName("loss"), ops::Square(root, error), 0);
  af::GradientDescentOptimizer sgd(0.3);
  af::Operation train;
  AF_RETURN_IF_ERROR(sgd.Minimize(root, loss, &train));
  af::Operation init = af::GlobalVariablesInitializer(root);
  AF_RETURN_IF_ERROR(root.status());
  AF_RETURN_IF_ERROR(root.ToGraphDef(&m->graph));
  m->loss = af::Output(loss).name();
  m->train = train.name();
  m->init = init.name();
  return af::Status::OK();
}

// The application's actor.
struct TrainerState {
  TrainerState() = default;  // not an aggregate: CAF would build it from the actor pointer
  af::EmbeddedSession session;
  Model model;
  int steps = 0;
  std::shared_ptr<std::promise<af::Status>> done;
};
using Trainer = caf::stateful_actor<TrainerState>;

void Finish(Trainer* self, af::Status status) {
  self->state.done->set_value(std::move(status));
  self->quit();
}

auto Failed(Trainer* self) {
  return [=](caf::error& err) {
    Finish(self, af::errors::Unavailable("request failed: ", self->system().render(err)));
  };
}

void Step(Trainer* self, int step) {
  if (step == self->state.steps) {
    self->request(self->state.session, kRequestTimeout, af::close_atom::value,
                  int64_t{kStepTime.count()})
        .then([=](af::wire::WireStatus& s) { Finish(self, af::ToStatus(s)); }, Failed(self));
    return;
  }
  const Model& m = self->state.model;
  self->request(self->state.session, kRequestTimeout, af::run_atom::value,
                af::MakeRunRequest({{"x:0", m.x}, {"y:0", m.y}}, {m.loss}, {m.train}, kStepTime))
      .then(
          [=](af::wire::RunStepResponse& r) {
            af::Status s = af::ToStatus(r.status);
            if (!s.ok()) return Finish(self, s);
            if (step % 5 == 0 || step + 1 == self->state.steps) {
              std::cout << "step " << step << " loss " << r.outputs[0].scalar<float>() << "\n";
            }
            Step(self, step + 1);
          },
          Failed(self));
}

caf::behavior TrainerBehavior(Trainer* self, af::EmbeddedSession session, Model model,
                              int steps,
                              std::shared_ptr<std::promise<af::Status>> done) {
  self->state.session = std::move(session);
  self->state.model = std::move(model);
  self->state.steps = steps;
  self->state.done = std::move(done);
  self->request(self->state.session, kRequestTimeout, af::extend_atom::value,
                af::SerializeGraph(self->state.model.graph), int64_t{kStepTime.count()})
      .then(
          [=](af::wire::WireStatus& extended) {
            if (af::Status s = af::ToStatus(extended); !s.ok()) return Finish(self, s);
            self->request(self->state.session, kRequestTimeout, af::run_atom::value,
                          af::MakeRunRequest({}, {}, {self->state.model.init}, kStepTime))
                .then(
                    [=](af::wire::RunStepResponse& r) {
                      if (af::Status s = af::ToStatus(r.status); !s.ok()) return Finish(self, s);
                      Step(self, 0);
                    },
                    Failed(self));
          },
          Failed(self));
  return {
      // Health events of the session (subscribed in main).
      [=](const af::StepAborted& e) {
        std::cout << "step " << e.step_id << " aborted: " << e.status.ToString() << "\n";
      },
      [=](const af::WorkerLost& e) {
        std::cout << "worker lost: " << e.task << ": " << e.reason.ToString() << "\n";
      },
  };
}

int Fail(const af::Status& s) {
  std::cerr << s.ToString() << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 30;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--steps") == 0) steps = std::max(1, std::atoi(argv[i + 1]));
  }
  Model model;
  if (af::Status s = BuildModel(&model); !s.ok()) return Fail(s);

  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  af::RegisterActorflowTypes(cfg);
  af::Status result;
  {
    caf::actor_system system{cfg};
    if (af::Status s = af::UseActorSystem(system); !s.ok()) return Fail(s);
    {
      std::unique_ptr<af::EmbeddedRuntime> runtime;
      if (af::Status s = af::EmbeddedRuntime::Create(system, {}, &runtime); !s.ok()) {
        return Fail(s);
      }
      auto done = std::make_shared<std::promise<af::Status>>();
      auto finished = done->get_future();
      auto trainer =
          system.spawn(TrainerBehavior, runtime->session(), std::move(model), steps, done);
      runtime->Subscribe(caf::actor_cast<caf::actor>(trainer));
      if (finished.wait_for(seconds(120)) != std::future_status::ready) {
        return Fail(af::errors::DeadlineExceeded("training did not finish in 120 s"));
      }
      result = finished.get();
    }  // the runtime stops its actors
    if (af::Status s = af::ReleaseActorSystem(); !s.ok()) return Fail(s);
  }  // the application's system shuts down
  if (!result.ok()) return Fail(result);
  std::cout << "done\n";
  return 0;
}
