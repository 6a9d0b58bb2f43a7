// AccumulatorRequest: one operation on an accumulator, from the caller to
// the accumulator actor. The caller fills in what to do and how to answer;
// the actor alone decides the outcome and runs the callback exactly once.
// Shared by the caller, the actor and the cancellation callback, which is
// why only the atomic flag is touched by more than one thread.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/accumulator_interface.h"
#include "core/cancellation.h"
#include "core/resource_mgr.h"

namespace af::actors {

struct AccumulatorRequest {
  enum class Kind { kApply, kTake, kNumAccumulated, kSetGlobalStep };

  Kind kind = Kind::kNumAccumulated;
  uint64_t id = 0;          // unique per accumulator: withdrawals name requests by it
  int64_t deadline_ns = 0;  // absolute steady-clock time; 0: none

  int64_t step = 0;                // kApply: the local step; kSetGlobalStep: the new one
  AccumulatorGradient gradient;    // kApply
  int32_t max_accumulated = 0;     // kApply: > 0 drops a gradient finding this many held
  std::string replica;             // kApply: who sent it ("" unnamed)
  int32_t num_required = 1;        // kTake

  // Set (before the withdrawal message is sent) by the cancellation
  // callback, so that a take arriving after its own withdrawal is refused
  // on arrival.
  std::atomic<bool> withdraw_requested{false};
  CancellationManager* cancellation = nullptr;
  CancellationManager::Token token = CancellationManager::kInvalidToken;

  // Exactly one is set, by the kind.
  AccumulatorInterface::ApplyCallback applied;   // kApply
  AccumulatorInterface::TakeCallback taken;      // kTake
  AccumulatorInterface::CountCallback counted;   // kNumAccumulated
  AccumulatorInterface::DoneCallback done;       // kSetGlobalStep

  // Keeps the accumulator (and so its actor) alive until the callback ran.
  ResourceRef<AccumulatorInterface> keep_alive;
  bool finished = false;  // actor only
  // When it reached the actor, and whether the stall inspector reported its
  // wait already (actor only).
  int64_t arrived_ns = 0;
  bool stall_reported = false;

  bool blocks() const { return kind == Kind::kTake; }

  // Runs the callback once: deregisters from the cancellation manager first
  // (a cancellation racing with it only sends a withdrawal the actor
  // ignores), then answers, then lets go of the accumulator. `result` is a
  // take's gradient, `count` NumAccumulated's answer, `was_applied` an
  // apply's.
  void Finish(const Status& status, AccumulatorGradient result = {}, int32_t count = 0,
              bool was_applied = false);
};

}  // namespace af::actors
