// The wire-protocol version exchange (actors/transport/wire_version.h): the first
// request on every connection to another process's worker, before the
// cluster-secret handshake and before CAF's check of the published
// interface, so that a mismatch reads as one instead of as a failed
// deserialization, a refused interface or a hang.
//
//   peer -> worker  (version_atom, uint32 wire, string library)
//   worker -> peer  (uint32 wire, string library)
//
// Builtin types only, so that every version, past or future, parses it:
// never change this request or its answer, whatever else changes. A
// worker that predates it answers CAF's unexpected_message. The worker
// admits a node's requests only after a matching exchange (CheckPeer in
// actors/transport/peer_auth.h), or on the word of a master that made one.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/fwd.hpp>
#include <caf/io/middleman_actor.hpp>

#include "actors/interfaces.h"
#include "actors/transport/wire_version.h"
#include "core/status.h"

namespace af::actors {

// --- The worker's side ---

// The answer to a peer's version request: this process's versions. A
// match admits the sender's node; a mismatch is logged (once per node).
std::tuple<uint32_t, std::string> AnswerVersion(caf::local_actor* self, uint32_t peer_wire,
                                                const std::string& peer_library);

// --- The connecting side ---

// Judges the answer of `peer` (named `who` in errors: "the server at
// 127.0.0.1:5000"): FAILED_PRECONDITION naming both sides' versions on a
// mismatch; on a match, admits the peer's node here.
Status CheckVersionAnswer(const caf::node_id& peer, const std::string& who, uint32_t peer_wire,
                          const std::string& peer_library);
// The request failed: a peer without the handler is older than the
// exchange (FAILED_PRECONDITION); anything else is UNAVAILABLE.
Status VersionRequestFailed(caf::actor_system& system, const caf::error& err,
                            const std::string& who);

// Makes the middleman `connector` forget the connection it cached with
// `cached`, the actor a connect returned: the next connect to that address
// dials again. For a peer that stopped answering: its process died, and a
// new one may listen on its address.
void ForgetCachedConnection(const caf::io::middleman_actor& connector,
                            const caf::strong_actor_ptr& cached);

// Connects to the worker published at host:port, blocking until
// `deadline` (at least a moment), and runs the exchange. UNAVAILABLE when
// it cannot be reached; FAILED_PRECONDITION when it speaks another wire
// protocol, or publishes another interface under the same one.
Status ConnectToWorker(caf::actor_system& system, const std::string& host, uint16_t port,
                       std::chrono::steady_clock::time_point deadline, const std::string& who,
                       worker_actor* out, const std::string& secret = "");

// The exchange from an event-based actor (a master reconnecting to a
// restarted task, a server dialing a session's peer): never blocks;
// `done` runs in `self` with the outcome.
template <class Self>
void CheckVersionAsync(Self* self, const caf::actor& peer, std::chrono::milliseconds timeout,
                       std::string who, std::function<void(Status)> done) {
  const caf::node_id node = peer.node();
  self->request(peer, timeout, version_atom::value, WireProtocolVersion(), LibraryVersion())
      .then(
          [=](uint32_t wire, std::string& library) {
            done(CheckVersionAnswer(node, who, wire, library));
          },
          [=](caf::error& err) { done(VersionRequestFailed(self->system(), err, who)); });
}

}  // namespace af::actors
