// The typed interfaces of Actorflow's actors, their atoms, and the inspect()
// declarations of every message type (definitions in messages.cc). Only
// actors/*.cc includes this header: it is the CAF side of the runtime.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/client_calls.h"
#include "actors/transport/wire.h"

namespace af {
class StepContext;
}

namespace af::actors {

// Atoms hold at most 10 characters; the af prefix keeps them apart from
// CAF's own.
using list_dev_atom = caf::atom_constant<caf::atom("aflistdev")>;
using open_sess_atom = caf::atom_constant<caf::atom("afopensess")>;
using close_sess_atom = caf::atom_constant<caf::atom("afclosess")>;
using reg_graph_atom = caf::atom_constant<caf::atom("afreggraph")>;
using dereg_atom = caf::atom_constant<caf::atom("afdereg")>;
using run_graph_atom = caf::atom_constant<caf::atom("afrungraph")>;
using push_atom = caf::atom_constant<caf::atom("afpush")>;
using chunk_atom = caf::atom_constant<caf::atom("afchunk")>;
using abort_step_atom = caf::atom_constant<caf::atom("afabort")>;
using step_done_atom = caf::atom_constant<caf::atom("afstepdone")>;
using sweep_atom = caf::atom_constant<caf::atom("afsweep")>;
using run_part_atom = caf::atom_constant<caf::atom("afrunpart")>;
using init_atom = caf::atom_constant<caf::atom("afinit")>;
using extend_atom = caf::atom_constant<caf::atom("afextend")>;
using run_atom = caf::atom_constant<caf::atom("afrun")>;
using close_atom = caf::atom_constant<caf::atom("afclose")>;
using reset_atom = caf::atom_constant<caf::atom("afreset")>;
using list_cont_atom = caf::atom_constant<caf::atom("aflistcont")>;
using containers_atom = caf::atom_constant<caf::atom("afconts")>;
using stats_atom = caf::atom_constant<caf::atom("afstats")>;
using heartbeat_atom = caf::atom_constant<caf::atom("afbeat")>;
using watch_atom = caf::atom_constant<caf::atom("afwatch")>;
using inspect_atom = caf::atom_constant<caf::atom("afinspect")>;
using open_master_atom = caf::atom_constant<caf::atom("afopenmast")>;
using opened_atom = caf::atom_constant<caf::atom("afopened")>;
using call_done_atom = caf::atom_constant<caf::atom("afcalldone")>;
using push_batch_atom = caf::atom_constant<caf::atom("afpushes")>;
using flush_atom = caf::atom_constant<caf::atom("afflush")>;
using auth_atom = caf::atom_constant<caf::atom("afauth")>;    // handshake: hello
using proof_atom = caf::atom_constant<caf::atom("afproof")>;  // handshake: proof
// The direct step path (actors/worker/direct_steps.h): a lane RunGraph
// the worker actor must run, and a RunGraph reply for a master.
using direct_run_atom = caf::atom_constant<caf::atom("afdirrun")>;
using direct_reply_atom = caf::atom_constant<caf::atom("afdirrep")>;
using join_atom = caf::atom_constant<caf::atom("afjoin")>;       // a task beyond the spec
using cluster_atom = caf::atom_constant<caf::atom("afcluster")>;  // the cluster's new members
using version_atom = caf::atom_constant<caf::atom("afversion")>;  // actors/transport/wire_handshake.h

// A worker of the session and the devices it owns.
struct PeerWorker {
  caf::actor worker;
  std::vector<std::string> devices;
  // Its data plane as the session's workers reach it (the master resolves
  // a wildcard host; actors/worker/data_plane.h); empty: none.
  std::string data_address;
  // Where its actor is published ("host:port"); empty: in the master's
  // process or virtual. Servers dial each other there (actors/worker/
  // peer_connections.h).
  std::string address;
};

// Opens a session on a worker: who the master is (the worker monitors it
// and drops the session when it goes away) and where every device lives, so
// that Sends to other processes find their worker.
struct OpenSession {
  int64_t session_id = 0;
  uint64_t incarnation = 0;  // of the worker, as the master listed it (0: any)
  caf::actor master;
  std::vector<PeerWorker> peers;
  // The worker closes the session when the master's heartbeats stop for
  // this long (0: never; an in-process master cannot hang alone).
  int64_t master_lost_after_ms = 0;
};

// One per process (task). Published for remote masters, so every message
// type here is serializable and registered.
using worker_actor = caf::typed_actor<
    caf::replies_to<list_dev_atom>::with<std::vector<wire::DeviceInfo>>,
    // The wire-version exchange (actors/transport/wire_handshake.h): builtin types
    // only, and the same in every version.
    caf::replies_to<version_atom, uint32_t, std::string>::with<uint32_t, std::string>,
    // The cluster-secret handshake (actors/transport/peer_auth.h): with a secret, the
    // only requests answered before the sender's node proved it.
    caf::replies_to<auth_atom, wire::AuthHello>::with<wire::AuthChallenge>,
    caf::replies_to<proof_atom, wire::AuthProof>::with<wire::WireStatus>,
    // Liveness: a master's periodic probe for one of its sessions (0: none);
    // the answer is the worker's incarnation, so a restart shows.
    caf::replies_to<heartbeat_atom, int64_t>::with<uint64_t>,
    caf::reacts_to<watch_atom>,    // the worker's own check of its masters
    caf::reacts_to<inspect_atom>,  // the worker's own stall inspector
    caf::replies_to<open_sess_atom, OpenSession>::with<wire::WireStatus>,
    caf::reacts_to<close_sess_atom, int64_t>,
    caf::replies_to<reg_graph_atom, wire::RegisterGraphRequest>::with<
        wire::RegisterGraphResponse>,
    caf::reacts_to<dereg_atom, int64_t, int64_t>,  // session, handle
    caf::replies_to<run_graph_atom, wire::RunGraphRequest>::with<wire::RunGraphResponse>,
    caf::reacts_to<push_atom, wire::TensorPush>,
    caf::reacts_to<direct_run_atom, uint64_t, wire::RunGraphRequest>,
    caf::reacts_to<push_batch_atom, wire::TensorPushBatch>,
    // This worker's own request to flush a push outbox (its id).
    caf::reacts_to<flush_atom, uint64_t>,
    // One chunk of a large tensor; the answer is whether to send more
    // (false once the step is gone here).
    caf::replies_to<chunk_atom, wire::TensorChunk>::with<bool>,
    caf::reacts_to<abort_step_atom, int64_t, wire::WireStatus>,  // step, why
    caf::reacts_to<step_done_atom, int64_t>,                     // step (local)
    caf::reacts_to<sweep_atom>,
    // Containers of every device of the worker: reset (empty list: the
    // default container) and list.
    caf::replies_to<reset_atom, std::vector<std::string>>::with<wire::WireStatus>,
    caf::replies_to<list_cont_atom>::with<std::vector<ContainerListing>>,
    // A session on this server's master (its master service): the answer
    // is the session's master_session_actor and the session's devices.
    caf::replies_to<open_master_atom, wire::MasterSessionRequest>::with<
        wire::WireStatus, caf::actor, std::vector<wire::DeviceInfo>>,
    // Membership (actors/master/cluster_membership.h), answered by the
    // master service: a task of (job) at (address) beyond the spec asks to
    // join, and gets every task (names, addresses) and its own index; and a
    // peer's news of the cluster's members (names, addresses).
    caf::replies_to<join_atom, std::string, std::string>::with<
        wire::WireStatus, std::vector<std::string>, std::vector<std::string>, int32_t>,
    caf::reacts_to<cluster_atom, std::vector<std::string>, std::vector<std::string>>>;

// A server's master service: opens sessions whose master lives in the
// server's process, for clients that target it ("af://host:port").
using master_service_actor = caf::typed_actor<
    caf::replies_to<open_master_atom, wire::MasterSessionRequest>::with<
        wire::WireStatus, caf::actor, std::vector<wire::DeviceInfo>>,
    // The end of a session setup that ran on its own thread: request id,
    // status, the master (null on failure), the session's devices.
    caf::reacts_to<opened_atom, uint64_t, wire::WireStatus, caf::actor,
                   std::vector<wire::DeviceInfo>>,
    caf::replies_to<join_atom, std::string, std::string>::with<
        wire::WireStatus, std::vector<std::string>, std::vector<std::string>, int32_t>,
    caf::reacts_to<cluster_atom, std::vector<std::string>, std::vector<std::string>>>;

// One per client session on a server's master: the serializable face of
// that master (the client's process holds only a proxy, which speaks this).
// Every request carries the client's time left, in ms, as its last value.
using master_session_actor = caf::typed_actor<
    caf::replies_to<extend_atom, std::string, int64_t>::with<wire::WireStatus>,  // GraphDef bytes
    caf::replies_to<run_atom, wire::RunStepRequest>::with<wire::RunStepResponse>,
    // list?, containers to reset (empty: the default container)
    caf::replies_to<containers_atom, bool, std::vector<std::string>, int64_t>::with<
        wire::WireStatus, std::vector<ContainerListing>>,
    caf::replies_to<stats_atom, int64_t>::with<wire::WireStatus, SessionStats>,
    caf::replies_to<close_atom, int64_t>::with<wire::WireStatus>,
    caf::reacts_to<call_done_atom, uint64_t>,  // a call to the master finished
    caf::reacts_to<heartbeat_atom>,            // the client is alive
    caf::reacts_to<sweep_atom>>;               // its own tick: is the client still there?

// One per device, inside its worker's process only.
using device_actor = caf::typed_actor<
    // handle, serialized GraphDef
    caf::replies_to<reg_graph_atom, int64_t, std::string>::with<wire::RegisterGraphResponse>,
    caf::reacts_to<dereg_atom, int64_t>,
    // step, partition slot in the step, handle
    caf::reacts_to<run_part_atom, std::shared_ptr<StepContext>, int32_t, int64_t>>;

// One per device, beside its device actor: owns the lifecycle of the
// device's variable containers (the process-wide ResourceMgr of the device
// name). Kernels reach the storage by pointer, never through this actor.
using container_actor = caf::typed_actor<
    caf::replies_to<reset_atom, std::vector<std::string>>::with<wire::WireStatus>,
    caf::replies_to<list_cont_atom>::with<std::vector<ContainerListing>>>;

// One per session, in the client's process, or in a server's for a client
// that targets it (then a master_session_actor speaks for it on the wire).
// Clients in its process talk to it through call objects
// (actors/client_calls.h); a client of a remote master holds a proxy with
// this same interface (actors/master/remote_master.h).
using master_actor = caf::typed_actor<caf::reacts_to<init_atom, std::shared_ptr<InitCall>>,
                                      caf::reacts_to<extend_atom, std::shared_ptr<ExtendCall>>,
                                      caf::reacts_to<run_atom, std::shared_ptr<RunCall>>,
                                      caf::reacts_to<close_atom, std::shared_ptr<CloseCall>>,
                                      caf::reacts_to<containers_atom,
                                                     std::shared_ptr<ContainerCall>>,
                                      caf::reacts_to<stats_atom, std::shared_ptr<StatsCall>>,
                                      caf::reacts_to<heartbeat_atom>,  // its own tick
                                      caf::reacts_to<direct_reply_atom, uint64_t,
                                                     wire::RunGraphResponse>>;

// Registers every message type that crosses processes. Must run before the
// actor_system is constructed.
void RegisterMessageTypes(caf::actor_system_config& config);

caf::error inspect(caf::serializer& f, PeerWorker& x);
caf::error inspect(caf::deserializer& f, PeerWorker& x);
caf::error inspect(caf::serializer& f, OpenSession& x);
caf::error inspect(caf::deserializer& f, OpenSession& x);

}  // namespace af::actors

