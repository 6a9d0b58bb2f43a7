// QueueRunner: background threads that keep a queue filled, as
// tf.train.QueueRunner. Each enqueue op gets a thread that runs it again
// and again until the queue is closed (OUT_OF_RANGE or CANCELLED: the
// normal end — the last thread to finish then runs the close op, so
// consumers drain what is left and then get OUT_OF_RANGE) or until another
// error, which is recorded, reported to the coordinator (which stops
// everyone), and answered by running the cancel op (close with
// cancel_pending_enqueues) so that no enqueue or dequeue stays blocked.
//
//   auto q = ops::FIFOQueueV2(root, {DT_FLOAT}, ops::FIFOQueueV2::Capacity(10));
//   auto enqueue = ops::QueueEnqueueV2(root, q, {ops::RandomNormal(...)});
//   auto close = ops::QueueCloseV2(root, q);
//   auto cancel = ops::QueueCloseV2(root, q, ops::QueueCloseV2::CancelPendingEnqueues(true));
//   QueueRunner runner({enqueue.operation}, close.operation, cancel.operation);
//   Coordinator coord;
//   AF_RETURN_IF_ERROR(runner.Start(session, &coord));
//
// Every Run has a deadline (set_run_timeout); an enqueue that outwaits it
// counts as an error, because its element would be lost.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/client_session.h"
#include "client/coordinator.h"
#include "client/ops.h"
#include "client/session.h"
#include "core/status.h"

namespace af {

class QueueRunner : public RunnerInterface {
 public:
  // One thread per enqueue op. `close_op` closes the queue; `cancel_op`
  // closes it with cancel_pending_enqueues. Either may be an invalid
  // Operation (then it is not run).
  QueueRunner(std::vector<Operation> enqueue_ops, Operation close_op, Operation cancel_op);
  // By node name, for graphs imported as GraphDefs (TensorFlow's
  // QueueRunnerDef); such a runner starts on a Session.
  QueueRunner(std::vector<std::string> enqueue_op_names, std::string close_op_name,
              std::string cancel_op_name);
  // Stops the threads (running the cancel op) and joins them. The session
  // must still be open, or at least not destroyed.
  ~QueueRunner() override;
  QueueRunner(const QueueRunner&) = delete;
  QueueRunner& operator=(const QueueRunner&) = delete;

  // Deadline of each Run (default 10 minutes).
  void set_run_timeout(std::chrono::milliseconds timeout) { run_timeout_ = timeout; }

  // Starts the threads. `coordinator` (optional, not owned) learns of the
  // first error and can stop them; the runner registers with it. A runner
  // still running cannot be started again (FAILED_PRECONDITION).
  Status Start(const ClientSession& session, Coordinator* coordinator = nullptr);
  Status Start(Session* session, Coordinator* coordinator = nullptr);

  // Asks the threads to stop: runs the cancel op so that blocked enqueues
  // return.
  void RequestStop();
  // Waits up to `timeout` for the threads; the runner's first error, or
  // DEADLINE_EXCEEDED if they are still running.
  Status Join(std::chrono::milliseconds timeout);
  bool IsRunning() const;

  // RunnerInterface
  void OnStopRequested() override;
  void OnCoordinatorGone() override;
  bool WaitUntilDone(Clock::time_point deadline) override;
  Status status() const override;

 private:
  using RunTarget = std::function<Status(size_t target)>;  // index into names_
  Status StartThreads(RunTarget run, Coordinator* coordinator);
  void EnqueueLoop(size_t index);
  void StopWatcher();
  void JoinThreads();
  bool ShouldStop() const;

  std::vector<Operation> ops_;      // enqueue ops, then close, then cancel (may be empty)
  std::vector<std::string> names_;  // the same, by name ("" when absent)
  size_t num_enqueue_ = 0;
  std::chrono::milliseconds run_timeout_{600000};

  RunTarget run_;
  Coordinator* coordinator_ = nullptr;
  mutable std::mutex mu_;  // guards coordinator_ and the members below
  std::condition_variable changed_;
  int looping_ = 0;           // enqueue threads still running their op
  int running_ = 0;           // enqueue threads not finished (the last one closes the queue)
  bool watcher_done_ = true;
  bool stop_requested_ = false;
  Status status_;
  std::vector<std::thread> threads_;  // the enqueue threads, then the watcher
};

}  // namespace af
