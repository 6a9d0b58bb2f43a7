#include "client/queue_runner.h"

#include <utility>

namespace af {
namespace {

// How a closed queue answers: enqueue CANCELLED, dequeue OUT_OF_RANGE
// (and an exhausted input, such as CountUpTo, OUT_OF_RANGE too).
bool IsQueueClosed(const Status& s) {
  return s.code() == Code::OUT_OF_RANGE || s.code() == Code::CANCELLED;
}

}  // namespace

QueueRunner::QueueRunner(std::vector<Operation> enqueue_ops, Operation close_op,
                         Operation cancel_op)
    : ops_(std::move(enqueue_ops)), num_enqueue_(ops_.size()) {
  ops_.push_back(close_op);
  ops_.push_back(cancel_op);
  for (const Operation& op : ops_) names_.push_back(op.valid() ? op.name() : "");
}

QueueRunner::QueueRunner(std::vector<std::string> enqueue_op_names, std::string close_op_name,
                         std::string cancel_op_name)
    : names_(std::move(enqueue_op_names)), num_enqueue_(names_.size()) {
  names_.push_back(std::move(close_op_name));
  names_.push_back(std::move(cancel_op_name));
}

QueueRunner::~QueueRunner() {
  Coordinator* coordinator;
  {
    std::lock_guard<std::mutex> lock(mu_);
    coordinator = coordinator_;
  }
  if (coordinator != nullptr) coordinator->UnregisterRunner(this);
  RequestStop();
  JoinThreads();
}

Status QueueRunner::Start(const ClientSession& session, Coordinator* coordinator) {
  if (ops_.empty()) {
    return errors::InvalidArgument(
        "QueueRunner: a runner built from op names runs on a Session, not a ClientSession");
  }
  const ClientSession* s = &session;
  return StartThreads(
      [this, s](size_t target) {
        RunOptions options;
        options.timeout_ms = run_timeout_.count();
        return s->Run(options, {}, {}, {ops_[target]}, nullptr);
      },
      coordinator);
}

Status QueueRunner::Start(Session* session, Coordinator* coordinator) {
  if (session == nullptr) return errors::InvalidArgument("QueueRunner: no session");
  return StartThreads(
      [this, session](size_t target) {
        RunOptions options;
        options.timeout_ms = run_timeout_.count();
        std::vector<Tensor> unused;
        return session->Run(options, {}, {}, {names_[target]}, &unused);
      },
      coordinator);
}

Status QueueRunner::StartThreads(RunTarget run, Coordinator* coordinator) {
  for (size_t i = 0; i < num_enqueue_; ++i) {
    if (names_[i].empty()) {
      return errors::InvalidArgument("QueueRunner: enqueue op ", i, " is invalid");
    }
  }
  Coordinator* previous;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (running_ > 0 || !watcher_done_) {
      return errors::FailedPrecondition("QueueRunner: already running");
    }
    previous = coordinator_;
  }
  JoinThreads();  // those of an earlier, finished run
  if (previous != nullptr && previous != coordinator) previous->UnregisterRunner(this);
  {
    std::lock_guard<std::mutex> lock(mu_);
    run_ = std::move(run);
    coordinator_ = coordinator;
    status_ = Status::OK();
    stop_requested_ = false;
    running_ = looping_ = static_cast<int>(num_enqueue_);
    watcher_done_ = false;
  }
  // Outside our lock: registering may call OnStopRequested.
  if (coordinator != nullptr) coordinator->RegisterRunner(this);
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < num_enqueue_; ++i) {
    threads_.emplace_back(&QueueRunner::EnqueueLoop, this, i);
  }
  threads_.emplace_back(&QueueRunner::StopWatcher, this);
  return Status::OK();
}

bool QueueRunner::ShouldStop() const {
  Coordinator* coordinator;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_requested_) return true;
    coordinator = coordinator_;
  }
  // Never with mu_ held: the coordinator calls into us under its lock.
  return coordinator != nullptr && coordinator->ShouldStop();
}

void QueueRunner::EnqueueLoop(size_t index) {
  Status s;
  while (!ShouldStop()) {
    s = run_(index);
    if (!s.ok()) break;
  }
  const bool queue_closed = IsQueueClosed(s);
  if (!s.ok() && !queue_closed) {
    Coordinator* coordinator;
    {
      std::lock_guard<std::mutex> lock(mu_);
      status_.Update(s);
      stop_requested_ = true;  // the watcher runs the cancel op
      coordinator = coordinator_;
      changed_.notify_all();
    }
    if (coordinator != nullptr) coordinator->RequestStop(s);
  }
  bool last;
  {
    std::lock_guard<std::mutex> lock(mu_);
    last = --looping_ == 0;
  }
  // The queue was closed under us (or its input ran out): the last thread
  // closes it for the consumers, unless everything is being stopped, in
  // which case the cancel op closes it.
  const size_t close = num_enqueue_;
  if (last && queue_closed && !ShouldStop() && !names_[close].empty()) {
    Status closed = run_(close);
    if (!closed.ok() && !IsQueueClosed(closed)) {
      std::lock_guard<std::mutex> lock(mu_);
      status_.Update(closed);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  --running_;
  changed_.notify_all();
}

void QueueRunner::StopWatcher() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return stop_requested_ || running_ == 0; });
  const bool cancel = stop_requested_;
  lock.unlock();
  const size_t cancel_op = num_enqueue_ + 1;
  if (cancel && !names_[cancel_op].empty()) {
    Status s = run_(cancel_op);
    if (!s.ok() && !IsQueueClosed(s)) {
      std::lock_guard<std::mutex> relock(mu_);
      status_.Update(s);
    }
  }
  lock.lock();
  watcher_done_ = true;
  changed_.notify_all();
}

void QueueRunner::RequestStop() { OnStopRequested(); }

void QueueRunner::OnCoordinatorGone() {
  std::lock_guard<std::mutex> lock(mu_);
  coordinator_ = nullptr;
}

void QueueRunner::OnStopRequested() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_requested_ = true;
  changed_.notify_all();
}

bool QueueRunner::WaitUntilDone(Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  return changed_.wait_until(lock, deadline, [this] { return running_ == 0 && watcher_done_; });
}

Status QueueRunner::Join(std::chrono::milliseconds timeout) {
  if (!WaitUntilDone(Clock::now() + timeout)) {
    return errors::DeadlineExceeded("QueueRunner: threads still running after ", timeout.count(),
                                    " ms");
  }
  JoinThreads();
  return status();
}

bool QueueRunner::IsRunning() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_ > 0 || !watcher_done_;
}

Status QueueRunner::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void QueueRunner::JoinThreads() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace af
