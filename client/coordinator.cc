#include "client/coordinator.h"

#include <algorithm>
#include <utility>

namespace af {

Coordinator::Coordinator() : Coordinator(std::set<Code>{Code::OUT_OF_RANGE}) {}

Coordinator::Coordinator(std::set<Code> clean_stop_errors)
    : clean_stop_errors_(std::move(clean_stop_errors)) {}

Coordinator::~Coordinator() {
  RequestStop();
  std::lock_guard<std::mutex> lock(mu_);
  for (RunnerInterface* runner : runners_) runner->OnCoordinatorGone();
  runners_.clear();
}

void Coordinator::RegisterRunner(RunnerInterface* runner) {
  std::lock_guard<std::mutex> lock(mu_);
  if (std::find(runners_.begin(), runners_.end(), runner) == runners_.end()) {
    runners_.push_back(runner);
  }
  if (stop_) runner->OnStopRequested();
}

void Coordinator::UnregisterRunner(RunnerInterface* runner) {
  std::lock_guard<std::mutex> lock(mu_);
  runners_.erase(std::remove(runners_.begin(), runners_.end(), runner), runners_.end());
}

void Coordinator::RequestStop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_) return;
  stop_ = true;
  // Under the lock, so that a runner cannot unregister (and go away) while
  // it is being told.
  for (RunnerInterface* runner : runners_) runner->OnStopRequested();
  stopped_.notify_all();
}

void Coordinator::RequestStop(const Status& why) {
  ReportStatus(why);
  RequestStop();
}

void Coordinator::ReportStatus(const Status& status) {
  if (status.ok() || clean_stop_errors_.count(status.code()) > 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  status_.Update(status);
}

bool Coordinator::ShouldStop() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

bool Coordinator::WaitForStop(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return stopped_.wait_for(lock, timeout, [this] { return stop_; });
}

Status Coordinator::GetStatus() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

Status Coordinator::Join(std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  std::vector<RunnerInterface*> runners;
  {
    std::lock_guard<std::mutex> lock(mu_);
    runners = runners_;
  }
  int still_running = 0;
  for (RunnerInterface* runner : runners) {
    if (runner->WaitUntilDone(deadline)) {
      ReportStatus(runner->status());
    } else {
      ++still_running;
    }
  }
  if (still_running > 0) {
    RequestStop();
    return errors::DeadlineExceeded("Coordinator::Join: ", still_running,
                                    " runner(s) still running after ", timeout.count(),
                                    " ms; stop requested");
  }
  return GetStatus();
}

}  // namespace af
