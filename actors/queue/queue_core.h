// QueueCore: the state and rules of one queue — its elements, the
// enqueues waiting for room and the dequeues waiting for elements — as
// TensorFlow's queues behave. It is what the queue actor runs (one message
// at a time, so it needs no lock) and it knows nothing of CAF: the actor
// supplies messages and timers around it.
//
// Every request ends exactly once, here: it is served, refused, or, while
// it waits, withdrawn (Withdraw: its deadline passed or its step was
// cancelled). Because the decision is made in one place, a request is
// either served or withdrawn, never both: a withdrawn dequeue takes
// nothing (elements it had gathered go back to the front), and a served
// one is delivered even if its withdrawal is already on the way (which is
// then ignored).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "actors/queue/element_store.h"
#include "actors/queue/queue_request.h"
#include "actors/resources/resource_core.h"
#include "core/metrics/gauge_set.h"

namespace af::actors {

class QueueCore final : public ResourceCore {
 public:
  explicit QueueCore(QueueSpec spec);
  // Fails whatever still waits (the queue is going away).
  ~QueueCore() override;
  QueueCore(const QueueCore&) = delete;
  QueueCore& operator=(const QueueCore&) = delete;

  // Takes a request that just arrived and serves what it can. True when
  // the request is left waiting (the actor then arms its deadline).
  bool Arrive(std::shared_ptr<QueueRequest> request);
  bool Arrive(std::shared_ptr<WaitingRequest> request, int64_t /*now_ns*/) override {
    return Arrive(std::static_pointer_cast<QueueRequest>(std::move(request)));
  }

  // Ends the waiting request `id` with `code` (CANCELLED or
  // DEADLINE_EXCEEDED). A request that is no longer waiting was served or
  // refused already: nothing happens.
  void Withdraw(uint64_t id, Code code);
  void Withdraw(uint64_t id, Code code, int64_t /*now_ns*/) override { Withdraw(id, code); }

  // Ends every waiting request with `why`.
  void FailAll(const Status& why);

  // The stall inspector's lines for requests that arrived before
  // `waiting_since_ns` and still wait, each reported once; whether any
  // request still waits at all (for the next inspection).
  bool InspectStalls(int64_t now_ns, int64_t waiting_since_ns,
                     std::vector<std::string>* lines) override;

  const QueueSpec& spec() const { return spec_; }
  size_t size() const { return store_->size(); }
  bool closed() const { return closed_; }

 private:
  using RequestQueue = std::deque<std::shared_ptr<QueueRequest>>;

  void Close(const std::shared_ptr<QueueRequest>& request);
  // Serves waiting requests, oldest first, until nothing moves.
  void Flush();
  bool ServeEnqueues();
  bool ServeDequeues();
  // On a closed queue: the oldest dequeue can never be served in full; it
  // gets what there is (DequeueUpTo) or OUT_OF_RANGE.
  bool EndOldestDequeue();
  void Deliver(const std::shared_ptr<QueueRequest>& request);
  void PutBack(QueueRequest& request);
  size_t Available() const;
  bool HasRoom() const;
  Status InsufficientElements(const QueueRequest& request) const;
  // Tells the metrics how many elements the store holds now.
  void PublishSize() { size_gauge_.Set(static_cast<int64_t>(store_->size())); }

  const QueueSpec spec_;
  const std::string label_;
  std::unique_ptr<ElementStore> store_;
  RequestQueue enqueues_, dequeues_;
  bool closed_ = false;
  metrics::GaugeSet::Member size_gauge_, capacity_gauge_;
};

}  // namespace af::actors
