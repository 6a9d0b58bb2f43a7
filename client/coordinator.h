// Coordinator: stops a set of background threads together, as
// tf.train.Coordinator. Threads poll ShouldStop(); any of them (or the main
// thread) calls RequestStop, with the error that made it stop if there was
// one; Join waits for the registered runners and returns the first error.
//
//   Coordinator coord;
//   QueueRunner runner({enqueue}, close, cancel);
//   AF_RETURN_IF_ERROR(runner.Start(session, &coord));
//   while (!coord.ShouldStop()) { ... session.Run(... dequeue ...) ... }
//   coord.RequestStop();
//   AF_RETURN_IF_ERROR(coord.Join(std::chrono::seconds(10)));
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <vector>

#include "core/status.h"

namespace af {

// What a Coordinator joins: a set of threads it can tell to stop.
class RunnerInterface {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~RunnerInterface() = default;
  // The coordinator's stop was requested; called once, with the
  // coordinator's lock held, so it must only signal (never block, never
  // call the coordinator).
  virtual void OnStopRequested() = 0;
  // The coordinator is being destroyed: forget it (called with its lock
  // held, like OnStopRequested). A runner may outlive its coordinator.
  virtual void OnCoordinatorGone() {}
  // Waits until the runner's threads are done; false if `deadline` passed
  // first.
  virtual bool WaitUntilDone(Clock::time_point deadline) = 0;
  // The first error the runner met (OK if none).
  virtual Status status() const = 0;
};

class Coordinator {
 public:
  using Clock = std::chrono::steady_clock;

  // Errors that end the work normally and are not reported by Join:
  // OUT_OF_RANGE (input exhausted) by default, as TensorFlow.
  Coordinator();
  explicit Coordinator(std::set<Code> clean_stop_errors);
  ~Coordinator();
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  // A runner to stop and join (not owned). Registering after a stop request
  // tells the runner to stop at once. Destroying the coordinator asks its
  // runners to stop and makes them forget it, so either may go first.
  void RegisterRunner(RunnerInterface* runner);
  void UnregisterRunner(RunnerInterface* runner);

  // Asks every thread to stop. With an error, records it first (the first
  // error that is not a clean stop is the one Join reports).
  void RequestStop();
  void RequestStop(const Status& why);
  // Records an error without stopping.
  void ReportStatus(const Status& status);

  bool ShouldStop() const;
  // True once a stop was requested; false if `timeout` passed first.
  bool WaitForStop(std::chrono::milliseconds timeout) const;
  // The first error recorded (OK if none).
  Status GetStatus() const;

  // Waits up to `timeout` for every registered runner to finish (they end
  // on their own when their queue closes, or when a stop is requested) and
  // returns the first error from any of them or from RequestStop. Runners
  // still running at the deadline are told to stop, and Join answers
  // DEADLINE_EXCEEDED.
  Status Join(std::chrono::milliseconds timeout);

 private:
  const std::set<Code> clean_stop_errors_;
  mutable std::mutex mu_;  // guards stop_, status_ and runners_
  mutable std::condition_variable stopped_;
  bool stop_ = false;
  Status status_;
  std::vector<RunnerInterface*> runners_;
};

}  // namespace af
