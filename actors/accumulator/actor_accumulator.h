// ActorAccumulator: the AccumulatorInterface kernels use, implemented by
// messaging the accumulator's actor (the queue's ActorQueue scheme). Each
// operation becomes an AccumulatorRequest with a fresh id; the actor
// answers through the request's callback, on the actor's thread.
//
// Waiting ends in the actor, never here: a deadline is a delayed message
// the actor sends itself, and a cancellation sends it "withdraw(id)". The
// actor withdraws the take if it still waits, or ignores the message if it
// served it already.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "actors/accumulator/accumulator_actor.h"
#include "core/accumulator_interface.h"

namespace af::actors {

class ActorAccumulator final : public AccumulatorInterface {
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
  ActorAccumulator(AccumulatorSpec spec, std::shared_ptr<std::atomic<int64_t>> dropped,
                   accumulator_actor actor);
  ~ActorAccumulator() override;  // stops the actor (requests in flight hold references)

  // Registers the request's cancellation (takes) and sends it to the actor.
  void Submit(std::shared_ptr<AccumulatorRequest> request, CancellationManager* cancellation);

  const AccumulatorSpec spec_;
  const std::shared_ptr<std::atomic<int64_t>> dropped_;
  accumulator_actor actor_;
  std::atomic<uint64_t> next_id_{1};
};

}  // namespace af::actors
