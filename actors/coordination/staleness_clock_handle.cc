#include "actors/coordination/staleness_clock_handle.h"

#include <cstdio>
#include <utility>

#include "actors/coordination/staleness_clock_core.h"
#include "actors/health/stall_inspection.h"
#include "core/logging.h"

namespace af::actors {
namespace {

// Elastic events are rare and matter to whoever watches a training: one
// line each.
void LogElasticEvent(const std::string& what) {
  AF_LOG(INFO) << what;
}

}  // namespace

Status StalenessClockHandle::Create(caf::actor_system& system, const StalenessClockSpec& spec,
                                    StalenessClockInterface** out) {
  AF_RETURN_IF_ERROR(ValidateStalenessClockSpec(spec));
  *out = new StalenessClockHandle(system, spec);
  return Status::OK();
}

StalenessClockHandle::StalenessClockHandle(caf::actor_system& system, StalenessClockSpec spec)
    : spec_(std::move(spec)),
      mailbox_(system,
               std::make_shared<StalenessClockCore>(spec_, SteadyNowNanos(), LogElasticEvent)) {}

void StalenessClockHandle::Tick(int32_t worker, CancellationManager* cancellation,
                                int64_t deadline_ns, TickCallback done) {
  auto request = std::make_shared<ClockTickRequest>();
  request->worker = worker;
  request->deadline_ns = deadline_ns;
  request->done = std::move(done);
  // A step cancelled already records nothing: the mailbox fails the tick.
  mailbox_.SubmitFor<StalenessClockInterface>(this, std::move(request), cancellation);
}

std::string StalenessClockHandle::DebugString() const {
  return StalenessClockLabel(spec_) + " of " + std::to_string(spec_.num_workers) +
         " workers, staleness " + std::to_string(spec_.staleness);
}

}  // namespace af::actors
