// How a master keeps track of its workers' health (the rest of the health
// folder: the worker's watch of its masters in master_watch.h, the events
// an embedder hears in health_events.h, the stall inspector in
// stall_inspection.h and stall_reporting.h).
#pragma once

#include "actors/master/master_state.h"

namespace af::actors {

// Starts the heartbeat ticks when the session has a remote worker
// (master_heartbeats.cc); each tick probes every remote worker.
void StartHeartbeats(MasterPointer self);
void Heartbeat(MasterPointer self);

// A worker process died: fail what depends on it (worker_loss.cc).
void WorkerLost(MasterPointer self, int worker, const Status& why);

// Reconnects a lost worker's address; a process serving the same devices
// there (restarted, with a new incarnation) rejoins the session
// (worker_rejoin.cc).
void TryRejoin(MasterPointer self, int worker);

}  // namespace af::actors
