// Shared by the training-loop tests: a small linear model with a global
// step, a hook that records what it is called with, and a hook that makes
// one step fail as a lost ps task would.
#pragma once

#include <boost/test/unit_test.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "client/client_session.h"
#include "client/optimizers/optimizers.h"
#include "client/standard_ops.h"
#include "client/training/global_step.h"
#include "client/training/session_run_hook.h"
#include "client/variables.h"

namespace af::testing {

// y = 2x + 1 fitted by gradient descent; `train` also advances the global
// step by one.
struct LinearModel {
  explicit LinearModel(const Scope& root, const std::string& device = "") {
    Scope s = device.empty() ? root : root.WithDevice(device);
    w = Variable(s.WithOpName("w"), Input::Initializer(0.0f)).var;
    b = Variable(s.WithOpName("b"), Input::Initializer(0.0f)).var;
    global_step = GetOrCreateGlobalStep(root);
    const std::vector<float> xs = {-1, -0.5f, 0, 0.5f, 1};
    std::vector<float> ys;
    for (float v : xs) ys.push_back(2 * v + 1);
    auto x = ops::Const(root, Input::Initializer(Tensor::FromVector<float>(xs)));
    auto y = ops::Const(root, Input::Initializer(Tensor::FromVector<float>(ys)));
    auto predicted = ops::Add(root, ops::Mul(root, x, w), b);
    loss = ops::Mean(root, ops::Square(root, ops::Sub(root, predicted, y)), {0});
    GradientDescentOptimizer sgd(0.2);
    BOOST_TEST_REQUIRE(sgd.Minimize(root, loss, &train).ok());
  }
  Output w, b;
  Output global_step;
  Output loss;
  Operation train;
};

// Variables live in the process's containers: tests that build the same
// names again start from nothing.
inline void ResetContainers() {
  Scope root = Scope::NewRootScope();
  ClientSession session(root);
  BOOST_TEST_REQUIRE(session.Reset({}).ok());
}

// Starts and ends each test of a suite with empty containers, so that the
// variables these tests leave ("w", "b", "global_step") do not meet other
// suites' variables of the same names.
struct EmptyContainers {
  EmptyContainers() { ResetContainers(); }
  ~EmptyContainers() {
    Scope root = Scope::NewRootScope();
    ClientSession session(root);
    if (!session.Reset({}).ok()) BOOST_TEST_MESSAGE("could not clear the containers");
  }
};

// Appends "<name>.<call>" to a shared trace; optionally fetches a tensor
// and keeps what it got.
class RecordingHook : public SessionRunHook {
 public:
  RecordingHook(std::string name, std::vector<std::string>* trace)
      : name_(std::move(name)), trace_(trace) {}
  Output fetch;                  // fetched at every step when valid
  std::vector<Tensor> fetched;   // what the fetch gave, step by step
  std::function<bool(int64_t)> stop_after;  // asks to stop after run n (1-based)

  Status Begin(const Scope&) override { return Note("begin"); }
  Status AfterCreateSession(ClientSession&) override { return Note("after_create_session"); }
  Status BeforeRun(SessionRunContext&, SessionRunArgs* args) override {
    if (fetch.valid()) args->fetches.push_back(fetch);
    return Note("before_run");
  }
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override {
    ++runs_;
    if (fetch.valid()) {
      BOOST_TEST(values.results.size() == 1u);
      if (!values.results.empty()) fetched.push_back(values.results[0]);
    }
    if (stop_after && stop_after(runs_)) context.RequestStop();
    return Note("after_run");
  }
  Status End(ClientSession&) override { return Note("end"); }

 private:
  Status Note(const std::string& call) {
    trace_->push_back(name_ + "." + call);
    return Status::OK();
  }
  std::string name_;
  std::vector<std::string>* trace_;
  int64_t runs_ = 0;
};

// Makes the step after which it is armed fail with UNAVAILABLE (from
// AfterRun, as a step whose ps task died), first running `lose_state`
// (clearing the containers stands in for the ps task's lost memory).
class FaultHook : public SessionRunHook {
 public:
  std::function<void()> lose_state;
  int fail_at_run = -1;      // 1-based run number that fails; -1: never
  bool fail_always = false;  // every run fails
  int runs = 0;

  Status AfterRun(SessionRunContext&, const SessionRunValues&) override {
    ++runs;
    if (fail_always || runs == fail_at_run) {
      if (lose_state) lose_state();
      return errors::Unavailable("injected: /job:ps/replica:0/task:0 at 127.0.0.1:1 lost");
    }
    return Status::OK();
  }
};

}  // namespace af::testing
