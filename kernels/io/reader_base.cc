#include "kernels/io/reader_base.h"

#include <utility>

#include "core/tensor.h"

namespace af {

struct ReaderBase::Request {
  ResourceRef<QueueInterface> queue;
  int64_t n = 0;
  CancellationManager* cancellation = nullptr;
  Runner runner;
  ReadCallback done;
  std::vector<std::string> keys, values;
};

ReaderBase::ReaderBase(std::string name, std::string format)
    : name_(std::move(name)), format_(std::move(format)) {}

std::string ReaderBase::DebugString() const {
  std::lock_guard<std::mutex> lock(mu_);
  return name_ + " (" + format_ + "), " + std::to_string(num_records_produced_) +
         " records, " + std::to_string(work_finished_) + " work units done" +
         (work_in_progress_ ? ", reading " + work_ : std::string());
}

int64_t ReaderBase::NumRecordsProduced() const {
  std::lock_guard<std::mutex> lock(mu_);
  return num_records_produced_;
}

int64_t ReaderBase::NumWorkUnitsCompleted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return work_finished_;
}

Status ReaderBase::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  return ResetLocked();
}

Status ReaderBase::ResetLocked() {
  work_.clear();
  work_in_progress_ = false;
  num_records_produced_ = 0;
  work_started_ = 0;
  work_finished_ = 0;
  return Status::OK();
}

Status ReaderBase::SerializeState(std::string* out) {
  ReaderState state;
  {
    std::lock_guard<std::mutex> lock(mu_);
    state.reader_type = format_;
    state.options = StateOptions();
    state.work_started = work_started_;
    state.work_finished = work_finished_;
    state.num_records_produced = num_records_produced_;
    if (work_in_progress_) {
      state.current_work = work_;
      AF_RETURN_IF_ERROR(SavePositionLocked(&state.position));
    }
  }
  *out = EncodeReaderState(state);
  return Status::OK();
}

Status ReaderBase::RestoreState(const std::string& bytes) {
  ReaderState state;
  AF_RETURN_IF_ERROR(DecodeReaderState(bytes, &state).WithContext(name_));
  if (state.reader_type != format_)
    return errors::InvalidArgument(name_, ": the state was saved by a ", state.reader_type,
                                   ", not a ", format_);
  const std::string options = StateOptions();
  if (state.options != options)
    return errors::InvalidArgument(name_, ": the state was saved by a reader with options '",
                                   state.options, "', this one has '", options, "'");
  // The restore takes a turn on the request list like a read, so no read
  // runs inside it; a read already in flight may be waiting on the queue
  // for a unit that would replace the restored one, so that is refused
  // rather than waited for (the wait could be forever).
  {
    std::lock_guard<std::mutex> lock(requests_mu_);
    if (busy_)
      return errors::FailedPrecondition(name_,
                                        ": cannot restore the state while a read is in progress");
    busy_ = true;
  }
  Status status = RestoreClaimed(state);
  if (std::shared_ptr<Request> next = NextTurn()) {
    Ref();  // as ReadAsync does for the first read of a turn
    Process(next);
  }
  return status;
}

Status ReaderBase::RestoreClaimed(const ReaderState& state) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state.work_in_progress()) {
    Status s = RestorePositionLocked(state.current_work, state.position);
    if (errors::IsNotFound(s)) s = errors::InvalidArgument(s.message());
    AF_RETURN_IF_ERROR(s.WithContext(name_ + ": cannot resume " + state.current_work +
                                     " at the saved position"));
  } else {
    AF_RETURN_IF_ERROR(ResetLocked());  // drops the format's unit
  }
  work_ = state.current_work;
  work_in_progress_ = state.work_in_progress();
  work_started_ = state.work_started;
  work_finished_ = state.work_finished;
  num_records_produced_ = state.num_records_produced;
  return Status::OK();
}

std::string ReaderBase::Key(uint64_t index) const {
  std::string key = work_;
  key += ':';
  key += std::to_string(index);
  return key;
}

Status ReaderBase::ReadUpToLocked(int64_t n, std::vector<std::string>* keys,
                                  std::vector<std::string>* values, int64_t* produced,
                                  bool* at_end) {
  *produced = 0;
  while (*produced < n && !*at_end) {
    std::string key, value;
    bool one = false;
    AF_RETURN_IF_ERROR(ReadLocked(&key, &value, &one, at_end));
    if (one) {
      keys->push_back(std::move(key));
      values->push_back(std::move(value));
      ++*produced;
    } else if (!*at_end) {
      return errors::Internal(name_, ": ReadLocked produced nothing and is not at the end");
    }
  }
  return Status::OK();
}

