// A worker process is lost (no heartbeat, a new incarnation, its
// connection gone): the steps that use it fail, the plans that use it are
// dropped and their partitions on the workers still alive are freed, and
// the session's health listener hears of it (actors/health/health_events.h).
#include <algorithm>
#include <vector>

#include <caf/send.hpp>

#include "actors/health/health_events.h"
#include "actors/health/master_health.h"

namespace af::actors {

void WorkerLost(MasterPointer self, int worker, const Status& why) {
  MasterState& st = self->state;
  if (!st.workers[worker].alive) return;
  st.workers[worker].alive = false;
  st.workers[worker].lost = why;
  if (st.health.events) {
    caf::anon_send(st.health.events, af::WorkerLost{st.workers[worker].Describe(), why});
  }
  auto uses = [worker](const CachedStep& step) {
    return std::any_of(step.groups.begin(), step.groups.end(),
                       [worker](const CachedStep::Group& g) { return g.worker == worker; });
  };
  std::vector<int64_t> failing;
  for (const auto& [step_id, flight] : st.inflight) {
    if (uses(*flight.step)) failing.push_back(step_id);
  }
  for (int64_t step_id : failing) FailStep(self, step_id, why);
  // Plans that use the lost worker are rebuilt on the next Run; their
  // partitions on the workers still alive are freed now.
  for (auto it = st.cache.begin(); it != st.cache.end();) {
    if (!uses(*it->second)) {
      ++it;
      continue;
    }
    if (!it->second->ready) {
      // Still registering: CAF does not fail a request to a dead or hung
      // node before its timeout, so the Runs waiting for this plan would
      // wait for their deadline. They fail now; the registrations still in
      // flight find the step failed and free what they registered.
      CachedStep& step = *it->second;
      step.error.Update(why);
      std::vector<std::shared_ptr<RunCall>> waiting = std::move(step.waiting);
      step.waiting.clear();
      for (auto& call : waiting) call->Finish(why);
      it = st.cache.erase(it);
      continue;
    }
    for (const auto& group : it->second->groups) {
      const WorkerRecord& w = st.workers[group.worker];
      if (!w.alive) continue;
      for (int64_t handle : group.handles) {
        self->send(w.worker.handle, dereg_atom::value, st.session_id, handle);
      }
    }
    if (st.local_plans) st.local_plans->Withdraw(it->first);
    it = st.cache.erase(it);
  }
  // Steps the client's threads run with remote partitions fail too.
  if (st.local_plans) st.local_plans->WorkerLost(why);
}

}  // namespace af::actors
