#include "actors/transport/peer_auth.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/local_actor.hpp>
#include <caf/make_message.hpp>
#include <caf/node_id.hpp>
#include <caf/result.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/transport/wire_version.h"
#include "core/cluster_secret.h"
#include "core/logging.h"

namespace af::actors {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kNonceBytes = 32;
// Bounds on what a stream of strangers can make this process remember.
constexpr size_t kMaxAdmittedNodes = 4096;
constexpr size_t kMaxPendingHandshakes = 1024;
constexpr size_t kMaxLoggedNodes = 1024;
// A client answers the challenge within one round trip; a slow one may
// start over.
constexpr auto kHandshakeLifetime = std::chrono::seconds(30);
// Even at the deadline a handshake gets this long: the connection itself
// just succeeded, so the server is there.
constexpr auto kMinHandshakeTime = std::chrono::milliseconds(200);
// Distinct labels keep a server's proof from ever serving as a client's.
constexpr std::string_view kServerLabel = "actorflow-server";
constexpr std::string_view kClientLabel = "actorflow-client";

std::string ServerProof(const std::string& secret, const std::string& client_nonce,
                        const std::string& server_nonce) {
  return HmacSha256(secret, std::string(kServerLabel) + client_nonce + server_nonce);
}

std::string ClientProof(const std::string& secret, const std::string& server_nonce,
                        const std::string& client_nonce) {
  return HmacSha256(secret, std::string(kClientLabel) + server_nonce + client_nonce);
}

struct PendingHandshake {
  caf::node_id node;
  std::string client_nonce;
  Clock::time_point created;
};

struct Admission {
  bool proven = false;  // false: vouched for by a proven or local master
  Clock::time_point last_used;
};

// What this process knows about other nodes. Process-wide, as the actor
// system is (actors/actor_system_holder.h).
class Registry {
 public:
  // Never destroyed: actors may still check peers while the process exits.
  static Registry& Get() {
    static Registry* registry = new Registry;
    return *registry;
  }

  bool Admitted(const caf::node_id& node, bool need_proven) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = nodes_.find(node);
    if (it == nodes_.end()) return false;
    it->second.last_used = Clock::now();
    return it->second.proven || !need_proven;
  }

  void Admit(const caf::node_id& node, bool proven) {
    std::lock_guard<std::mutex> lock(mu_);
    Admission& entry = nodes_[node];
    entry.proven = entry.proven || proven;
    entry.last_used = Clock::now();
    if (nodes_.size() > kMaxAdmittedNodes) EvictLeastRecentlyUsed(node);
  }

  void Forget(const caf::node_id& node) {
    std::lock_guard<std::mutex> lock(mu_);
    nodes_.erase(node);
    logged_.erase(node);
    same_wire_.erase(node);
  }

