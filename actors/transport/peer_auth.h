// Only cluster members get in: CAF 0.17's BASP lets anyone who reaches a
// port message the actors published there, so a server holding a cluster
// secret (core/cluster_secret.h) admits a message only from
//   * an actor of its own process,
//   * a node that proved the secret in the handshake below, or
//   * a node a proven (or local) master vouched for: OpenSession lists the
//     session's peer workers, which push tensors to each other and never
//     run the handshake themselves.
// The handshake (mutual, HMAC-SHA256 over fresh nonces):
//   client -> server  AuthHello{client_nonce}
//   server -> client  AuthChallenge{required, server_nonce,
//                       HMAC(secret, "actorflow-server" | client_nonce | server_nonce)}
//   client -> server  AuthProof{client_nonce, server_nonce,
//                       HMAC(secret, "actorflow-client" | server_nonce | client_nonce)}
// The client checks the server's proof first, so a server without the
// secret is refused by clients too. Admission is per CAF node and lasts
// until the node's connection is lost (ForgetNode); see docs/decisions.md
// for what this does not protect against.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/transport/caf_status.h"
#include "actors/interfaces.h"
#include "core/status.h"

namespace af::actors {

// --- The guard, for every actor that serves remote peers ---------------

// OK if the sender of the message `self` is handling may use this process:
// `required` false, or the sender is admitted (see above). Otherwise
// UNAUTHENTICATED naming `what` (the request, e.g. "RunGraph") and the
// sender's node, and one line on stderr per refused node. A message
// without a sender is refused: a remote peer can send anonymously, so
// local code that messages a guarded actor must send with a sender.
// Call it first thing in each handler, and answer a request with the
// error (a Status field, or ToCafError of actors/transport/caf_status.h for typed
// results).
Status CheckPeer(caf::local_actor* self, std::string_view what, bool required);
// The same, required when this process serves with a secret
// (SetServingSecret): for actors beside the worker, such as a server's
// master service and its sessions.
Status CheckPeer(caf::local_actor* self, std::string_view what);

// The secret this process's server listens with (empty: none, loopback
// only). Set once by WorkerServer::Start.
void SetServingSecret(std::string secret);
bool ServingWithSecret();

// Admits the nodes of `peers` when the current sender of `self` may vouch
// (an actor of this process, or a node that proved the secret itself; a
// node that was only vouched for may not vouch in turn).
void VouchForPeers(caf::local_actor* self, const std::vector<caf::actor>& peers);

// The wire-version exchange (actors/transport/wire_handshake.h): `node` speaks this
// process's wire protocol. Without it, CheckPeer refuses the node's
// requests (FAILED_PRECONDITION), secret or not; VouchForPeers passes it on
// from a master that made the exchange.
void AdmitWireVersion(const caf::node_id& node);
// Writes `text` on stderr the first time `node` is refused.
void LogRefusal(const caf::node_id& node, const std::string& text);

// Drops what the process knows about `node` (admission, the refusal log):
// its connection was lost, and a new connection must prove the secret
// again.
void ForgetNode(const caf::node_id& node);


// --- The handshake, server side (the worker's auth handlers) -----------

// `secret` empty: the answer says no authentication is required.
caf::result<wire::AuthChallenge> AnswerHello(caf::local_actor* self, const std::string& secret,
                                             const wire::AuthHello& hello);
wire::WireStatus CheckProof(caf::local_actor* self, const std::string& secret,
                            const wire::AuthProof& proof);

// --- The handshake, client side ----------------------------------------

// Runs the handshake with `worker` from a client thread (blocking, until
// `deadline`). `who` names the server in errors ("/job:ps/replica:0/task:1
// at 127.0.0.1:2223"). UNAUTHENTICATED when the server requires a secret
// this process lacks, when either side's proof does not match, or when
// this process has a secret and the server none; UNAVAILABLE when the
// server does not answer. On success the server's node is admitted here
// too (its workers push tensors to this process's worker).
Status Authenticate(caf::actor_system& system, const worker_actor& worker,
                    const std::string& secret, std::chrono::steady_clock::time_point deadline,
                    const std::string& who);

// The client's side of the protocol, whatever carries its messages:
// Authenticate drives it from a thread, AuthenticateAsync from an actor.
class ClientHandshake {
 public:
  ClientHandshake(std::string secret, std::string who)
      : secret_(std::move(secret)), who_(std::move(who)) {}
  // The first message (fails only without random bytes).
  Status Hello(wire::AuthHello* hello);
  // After the server's challenge: OK with `*send` false means done (neither
  // side has a secret). Otherwise send `*proof` (proof_atom) and give its
  // answer to Finish; an error means a decline was built for the server's
  // log, and the handshake has failed whatever the answer.
  Status Answer(const wire::AuthChallenge& challenge, wire::AuthProof* proof, bool* send);
  // The server's verdict on the proof; admits its node on success.
  Status Finish(const worker_actor& worker, const wire::WireStatus& verdict);
  // A request of the handshake failed: a refusal is final (UNAUTHENTICATED
  // and friends), anything else (timeout, lost connection) UNAVAILABLE.
  Status Failed(caf::actor_system& system, const caf::error& err) const;

 private:
  std::string secret_;
  std::string who_;
  std::string client_nonce_;
};

// The handshake from an event-based actor (a master reconnecting to a
// restarted task): never blocks; `done` runs in `self` with the outcome.
template <class Self>
void AuthenticateAsync(Self* self, const worker_actor& worker, std::string secret,
                       std::chrono::milliseconds timeout, std::string who,
                       std::function<void(Status)> done) {
  auto handshake = std::make_shared<ClientHandshake>(std::move(secret), std::move(who));
  wire::AuthHello hello;
  if (Status s = handshake->Hello(&hello); !s.ok()) return done(s);
  auto failed = [self, handshake, done](caf::error& err) {
    done(handshake->Failed(self->system(), err));
  };
  self->request(worker, timeout, auth_atom::value, std::move(hello))
      .then(
          [=](wire::AuthChallenge& challenge) {
            wire::AuthProof proof;
            bool send = false;
            Status answered = handshake->Answer(challenge, &proof, &send);
            if (!send) return done(answered);
            self->request(worker, timeout, proof_atom::value, std::move(proof))
                .then(
                    [=](wire::WireStatus& verdict) {
                      done(answered.ok() ? handshake->Finish(worker, verdict) : answered);
                    },
                    [=](caf::error& err) { answered.ok() ? failed(err) : done(answered); });
          },
          failed);
}

}  // namespace af::actors
