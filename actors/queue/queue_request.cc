#include "actors/queue/queue_request.h"

#include <utility>

namespace af::actors {

Status QueueRequest::CancelledStatus() const {
  return errors::Cancelled(is_enqueue() ? "Enqueue" : "Dequeue", " operation was cancelled");
}

void QueueRequest::Finish(const Status& status, Tuple tuple, int32_t size, bool closed) {
  if (!BeginFinish()) return;
  switch (kind) {
    case Kind::kEnqueue:
    case Kind::kEnqueueMany:
    case Kind::kClose:
      if (done) done(status);
      break;
    case Kind::kDequeue:
    case Kind::kDequeueMany:
      if (dequeued) dequeued(status, std::move(tuple));
      break;
    case Kind::kSize:
      if (sized) sized(status, size);
      break;
    case Kind::kIsClosed:
      if (is_closed) is_closed(status, closed);
      break;
  }
  // Callbacks may hold references of their own (tensors, the step); drop
  // them now rather than whenever the last copy of the request goes.
  done = nullptr;
  dequeued = nullptr;
  sized = nullptr;
  is_closed = nullptr;
  elements.clear();
  taken.clear();
  keep_alive = ResourceRef<QueueInterface>();
}

}  // namespace af::actors
