#include "actors/health/master_watch.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "actors/worker/worker_handlers.h"

namespace af::actors {

// Closes the sessions whose master stopped sending heartbeats: a master
// that hangs (or whose host vanished without closing the connection) must
// not pin its sessions' state here forever.
void WatchMasters(WorkerPointer self) {
  WorkerState& st = self->state;
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::pair<int64_t, double>> lost;
  for (const auto& [id, session] : st.sessions) {
    if (session.master_lost_after.count() == 0) continue;
    if (now - session.last_heartbeat > session.master_lost_after) {
      lost.emplace_back(id, std::chrono::duration<double>(now - session.last_heartbeat).count());
    }
  }
  for (const auto& [id, seconds] : lost) {
    FreeOrphanedSession(self, id,
                        errors::Aborted("the master of session ", id, " sent no heartbeat for ",
                                        static_cast<int>(seconds * 10) / 10.0, " s"));
  }
  const bool watched = std::any_of(st.sessions.begin(), st.sessions.end(), [](const auto& entry) {
    return entry.second.master_lost_after.count() != 0;
  });
  st.watching_masters = watched;
  if (watched) self->delayed_send(self, kMasterWatchPeriod, watch_atom::value);
}

}  // namespace af::actors