  bool SameWire(const caf::node_id& node) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = same_wire_.find(node);
    if (it == same_wire_.end()) return false;
    it->second = Clock::now();
    return true;
  }
  void AdmitSameWire(const caf::node_id& node) {
    std::lock_guard<std::mutex> lock(mu_);
    same_wire_[node] = Clock::now();
    // Anyone may make the exchange, secret or not: a stream of strangers
    // evicts the least recently used, not the peers in use.
    if (same_wire_.size() > kMaxAdmittedNodes) {
      auto oldest = same_wire_.end();
      for (auto it = same_wire_.begin(); it != same_wire_.end(); ++it) {
        if (it->first == node) continue;
        if (oldest == same_wire_.end() || it->second < oldest->second) oldest = it;
      }
      if (oldest != same_wire_.end()) same_wire_.erase(oldest);
    }
  }

  // True the first time `node` is refused: one log line per node, so that
  // a peer retrying in a loop cannot flood the log.
  bool FirstRefusal(const caf::node_id& node) {
    std::lock_guard<std::mutex> lock(mu_);
    if (logged_.size() >= kMaxLoggedNodes) logged_.clear();
    return logged_.insert(node).second;
  }

  void AddPending(const std::string& server_nonce, PendingHandshake pending) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = Clock::now();
    std::erase_if(pending_, [&](const auto& entry) {
      return now - entry.second.created > kHandshakeLifetime;
    });
    if (pending_.size() >= kMaxPendingHandshakes) {
      pending_.erase(std::min_element(pending_.begin(), pending_.end(), [](auto& a, auto& b) {
        return a.second.created < b.second.created;
      }));
    }
    pending_[server_nonce] = std::move(pending);
  }

  // The handshake that issued `server_nonce`, once: a proof cannot be
  // replayed, and an expired challenge is unknown.
  std::optional<PendingHandshake> TakePending(const std::string& server_nonce) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(server_nonce);
    if (it == pending_.end()) return std::nullopt;
    PendingHandshake pending = std::move(it->second);
    pending_.erase(it);
    if (Clock::now() - pending.created > kHandshakeLifetime) return std::nullopt;
    return pending;
  }

  void SetServingSecret(std::string secret) {
    std::lock_guard<std::mutex> lock(mu_);
    serving_secret_ = std::move(secret);
  }
  bool ServingWithSecret() {
    std::lock_guard<std::mutex> lock(mu_);
    return !serving_secret_.empty();
  }

 private:
  void EvictLeastRecentlyUsed(const caf::node_id& keep) {
    auto oldest = nodes_.end();
    for (auto it = nodes_.begin(); it != nodes_.end(); ++it) {
      if (it->first == keep) continue;
      if (oldest == nodes_.end() || it->second.last_used < oldest->second.last_used) oldest = it;
    }
    if (oldest != nodes_.end()) nodes_.erase(oldest);
  }

  std::mutex mu_;  // guards nodes_, logged_, same_wire_, pending_ and serving_secret_
  std::unordered_map<caf::node_id, Admission> nodes_;
  std::unordered_set<caf::node_id> logged_;
  // Nodes that made a matching wire-version exchange, or were vouched for.
  std::unordered_map<caf::node_id, Clock::time_point> same_wire_;
  std::unordered_map<std::string, PendingHandshake> pending_;
  std::string serving_secret_;
};

std::string NodeName(const caf::node_id& node) {
  return node ? "node " + caf::to_string(node) : std::string("an anonymous sender");
}

