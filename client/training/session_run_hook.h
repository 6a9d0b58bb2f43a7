// SessionRunHook: code that runs around every step of a
// MonitoredTrainingSession, as TensorFlow's tf.train.SessionRunHook.
// Checkpoints, summaries, stop-at-step and step logging are hooks; a
// program adds its own the same way.
//
// The calls, in order:
//   Begin(scope)                 once, before any session exists: the last
//                                chance to add ops to the graph.
//   AfterCreateSession(session)  after every session creation, the first
//                                and each one that follows a recovery, once
//                                the variables are initialized or restored.
//   BeforeRun(context, args)     before each step: add fetches, targets or
//                                feeds to the step in `args`.
//   AfterRun(context, values)    after each step that succeeded: `values`
//                                holds this hook's fetches; a hook may call
//                                context.RequestStop().
//   End(session)                 once, when the training session closes
//                                without an error.
//
// A recoverable error (UNAVAILABLE, ABORTED) returned by BeforeRun or
// AfterRun, like one from the step itself, makes the training session
// recover and run the whole step again (BeforeRun included); any other
// error is returned from MonitoredTrainingSession::Run.
#pragma once

#include <vector>

#include "client/client_session.h"
#include "client/ops.h"
#include "client/scope.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af {

// What a hook adds to a step.
struct SessionRunArgs {
  std::vector<Output> fetches;
  std::vector<Operation> targets;
  ClientSession::FeedType feeds;
};

// What the hook's fetches gave: results[i] is SessionRunArgs::fetches[i].
struct SessionRunValues {
  std::vector<Tensor> results;
};

// The step being run, as hooks see it.
class SessionRunContext {
 public:
  SessionRunContext(ClientSession* session, const std::vector<Output>* fetches)
      : session_(session), fetches_(fetches) {}

  // The current session (it changes after a recovery); hooks may run their
  // own ops on it (a save, a read of the global step).
  ClientSession& session() const { return *session_; }
  // The fetches the program asked for.
  const std::vector<Output>& original_fetches() const { return *fetches_; }

  // Ends the training loop after this step: should_stop() turns true.
  void RequestStop() { stop_requested_ = true; }
  bool stop_requested() const { return stop_requested_; }

 private:
  ClientSession* session_;
  const std::vector<Output>* fetches_;
  bool stop_requested_ = false;
};

class SessionRunHook {
 public:
  virtual ~SessionRunHook() = default;
  virtual Status Begin(const Scope& scope) { return Status::OK(); }
  virtual Status AfterCreateSession(ClientSession& session) { return Status::OK(); }
  virtual Status BeforeRun(SessionRunContext& context, SessionRunArgs* args) {
    return Status::OK();
  }
  virtual Status AfterRun(SessionRunContext& context, const SessionRunValues& values) {
    return Status::OK();
  }
  virtual Status End(ClientSession& session) { return Status::OK(); }
  // A step failed with `cause` and the MonitoredTrainingSession is about to
  // replace the session (a recovery). Work running beside the session (a
  // chief's aggregation loop) stops here, so that nothing changes the
  // cluster's state between the failure and the restore that follows;
  // AfterCreateSession starts it again. Not part of TensorFlow's hook
  // interface: there the coordinator's threads die with the session.
  virtual void BeforeRecreateSession(const Status& cause) {}
};

}  // namespace af
