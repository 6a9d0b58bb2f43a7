// The worker actor's handlers, split by concept: sessions (open, close,
// orphaned, peers, containers, the watch on masters) in
// worker_session_handlers.cc, steps and the tensors they exchange (register,
// run, pushes, chunks, stall inspection, sweep) in worker_step_handlers.cc;
// worker_actor.cc wires them into the behavior. Internal to actors/worker.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/interfaces.h"
#include "actors/worker/worker_state.h"

namespace af::actors {

using WorkerPointer = worker_actor::stateful_pointer<WorkerState>;

// Steps announced by pushes or aborts whose RunGraph never came are
// dropped after kOrphanStepLifetime; the sweep runs every kSweepPeriod.
inline constexpr auto kSweepPeriod = std::chrono::seconds(30);

// --- sessions (worker_session_handlers.cc) ---------------------------------

// A request meant for an earlier run of this task (its master has not yet
// noticed the restart) must not touch this run's state: ABORTED.
Status CheckIncarnation(const WorkerState& st, uint64_t expected, std::string_view what);
wire::WireStatus OpenSessionOnWorker(WorkerPointer self, OpenSession& req);
caf::result<wire::WireStatus> DialPeersThenAnswer(
    WorkerPointer self, const std::vector<std::pair<std::string, uint16_t>>& targets,
    wire::WireStatus opened);
void CloseSession(WorkerPointer self, int64_t session_id, const Status& why);
void FreeOrphanedSession(WorkerPointer self, int64_t session_id, const Status& why);
caf::result<wire::WireStatus> ResetContainers(WorkerPointer self,
                                              const std::vector<std::string>& containers);
caf::result<std::vector<ContainerListing>> ListContainers(WorkerPointer self);

// --- steps and tensors (worker_step_handlers.cc) ---------------------------

// The step's entry here (its context from the registry); null when it
// finished lately.
WorkerStep* GetOrCreateStep(WorkerPointer self, int64_t step_id);
wire::RunGraphResponse ErrorResponse(const Status& s);
caf::result<wire::RegisterGraphResponse> RegisterGraph(WorkerPointer self,
                                                       wire::RegisterGraphRequest& req);
caf::result<wire::RunGraphResponse> RunGraph(WorkerPointer self, wire::RunGraphRequest& req);
// A RunGraph of the direct step path that needs this actor (faults, memory
// budget, step time limit, tracing): run as RunGraph, answered by the lane.
void RunDirectGraph(WorkerPointer self, uint64_t correlation, wire::RunGraphRequest& req);
void StepDone(WorkerPointer self, int64_t step_id);
void DeliverPush(WorkerPointer self, const wire::TensorPush& push);
void FlushOutbox(WorkerPointer self, uint64_t outbox_id);
bool ReceiveChunk(WorkerPointer self, wire::TensorChunk& chunk);
void InspectStalls(WorkerPointer self);
void Sweep(WorkerPointer self);

}  // namespace af::actors