// A peer's words go into this process's log: keep them short and printable.
std::string Sanitize(std::string_view text) {
  std::string out(text.substr(0, 200));
  for (char& c : out) {
    if (c < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

void LogRefusedPeer(const std::string& text) {
  AF_LOG(WARNING) << (Registry::Get().ServingWithSecret() ? "server: " : "") << text;
}

Status Refuse(const caf::node_id& node, const std::string& text) {
  if (Registry::Get().FirstRefusal(node)) {
    LogRefusedPeer(text);
  }
  return errors::Unauthenticated(text);
}

Status RefuseHandshake(const caf::node_id& node, const std::string& reason) {
  return Refuse(node, "refused the handshake of " + NodeName(node) + ": " + reason);
}

caf::node_id SenderNode(caf::local_actor* self) {
  const caf::strong_actor_ptr& sender = self->current_sender();
  return sender ? sender->node() : caf::node_id{};
}

// --- client side ---

std::chrono::milliseconds TimeLeft(Clock::time_point deadline) {
  return std::max(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()),
                  std::chrono::duration_cast<std::chrono::milliseconds>(kMinHandshakeTime));
}

template <class Answer, class... Ts>
Status Ask(caf::scoped_actor& self, const worker_actor& worker, Clock::time_point deadline,
           const ClientHandshake& handshake, Answer* answer, Ts&&... xs) {
  Status result;
  self->request(worker, TimeLeft(deadline), std::forward<Ts>(xs)...)
      .receive([&](Answer& a) { *answer = std::move(a); },
               [&](caf::error& err) { result = handshake.Failed(self->system(), err); });
  return result;
}

}  // namespace

Status CheckPeer(caf::local_actor* self, std::string_view what, bool required) {
  const caf::node_id node = SenderNode(self);
  if (required && !(node && (node == self->node() || Registry::Get().Admitted(node, false)))) {
    return Refuse(node, "refused " + std::string(what) + " from " + NodeName(node) +
                            ": not authenticated (no cluster secret proven)");
  }
  // A message this process cannot be sure it parsed as meant is not
  // executed. (Anonymous messages pass when no secret is required, as
  // before: only a secret closes that door.)
  if (node && node != self->node() && !Registry::Get().SameWire(node)) {
    const std::string text = "refused " + std::string(what) + " from " + NodeName(node) +
                             ": it never made the wire-protocol version exchange (this process "
                             "speaks Actorflow wire protocol " +
                             std::to_string(WireProtocolVersion()) + ", Actorflow " +
                             LibraryVersion() + ")";
    LogRefusal(node, text);
    return errors::FailedPrecondition(text);
  }
  return Status::OK();
}

Status CheckPeer(caf::local_actor* self, std::string_view what) {
  return CheckPeer(self, what, Registry::Get().ServingWithSecret());
}

void SetServingSecret(std::string secret) { Registry::Get().SetServingSecret(std::move(secret)); }

bool ServingWithSecret() { return Registry::Get().ServingWithSecret(); }

void VouchForPeers(caf::local_actor* self, const std::vector<caf::actor>& peers) {
  const caf::node_id sender = SenderNode(self);
  if (!sender) return;
  // The master compared versions with every peer it lists.
  if (sender == self->node() || Registry::Get().SameWire(sender)) {
    for (const caf::actor& peer : peers) {
      if (peer && peer.node() != self->node()) Registry::Get().AdmitSameWire(peer.node());
    }
  }
  if (sender != self->node() && !Registry::Get().Admitted(sender, /*need_proven=*/true)) return;
  for (const caf::actor& peer : peers) {
    if (peer && peer.node() != self->node()) Registry::Get().Admit(peer.node(), false);
  }
}

void ForgetNode(const caf::node_id& node) { Registry::Get().Forget(node); }

void AdmitWireVersion(const caf::node_id& node) {
  if (node) Registry::Get().AdmitSameWire(node);
}

void LogRefusal(const caf::node_id& node, const std::string& text) {
  if (Registry::Get().FirstRefusal(node)) {
    LogRefusedPeer(text);
  }
}

caf::result<wire::AuthChallenge> AnswerHello(caf::local_actor* self, const std::string& secret,
                                             const wire::AuthHello& hello) {
  if (secret.empty()) return wire::AuthChallenge{};
  const caf::node_id node = SenderNode(self);
  if (!node) return ToCafError(RefuseHandshake(node, "a handshake needs a sender"));
  if (hello.client_nonce.size() != kNonceBytes) {
    return ToCafError(RefuseHandshake(node, "its nonce is not " + std::to_string(kNonceBytes) +
                                                " bytes"));
  }
  wire::AuthChallenge challenge;
  challenge.required = true;
  if (Status s = RandomBytes(kNonceBytes, &challenge.server_nonce); !s.ok()) return ToCafError(s);
  challenge.server_proof = ServerProof(secret, hello.client_nonce, challenge.server_nonce);
  Registry::Get().AddPending(challenge.server_nonce,
                             PendingHandshake{node, hello.client_nonce, Clock::now()});
  return challenge;
}

wire::WireStatus CheckProof(caf::local_actor* self, const std::string& secret,
                            const wire::AuthProof& proof) {
  if (secret.empty()) return wire::WireStatus{};  // nothing to prove here
  const caf::node_id node = SenderNode(self);
  const std::optional<PendingHandshake> pending = Registry::Get().TakePending(proof.server_nonce);
  if (!proof.declined.empty()) {
    return wire::ToWire(RefuseHandshake(node, "the client " + Sanitize(proof.declined)));
  }
  if (!node || !pending || pending->node != node ||
      !ConstantTimeEquals(pending->client_nonce, proof.client_nonce)) {
    return wire::ToWire(RefuseHandshake(node, "unknown or expired challenge"));
  }
  if (!ConstantTimeEquals(ClientProof(secret, proof.server_nonce, proof.client_nonce),
                          proof.client_proof)) {
    return wire::ToWire(
        RefuseHandshake(node, "its proof did not match the cluster secret (another secret?)"));
  }
  Registry::Get().Admit(node, /*proven=*/true);
  return wire::WireStatus{};
}

Status ClientHandshake::Hello(wire::AuthHello* hello) {
  AF_RETURN_IF_ERROR(RandomBytes(kNonceBytes, &client_nonce_));
  hello->client_nonce = client_nonce_;
  return Status::OK();
}

Status ClientHandshake::Answer(const wire::AuthChallenge& challenge, wire::AuthProof* proof,
                               bool* send) {
  *send = false;
  if (!challenge.required) {
    if (secret_.empty()) return Status::OK();
    return errors::Unauthenticated(
        who_, " runs without a cluster secret, but this process has one: refusing a server that "
              "cannot prove it (start it with the same --secret_file)");
  }
  *send = true;
  *proof = wire::AuthProof{client_nonce_, challenge.server_nonce, "", ""};
  if (secret_.empty()) {
    proof->declined = "has no cluster secret";
    return errors::Unauthenticated(
        who_, " requires the cluster secret (give --secret_file or set ACTORFLOW_SECRET_FILE)");
  }
  // Checked before proving anything: a server that does not know the
  // secret learns no proof of ours.
  if (!ConstantTimeEquals(ServerProof(secret_, client_nonce_, challenge.server_nonce),
                          challenge.server_proof)) {
    proof->declined = "could not verify this server's proof (the two hold different secrets)";
    return errors::Unauthenticated(who_,
                                   ": the server's proof did not match this process's cluster "
                                   "secret (the two hold different secrets)");
  }
  proof->client_proof = ClientProof(secret_, challenge.server_nonce, client_nonce_);
  return Status::OK();
}

Status ClientHandshake::Finish(const worker_actor& worker, const wire::WireStatus& verdict) {
  AF_RETURN_IF_ERROR(wire::FromWire(verdict).WithContext(who_));
  // The server proved the secret to this process as well.
  Registry::Get().Admit(worker.node(), /*proven=*/true);
  return Status::OK();
}

Status ClientHandshake::Failed(caf::actor_system& system, const caf::error& err) const {
  if (CarriesStatus(err)) return FromCafError(system, err, who_);
  return errors::Unavailable("the authentication handshake failed: ", system.render(err));
}

Status Authenticate(caf::actor_system& system, const worker_actor& worker,
                    const std::string& secret, Clock::time_point deadline,
                    const std::string& who) {
  ClientHandshake handshake(secret, who);
  wire::AuthHello hello;
  AF_RETURN_IF_ERROR(handshake.Hello(&hello));
  caf::scoped_actor self{system};
  wire::AuthChallenge challenge;
  AF_RETURN_IF_ERROR(Ask(self, worker, deadline, handshake, &challenge, auth_atom::value, hello));
  wire::AuthProof proof;
  bool send = false;
  Status answered = handshake.Answer(challenge, &proof, &send);
  if (!send) return answered;
  wire::WireStatus verdict;
  // A decline's answer only says the server has logged it; wait for it all
  // the same, so that the log line is there when this call returns.
  Status asked = Ask(self, worker, deadline, handshake, &verdict, proof_atom::value, proof);
  if (!answered.ok()) return answered;
  AF_RETURN_IF_ERROR(asked);
  return handshake.Finish(worker, verdict);
}

}  // namespace af::actors
