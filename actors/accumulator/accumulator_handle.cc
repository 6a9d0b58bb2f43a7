#include "actors/accumulator/accumulator_handle.h"

#include <cstdio>
#include <utility>

#include <caf/actor_system.hpp>

#include "actors/accumulator/accumulator_core.h"
#include "core/logging.h"

namespace af::actors {
namespace {

void LogWarning(const std::string& what) {
  AF_LOG(WARNING) << what;
}

}  // namespace

using Kind = AccumulatorRequest::Kind;

Status AccumulatorHandle::Create(caf::actor_system& system, const AccumulatorSpec& spec,
                                AccumulatorInterface** out) {
  if (!IsAccumulatorType(spec.dtype)) {
    return errors::InvalidArgument(AccumulatorLabel(spec), ": accumulators of ",
                                   DataTypeString(spec.dtype),
                                   " are not supported (half, float, double)");
  }
  *out = new AccumulatorHandle(system, spec);
  return Status::OK();
}

AccumulatorHandle::AccumulatorHandle(caf::actor_system& system, AccumulatorSpec spec)
    : spec_(std::move(spec)),
      dropped_(std::make_shared<std::atomic<int64_t>>(0)),
      mailbox_(system, std::make_shared<AccumulatorCore>(spec_, dropped_, LogWarning)) {}

void AccumulatorHandle::ApplyGradientUpTo(int64_t local_step, int32_t max_accumulated,
                                         AccumulatorGradient gradient, ApplyCallback done,
                                         const std::string& replica) {
  auto request = std::make_shared<AccumulatorRequest>();
  request->kind = Kind::kApply;
  request->step = local_step;
  request->replica = replica;
  request->max_accumulated = max_accumulated;
  request->gradient = std::move(gradient);
  request->applied = std::move(done);
  mailbox_.SubmitFor<AccumulatorInterface>(this, std::move(request), nullptr);
}

void AccumulatorHandle::TakeGradient(int32_t num_required, CancellationManager* cancellation,
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
  mailbox_.SubmitFor<AccumulatorInterface>(this, std::move(request), cancellation);
}

void AccumulatorHandle::NumAccumulated(CountCallback done) {
  auto request = std::make_shared<AccumulatorRequest>();
  request->kind = Kind::kNumAccumulated;
  request->counted = std::move(done);
  mailbox_.SubmitFor<AccumulatorInterface>(this, std::move(request), nullptr);
}

void AccumulatorHandle::SetGlobalStep(int64_t new_global_step, DoneCallback done) {
  auto request = std::make_shared<AccumulatorRequest>();
  request->kind = Kind::kSetGlobalStep;
  request->step = new_global_step;
  request->done = std::move(done);
  mailbox_.SubmitFor<AccumulatorInterface>(this, std::move(request), nullptr);
}

std::string AccumulatorHandle::DebugString() const {
  return AccumulatorLabel(spec_) + " of " + DataTypeString(spec_.dtype) + " " +
         spec_.shape.DebugString() + ", " + std::to_string(dropped_gradients()) +
         " stale gradients dropped";
}

}  // namespace af::actors