void ReaderBase::ReadAsync(ResourceRef<QueueInterface> queue, int64_t n,
                           CancellationManager* cancellation, Runner runner, ReadCallback done) {
  auto request = std::make_shared<Request>();
  request->queue = std::move(queue);
  request->n = n;
  request->cancellation = cancellation;
  request->runner = std::move(runner);
  request->done = std::move(done);
  {
    std::lock_guard<std::mutex> lock(requests_mu_);
    if (busy_) {
      waiting_.push_back(std::move(request));
      return;
    }
    busy_ = true;
  }
  Ref();  // released by Finish: the reader outlives every read in flight
  Process(request);
}

// Reads what the current work unit holds; asks for the next unit when there
// is none. Runs with no lock held on entry.
void ReaderBase::Process(const std::shared_ptr<Request>& request) {
  for (;;) {
    Status status;
    bool finished = false, need_work = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!work_in_progress_) {
        need_work = true;
      } else {
        const int64_t remaining = request->n - static_cast<int64_t>(request->keys.size());
        int64_t produced = 0;
        bool at_end = false;
        status = ReadUpToLocked(remaining, &request->keys, &request->values, &produced, &at_end);
        num_records_produced_ += produced;
        if (status.ok() && !at_end && produced == 0)
          status = errors::Internal(name_, ": a read produced nothing and is not at the end");
        if (status.ok() && at_end) {
          status = OnWorkFinishedLocked();
          work_finished_ = work_started_;
          work_in_progress_ = false;
        }
        finished = !status.ok() || static_cast<int64_t>(request->keys.size()) >= request->n ||
                   (at_end && !request->keys.empty());
      }
    }
    if (finished) {
      Finish(request, status);
      return;
    }
    if (need_work) {
      RequestWork(request);
      return;
    }
  }
}

void ReaderBase::RequestWork(const std::shared_ptr<Request>& request) {
  // The queue may answer on its own thread; the continuation reads files,
  // so it goes to the device's pool when there is one.
  request->queue->Dequeue(
      request->cancellation, 0,
      [this, request](const Status& s, QueueInterface::Tuple tuple) {
        if (request->runner) {
          request->runner([this, request, s, tuple = std::move(tuple)]() mutable {
            StartWork(request, s, std::move(tuple));
          });
        } else {
          StartWork(request, s, std::move(tuple));
        }
      });
}

void ReaderBase::StartWork(const std::shared_ptr<Request>& request, const Status& dequeued,
                           QueueInterface::Tuple tuple) {
  if (!dequeued.ok()) {
    Finish(request, dequeued);
    return;
  }
  if (tuple.size() != 1 || tuple[0].dtype() != DT_STRING || tuple[0].NumElements() != 1) {
    Finish(request, errors::InvalidArgument(
                        name_, ": expected to dequeue one string (a filename), got ",
                        tuple.size(), " components",
                        tuple.empty() ? std::string()
                                      : ", the first " + DataTypeString(tuple[0].dtype()) +
                                            " " + tuple[0].shape().DebugString()));
    return;
  }
  Status status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    work_ = tuple[0].data<std::string>()[0];
    status = OnWorkStartedLocked();
    if (status.ok()) {
      ++work_started_;
      work_in_progress_ = true;
    }
  }
  // A unit that cannot start fails this read only; the next read takes the
  // next unit (as TensorFlow does).
  if (!status.ok()) {
    Finish(request, status);
    return;
  }
  Process(request);
}

std::shared_ptr<ReaderBase::Request> ReaderBase::NextTurn() {
  std::lock_guard<std::mutex> lock(requests_mu_);
  if (waiting_.empty()) {
    busy_ = false;
    return nullptr;
  }
  std::shared_ptr<Request> next = std::move(waiting_.front());
  waiting_.pop_front();
  return next;
}

void ReaderBase::Finish(const std::shared_ptr<Request>& request, const Status& status) {
  std::shared_ptr<Request> next = NextTurn();
  ReadCallback done = std::move(request->done);
  if (status.ok()) {
    done(status, std::move(request->keys), std::move(request->values));
  } else {
    done(status, {}, {});
  }
  if (next) {
    Process(next);  // keeps the reference taken for the first request
  } else {
    Unref();
  }
}

}  // namespace af
