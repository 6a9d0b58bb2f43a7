// AccumulatorHandle: the AccumulatorInterface kernels use, implemented by
// messaging the accumulator's resource actor
// (actors/resources/resource_mailbox.h says how requests travel, wait and
// are withdrawn). Each operation becomes an AccumulatorRequest; the
// accumulator's core (accumulator_core.h) decides its outcome.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "actors/resources/resource_mailbox.h"
#include "core/accumulator_interface.h"

namespace af::actors {

class AccumulatorHandle final : public AccumulatorInterface {
 public:
  // Spawns the accumulator's actor in `system`.
  static Status Create(caf::actor_system& system, const AccumulatorSpec& spec,
                       AccumulatorInterface** out);

  void ApplyGradientUpTo(int64_t local_step, int32_t max_accumulated,
                         AccumulatorGradient gradient, ApplyCallback done,
                         const std::string& replica) override;
  void TakeGradient(int32_t num_required, CancellationManager* cancellation, int64_t deadline_ns,
                    TakeCallback done) override;
  void NumAccumulated(CountCallback done) override;
  void SetGlobalStep(int64_t new_global_step, DoneCallback done) override;
  int64_t dropped_gradients() const override {
    return dropped_->load(std::memory_order_relaxed);
  }

  const AccumulatorSpec& spec() const override { return spec_; }
  std::string DebugString() const override;

 private:
  AccumulatorHandle(caf::actor_system& system, AccumulatorSpec spec);
  ~AccumulatorHandle() override = default;  // the mailbox stops the actor

  const AccumulatorSpec spec_;
  // The core's count of stale gradients, which other threads read.
  const std::shared_ptr<std::atomic<int64_t>> dropped_;
  ResourceMailbox mailbox_;
};

}  // namespace af::actors
