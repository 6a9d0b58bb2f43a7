// QueueRequest: one operation on a queue, from its QueueHandle to the
// queue's resource actor (actors/resources/waiting_request.h says what every
// such request shares). The queue's core alone decides its outcome and runs
// its callback exactly once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "actors/resources/waiting_request.h"
#include "core/queue_interface.h"
#include "core/resource_mgr.h"

namespace af::actors {

struct QueueRequest final : WaitingRequest {
  enum class Kind { kEnqueue, kEnqueueMany, kDequeue, kDequeueMany, kClose, kSize, kIsClosed };
  using Tuple = QueueInterface::Tuple;

  Kind kind = Kind::kSize;

  // Enqueues: the elements, in order (one for Enqueue, a batch's rows for
  // EnqueueMany); `next` counts those already in the queue.
  std::vector<Tuple> elements;
  size_t next = 0;

  // Dequeues: how many elements, whether fewer will do once the queue is
  // closed (DequeueUpTo), and those taken so far.
  int32_t count = 1;
  bool allow_smaller = false;
  std::vector<Tuple> taken;

  bool cancel_pending_enqueues = false;  // Close

  // Exactly one is set, by the kind.
  QueueInterface::DoneCallback done;          // enqueues, Close
  QueueInterface::DequeueCallback dequeued;   // dequeues
  QueueInterface::SizeCallback sized;         // Size
  QueueInterface::IsClosedCallback is_closed; // IsClosed

  // Keeps the queue (and so its actor) alive until the callback ran.
  ResourceRef<QueueInterface> keep_alive;

  bool blocks() const override {
    return kind == Kind::kEnqueue || kind == Kind::kEnqueueMany || kind == Kind::kDequeue ||
           kind == Kind::kDequeueMany;
  }
  bool is_enqueue() const { return kind == Kind::kEnqueue || kind == Kind::kEnqueueMany; }
  Status CancelledStatus() const override;
  void Fail(const Status& status) override { Finish(status); }

  // Runs the callback once, then lets go of the queue.
  void Finish(const Status& status, Tuple tuple = {}, int32_t size = 0, bool closed = false);
};

}  // namespace af::actors
