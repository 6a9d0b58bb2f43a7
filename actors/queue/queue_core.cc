#include "actors/queue/queue_core.h"

#include <algorithm>
#include <utility>

#include "actors/queue/queue_batch.h"
#include "actors/queue/queue_validation.h"
#include "core/metrics/runtime_gauges.h"

namespace af::actors {

using Kind = QueueRequest::Kind;

QueueCore::QueueCore(QueueSpec spec)
    : spec_(std::move(spec)),
      label_(QueueLabel(spec_)),
      store_(MakeElementStore(spec_)),
      size_gauge_(metrics::QueueSizes()->Register(spec_.name)) {
  if (spec_.capacity >= 0) {
    capacity_gauge_ = metrics::QueueCapacities()->Register(spec_.name);
    capacity_gauge_.Set(spec_.capacity);
  }
}

QueueCore::~QueueCore() { FailAll(errors::Cancelled(label_, " was destroyed")); }

bool QueueCore::InspectStalls(int64_t now_ns, int64_t waiting_since_ns,
                              std::vector<std::string>* lines) {
  auto inspect = [&](const RequestQueue& waiting, bool enqueue) {
    for (const auto& r : waiting) {
      if (r->stall_reported || r->arrived_ns > waiting_since_ns) continue;
      r->stall_reported = true;
      const int64_t seconds = (now_ns - r->arrived_ns) / 1000000000;
      std::string why;
      if (enqueue) {
        why = "the queue is full (" + std::to_string(store_->size()) + " of " +
              std::to_string(spec_.capacity) + "): does anything dequeue from it?";
      } else {
        why = "the queue holds " + std::to_string(store_->size()) + " of the " +
              std::to_string(r->count) + " elements it needs and is " +
              (closed_ ? "closed" : "open") + ": does anything enqueue into it?";
      }
      lines->push_back(label_ + ": " + (enqueue ? "an enqueue" : "a dequeue") + " has waited " +
                       std::to_string(seconds) + " s; " + why);
    }
  };
  inspect(enqueues_, true);
  inspect(dequeues_, false);
  return !enqueues_.empty() || !dequeues_.empty();
}

bool QueueCore::Arrive(std::shared_ptr<QueueRequest> request) {
  // Held to the end: serving the request may drop the queues' references.
  const std::shared_ptr<QueueRequest> keep = request;
  QueueRequest& r = *request;
  if (r.blocks() && r.withdraw_requested.load(std::memory_order_acquire)) {
    r.Finish(r.CancelledStatus());
    return false;
  }
  switch (r.kind) {
    case Kind::kEnqueue:
    case Kind::kEnqueueMany:
      if (r.elements.empty()) {  // an empty batch: nothing to do, closed or not (as TensorFlow)
        r.Finish(Status::OK());
        return false;
      }
      if (closed_) {
        r.Finish(errors::Cancelled(label_, " is closed."));
        return false;
      }
      enqueues_.push_back(std::move(request));
      break;
    case Kind::kDequeue:
    case Kind::kDequeueMany:
      if (r.count == 0) {
        Tuple empty;
        Status s = EmptyBatch(spec_, &empty);
        r.Finish(s, std::move(empty));
        return false;
      }
      dequeues_.push_back(std::move(request));
      break;
    case Kind::kClose:
      Close(request);
      return false;
    case Kind::kSize:
      r.Finish(Status::OK(), {}, static_cast<int32_t>(store_->size()));
      return false;
    case Kind::kIsClosed:
      r.Finish(Status::OK(), {}, 0, closed_);
      return false;
  }
  Flush();
  return !r.finished;
}

void QueueCore::Close(const std::shared_ptr<QueueRequest>& request) {
  if (closed_ && !request->cancel_pending_enqueues) {
    request->Finish(errors::Cancelled("Queue '", spec_.name, "' is already closed."));
    return;
  }
  closed_ = true;
  if (request->cancel_pending_enqueues) {
    RequestQueue cancelled;
    cancelled.swap(enqueues_);
    for (auto& e : cancelled) e->Finish(e->CancelledStatus());
  }
  request->Finish(Status::OK());
  Flush();
}

void QueueCore::Withdraw(uint64_t id, Code code) {
  for (RequestQueue* waiting : {&enqueues_, &dequeues_}) {
    auto it = std::find_if(waiting->begin(), waiting->end(),
                           [id](const auto& r) { return r->id == id; });
    if (it == waiting->end()) continue;
    std::shared_ptr<QueueRequest> request = std::move(*it);
    waiting->erase(it);
    const bool enqueue = request->is_enqueue();
    if (!enqueue) PutBack(*request);
    Status why;
    if (code == Code::DEADLINE_EXCEEDED) {
      why = enqueue ? errors::DeadlineExceeded("Timed out waiting to enqueue into ", label_,
                                               " (capacity ", spec_.capacity, ")")
                    : errors::DeadlineExceeded("Timed out waiting to dequeue from ", label_,
                                               " (requested ", request->count,
                                               ", current size ", store_->size(), ")");
    } else {
      why = request->CancelledStatus();
    }
    request->Finish(why);
    // The elements it gave back, or the place it held in line, may let
    // others through.
    Flush();
    return;
  }
}

void QueueCore::FailAll(const Status& why) {
  RequestQueue enqueues, dequeues;
  enqueues.swap(enqueues_);
  dequeues.swap(dequeues_);
  for (auto& r : enqueues) r->Finish(why);
  for (auto& r : dequeues) {
    PutBack(*r);
    r->Finish(why);
  }
  PublishSize();
}

void QueueCore::Flush() {
  for (;;) {
    const bool enqueued = ServeEnqueues();
    const bool dequeued = ServeDequeues();
    if (enqueued || dequeued) continue;
    if (closed_ && !dequeues_.empty() && EndOldestDequeue()) continue;
    // Every change to the store ends here (or in FailAll).
    PublishSize();
    return;
  }
}

bool QueueCore::ServeEnqueues() {
  bool progress = false;
  while (!enqueues_.empty()) {
    QueueRequest& r = *enqueues_.front();
    // A batch goes in element by element as room appears; later enqueues
    // wait behind it, so its elements stay together and in order.
    while (r.next < r.elements.size() && HasRoom()) {
      store_->Push(std::move(r.elements[r.next++]));
      progress = true;
    }
    if (r.next < r.elements.size()) break;
    std::shared_ptr<QueueRequest> done = std::move(enqueues_.front());
    enqueues_.pop_front();
    done->Finish(Status::OK());
    progress = true;
  }
  return progress;
}

bool QueueCore::ServeDequeues() {
  bool progress = false;
  while (!dequeues_.empty()) {
    QueueRequest& r = *dequeues_.front();
    // The oldest dequeue gathers elements as they come, so a DequeueMany
    // larger than the capacity still completes.
    while (static_cast<int32_t>(r.taken.size()) < r.count && Available() > 0) {
      r.taken.push_back(store_->Take());
      progress = true;
    }
    if (static_cast<int32_t>(r.taken.size()) < r.count) break;
    std::shared_ptr<QueueRequest> done = std::move(dequeues_.front());
    dequeues_.pop_front();
    Deliver(done);
    progress = true;
  }
  return progress;
}

bool QueueCore::EndOldestDequeue() {
  std::shared_ptr<QueueRequest> r = std::move(dequeues_.front());
  dequeues_.pop_front();
  if (r->allow_smaller && !r->taken.empty()) {
    Deliver(r);
  } else {
    PutBack(*r);
    r->Finish(InsufficientElements(*r));
  }
  return true;
}

void QueueCore::Deliver(const std::shared_ptr<QueueRequest>& request) {
  QueueRequest& r = *request;
  if (r.kind == Kind::kDequeue) {
    Tuple element = std::move(r.taken.front());
    r.taken.clear();
    r.Finish(Status::OK(), std::move(element));
    return;
  }
  Tuple batch;
  Status s = StackElements(spec_, r.taken, &batch);
  if (!s.ok()) {
    PutBack(r);
    r.Finish(s);
    return;
  }
  r.taken.clear();
  r.Finish(Status::OK(), std::move(batch));
}

void QueueCore::PutBack(QueueRequest& request) {
  for (auto it = request.taken.rbegin(); it != request.taken.rend(); ++it) {
    store_->PutBack(std::move(*it));
  }
  request.taken.clear();
}

size_t QueueCore::Available() const {
  const size_t size = store_->size();
  const size_t keep = closed_ ? 0 : store_->reserve();
  return size > keep ? size - keep : 0;
}

bool QueueCore::HasRoom() const {
  return spec_.capacity < 0 || store_->size() < static_cast<size_t>(spec_.capacity);
}

Status QueueCore::InsufficientElements(const QueueRequest& request) const {
  return errors::OutOfRange(label_, " is closed and has insufficient elements (requested ",
                            request.count, ", current size ", store_->size(), ")");
}

}  // namespace af::actors
