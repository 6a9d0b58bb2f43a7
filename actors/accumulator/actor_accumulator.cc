#include "actors/accumulator/actor_accumulator.h"

#include <utility>

#include <caf/actor_system.hpp>

#include "actors/any_thread_send.h"

namespace af::actors {

using Kind = AccumulatorRequest::Kind;

Status ActorAccumulator::Create(caf::actor_system& system, const AccumulatorSpec& spec,
                                AccumulatorInterface** out) {
  if (!IsAccumulatorType(spec.dtype)) {
    return errors::InvalidArgument(AccumulatorLabel(spec), ": accumulators of ",
                                   DataTypeString(spec.dtype),
                                   " are not supported (half, float, double)");
  }
  auto dropped = std::make_shared<std::atomic<int64_t>>(0);
  *out = new ActorAccumulator(spec, dropped, SpawnAccumulatorActor(system, spec, dropped));
  return Status::OK();
}

ActorAccumulator::ActorAccumulator(AccumulatorSpec spec,
                                   std::shared_ptr<std::atomic<int64_t>> dropped,
                                   accumulator_actor actor)
    : spec_(std::move(spec)), dropped_(std::move(dropped)), actor_(std::move(actor)) {}

ActorAccumulator::~ActorAccumulator() {
  SendFromAnyThread(actor_, accumulator_stop_atom::value);
}

void ActorAccumulator::Submit(std::shared_ptr<AccumulatorRequest> request,
                              CancellationManager* cancellation) {
  request->id = next_id_.fetch_add(1, std::memory_order_relaxed);
  Ref();
  request->keep_alive = ResourceRef<AccumulatorInterface>(this);
  if (cancellation != nullptr && request->blocks()) {
    // The flag covers a cancellation that overtakes the take itself: its
    // withdrawal finds nothing, and the take is refused on arrival.
    std::weak_ptr<AccumulatorRequest> weak = request;
    const uint64_t id = request->id;
    accumulator_actor actor = actor_;
    const CancellationManager::Token token = cancellation->Register([weak, id, actor]() {
      if (auto r = weak.lock()) r->withdraw_requested.store(true, std::memory_order_release);
      SendFromAnyThread(actor, accumulator_withdraw_atom::value, id,
                        static_cast<int32_t>(Code::CANCELLED));
    });
    if (token == CancellationManager::kInvalidToken) {
      request->Finish(errors::Cancelled("TakeGrad operation was cancelled"));
      return;
    }
    request->cancellation = cancellation;
    request->token = token;
  }
  SendFromAnyThread(actor_, accumulator_request_atom::value, std::move(request));
}

void ActorAccumulator::ApplyGradientUpTo(int64_t local_step, int32_t max_accumulated,
                                         AccumulatorGradient gradient, ApplyCallback done,
                                         const std::string& replica) {
  auto request = std::make_shared<AccumulatorRequest>();
  request->kind = Kind::kApply;
  request->step = local_step;
  request->replica = replica;
  request->max_accumulated = max_accumulated;
  request->gradient = std::move(gradient);
  request->applied = std::move(done);
  Submit(std::move(request), nullptr);
}

void ActorAccumulator::TakeGradient(int32_t num_required, CancellationManager* cancellation,
                                    int64_t deadline_ns, TakeCallback done) {
  if (num_required < 1) {
    return done(errors::InvalidArgument("Argument num_required must be positive, but was ",
                                        num_required),
                {});
  }
  auto request = std::make_shared<AccumulatorRequest>();
  request->kind = Kind::kTake;
  request->num_required = num_required;
  request->deadline_ns = deadline_ns;
  request->taken = std::move(done);
  Submit(std::move(request), cancellation);
}

void ActorAccumulator::NumAccumulated(CountCallback done) {
  auto request = std::make_shared<AccumulatorRequest>();
  request->kind = Kind::kNumAccumulated;
  request->counted = std::move(done);
  Submit(std::move(request), nullptr);
}

void ActorAccumulator::SetGlobalStep(int64_t new_global_step, DoneCallback done) {
  auto request = std::make_shared<AccumulatorRequest>();
  request->kind = Kind::kSetGlobalStep;
  request->step = new_global_step;
  request->done = std::move(done);
  Submit(std::move(request), nullptr);
}

std::string ActorAccumulator::DebugString() const {
  return AccumulatorLabel(spec_) + " of " + DataTypeString(spec_.dtype) + " " +
         spec_.shape.DebugString() + ", " + std::to_string(dropped_gradients()) +
         " stale gradients dropped";
}

}  // namespace af::actors