// Serialization of the wire types (actors/transport/messages.cc).
#define AF_DECLARE_INSPECT(TYPE)                        \
  caf::error inspect(caf::serializer& f, TYPE& x);     \
  caf::error inspect(caf::deserializer& f, TYPE& x);
namespace af {
AF_DECLARE_INSPECT(Tensor)
AF_DECLARE_INSPECT(ContainerListing)
AF_DECLARE_INSPECT(SessionStats)
AF_DECLARE_INSPECT(TaskTraffic)
}
namespace af::wire {
AF_DECLARE_INSPECT(WireStatus)
AF_DECLARE_INSPECT(DeviceInfo)
AF_DECLARE_INSPECT(RegisterGraphRequest)
AF_DECLARE_INSPECT(RegisterGraphResponse)
AF_DECLARE_INSPECT(PartitionCall)
AF_DECLARE_INSPECT(RunGraphRequest)
AF_DECLARE_INSPECT(PartitionResult)
AF_DECLARE_INSPECT(RunGraphResponse)
AF_DECLARE_INSPECT(TensorPush)
AF_DECLARE_INSPECT(TensorChunk)
AF_DECLARE_INSPECT(AuthHello)
AF_DECLARE_INSPECT(AuthChallenge)
AF_DECLARE_INSPECT(AuthProof)
AF_DECLARE_INSPECT(TensorPushBatch)
AF_DECLARE_INSPECT(MasterSessionRequest)
AF_DECLARE_INSPECT(RunStepRequest)
AF_DECLARE_INSPECT(RunStepResponse)
}  // namespace af::wire
#undef AF_DECLARE_INSPECT

// Local-only payloads: pointers to shared objects of this process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::StepContext>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::InitCall>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::ExtendCall>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::RunCall>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::CloseCall>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::ContainerCall>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<af::StatsCall>)
