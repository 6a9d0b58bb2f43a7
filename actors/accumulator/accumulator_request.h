// AccumulatorRequest: one operation on an accumulator, from its
// AccumulatorHandle to the accumulator's resource actor
// (actors/resources/waiting_request.h says what every such request shares).
// The accumulator's core alone decides the outcome and runs the callback
// exactly once.
#pragma once

#include <atomic>
#include <cstdint>

#include "actors/resources/waiting_request.h"
#include "core/accumulator_interface.h"
#include "core/resource_mgr.h"

namespace af::actors {

struct AccumulatorRequest final : WaitingRequest {
  enum class Kind { kApply, kTake, kNumAccumulated, kSetGlobalStep };

  Kind kind = Kind::kNumAccumulated;

  int64_t step = 0;                // kApply: the local step; kSetGlobalStep: the new one
  AccumulatorGradient gradient;    // kApply
  int32_t max_accumulated = 0;     // kApply: > 0 drops a gradient finding this many held
  std::string replica;             // kApply: who sent it ("" unnamed)
  int32_t num_required = 1;        // kTake

  // Exactly one is set, by the kind.
  AccumulatorInterface::ApplyCallback applied;   // kApply
  AccumulatorInterface::TakeCallback taken;      // kTake
  AccumulatorInterface::CountCallback counted;   // kNumAccumulated
  AccumulatorInterface::DoneCallback done;       // kSetGlobalStep

  // Keeps the accumulator (and so its actor) alive until the callback ran.
  ResourceRef<AccumulatorInterface> keep_alive;

  bool blocks() const override { return kind == Kind::kTake; }
  Status CancelledStatus() const override {
    return errors::Cancelled("TakeGrad operation was cancelled");
  }
  void Fail(const Status& status) override { Finish(status); }

  // Runs the callback once, then lets go of the accumulator. `result` is a
  // take's gradient, `count` NumAccumulated's answer, `was_applied` an
  // apply's.
  void Finish(const Status& status, AccumulatorGradient result = {}, int32_t count = 0,
              bool was_applied = false);
};

}  // namespace af::actors
