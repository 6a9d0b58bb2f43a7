#include "actors/coordination/clock_tick_request.h"

namespace af::actors {

void ClockTickRequest::Finish(const Status& status) {
  if (!BeginFinish()) return;
  if (done) done(status, clock);
  // The callback may hold the step: drop it now, not with the last copy.
  done = nullptr;
  keep_alive = ResourceRef<StalenessClockInterface>();
}

}  // namespace af::actors
