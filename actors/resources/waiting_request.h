// WaitingRequest: what every request to a resource actor (a queue, an
// accumulator, a staleness clock) has in common. The caller fills in what to
// do and how to answer; the resource's core alone decides the outcome and
// ends the request exactly once. A request is shared by the caller, the
// actor and its cancellation callback, which is why only the atomic flag is
// touched by more than one thread.
//
// Each resource derives its own request type with its operands and typed
// callbacks; the shared actor and handle (resource_actor.h,
// resource_mailbox.h) see only this part.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/cancellation.h"
#include "core/status.h"

namespace af::actors {

struct WaitingRequest {
  WaitingRequest() = default;
  WaitingRequest(const WaitingRequest&) = delete;
  WaitingRequest& operator=(const WaitingRequest&) = delete;
  virtual ~WaitingRequest() = default;

  uint64_t id = 0;          // unique per resource: withdrawals name requests by it
  int64_t deadline_ns = 0;  // absolute steady-clock time; 0: none

  // Set (before the withdrawal message is sent) by the cancellation
  // callback, so that a request arriving after its own withdrawal is
  // refused on arrival.
  std::atomic<bool> withdraw_requested{false};
  CancellationManager* cancellation = nullptr;
  CancellationManager::Token token = CancellationManager::kInvalidToken;

  // Touched by the actor only.
  bool finished = false;
  // When it reached the actor, and whether the stall inspector reported
  // its wait already.
  int64_t arrived_ns = 0;
  bool stall_reported = false;

  // Whether it may wait, and so whether a cancellation of the caller's step
  // withdraws it.
  virtual bool blocks() const { return true; }
  // What the caller is told when its step was cancelled before the request
  // was served (TensorFlow's wording for the operation).
  virtual Status CancelledStatus() const = 0;
  // Ends the request with an error and no result.
  virtual void Fail(const Status& status) = 0;

 protected:
  // Claims the request's single ending: false when it ended already.
  // Deregisters from the cancellation manager first, so that a cancellation
  // racing with the answer only sends a withdrawal the actor ignores.
  bool BeginFinish();
};

}  // namespace af::actors
