// The master's heartbeats: every remote worker of a session is probed each
// interval; one silent for longer than lost_after is lost (WorkerLost), one
// that answers with another incarnation restarted and is lost too, and a
// lost one is offered its way back (TryRejoin) on every tick.
#include <algorithm>
#include <chrono>

#include <caf/actor_system.hpp>

#include "actors/health/master_health.h"

namespace af::actors {
namespace {

using Clock = Completion::Clock;

}  // namespace

// Probes every remote worker; the answers move its last_heartbeat on.
void Heartbeat(MasterPointer self) {
  MasterState& st = self->state;
  if (st.closed) return;
  FailOverdueSteps(self);
  const auto now = Clock::now();
  bool any = false;
  for (size_t w = 0; w < st.workers.size(); ++w) {
    WorkerRecord& record = st.workers[w];
    if (!record.worker.remote) continue;
    if (!record.alive) {
      // A cluster manager restarts a dead task on its address; the
      // session takes it back (actors/health/worker_rejoin.cc).
      if (!record.rejoining) TryRejoin(self, static_cast<int>(w));
      any = true;
      continue;
    }
    const auto silent = now - record.last_heartbeat;
    if (silent > st.health.lost_after) {
      const double seconds = std::chrono::duration<double>(silent).count();
      WorkerLost(self, static_cast<int>(w),
                 errors::Unavailable(record.Describe(), ": no heartbeat for ",
                                     static_cast<int>(seconds * 10) / 10.0, " s"));
      any = true;  // keep ticking: the next tick tries to take it back
      continue;
    }
    any = true;
    const int index = static_cast<int>(w);
    self->request(record.worker.handle, caf::duration(st.health.lost_after), heartbeat_atom::value,
                  st.session_id)
        .then(
            [=](uint64_t incarnation) {
              WorkerRecord& r = self->state.workers[index];
              if (!r.alive) return;
              if (incarnation != r.incarnation) {
                return WorkerLost(self, index,
                                  errors::Aborted(r.Describe(),
                                                  ": device incarnation changed (the task "
                                                  "restarted; its state is gone)"));
              }
              r.Heard(Clock::now());
            },
            // A missing answer is what the silence check above counts.
            [=](caf::error&) {});
  }
  if (any) self->delayed_send(self, st.health.interval, heartbeat_atom::value);
}

void StartHeartbeats(MasterPointer self) {
  const auto& workers = self->state.workers;
  if (std::none_of(workers.begin(), workers.end(),
                   [](const WorkerRecord& w) { return w.worker.remote; }))
    return;
  self->delayed_send(self, self->state.health.interval, heartbeat_atom::value);
}

}  // namespace af::actors
