#include "actors/transport/wire_handshake.h"

#include <algorithm>
#include <set>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor.hpp>
#include <caf/local_actor.hpp>
#include <caf/node_id.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/sec.hpp>
#include <caf/send.hpp>
#include <caf/system_messages.hpp>
#include <caf/exit_reason.hpp>

#include "actors/transport/cluster_tls.h"
#include "actors/transport/peer_auth.h"

namespace af::actors {
namespace {

using Clock = std::chrono::steady_clock;

// Even at the deadline: the connection itself just succeeded.
constexpr auto kMinExchangeTime = std::chrono::milliseconds(500);
// A live peer answers the version request at once; one silent this long
// is most likely a connection the middleman cached for a process that has
// since died (see ForgetCachedConnection), and the caller retries.
constexpr auto kMaxVersionWait = std::chrono::seconds(3);

std::chrono::milliseconds TimeLeft(Clock::time_point deadline) {
  return std::max(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()),
                  std::chrono::duration_cast<std::chrono::milliseconds>(kMinExchangeTime));
}

// A peer's words end up in errors and logs: short and printable.
std::string Printable(const std::string& text) {
  std::string out = text.substr(0, 64);
  for (char& c : out) {
    if (c < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

}  // namespace

std::tuple<uint32_t, std::string> AnswerVersion(caf::local_actor* self, uint32_t peer_wire,
                                                const std::string& peer_library) {
  const uint32_t own = WireProtocolVersion();
  const caf::strong_actor_ptr& sender = self->current_sender();
  const caf::node_id node = sender ? sender->node() : caf::node_id{};
  if (peer_wire == own) {
    AdmitWireVersion(node);
  } else {
    // The peer refuses itself on reading the answer; this line is for
    // whoever reads this process's log.
    LogRefusal(node, "refused " + (node ? "node " + caf::to_string(node) : std::string("a peer")) +
                         ": " +
                         WireMismatchMessage("it", peer_wire, Printable(peer_library), own,
                                             LibraryVersion()));
  }
  return {own, LibraryVersion()};
}

Status CheckVersionAnswer(const caf::node_id& peer, const std::string& who, uint32_t peer_wire,
                          const std::string& peer_library) {
  const uint32_t own = WireProtocolVersion();
  if (peer_wire != own) {
    return errors::FailedPrecondition(
        WireMismatchMessage(who, peer_wire, Printable(peer_library), own, LibraryVersion()));
  }
  // Its workers push tensors to this process's worker.
  AdmitWireVersion(peer);
  return Status::OK();
}

Status VersionRequestFailed(caf::actor_system& system, const caf::error& err,
                            const std::string& who) {
  if (err == caf::sec::unexpected_message) {
    return errors::FailedPrecondition(
        WireMismatchMessage(who, 0, "", WireProtocolVersion(), LibraryVersion()));
  }
  return errors::Unavailable("the wire-version exchange with ", who,
                             " failed: ", system.render(err));
}

void ForgetCachedConnection(const caf::io::middleman_actor& connector,
                            const caf::strong_actor_ptr& cached) {
  // CAF 0.17's middleman answers a connect to a host:port it has connected
  // before with the actor it found then, and forgets that entry only on a
  // down message from the actor. When a task is killed and restarted on its
  // address, that message can be missing (seen with TLS connections), and
  // every connect returns the dead process's actor, whose requests go
  // unanswered. The entry is dropped the way the middleman drops it itself.
  if (!connector || !cached) return;
  caf::anon_send(caf::actor_cast<caf::actor>(connector),
                 caf::down_msg{caf::actor_cast<caf::actor_addr>(cached),
                               caf::make_error(caf::exit_reason::remote_link_unreachable)});
}

Status ConnectToWorker(caf::actor_system& system, const std::string& host, uint16_t port,
                       Clock::time_point deadline, const std::string& who, worker_actor* out,
                       const std::string& secret) {
  caf::io::middleman_actor connector;
  AF_RETURN_IF_ERROR(ConnectionManagerFor(system, secret, &connector));
  caf::scoped_actor self{system};
  Status result;
  caf::strong_actor_ptr found;
  std::set<std::string> interface;
  // The middleman's connect, not remote_actor<worker_actor>: that one
  // compares interfaces first, and a peer of another version would fail
  // there with no word on why.
  self->request(connector, TimeLeft(deadline), caf::connect_atom::value, host, port)
      .receive(
          [&](const caf::node_id&, caf::strong_actor_ptr& ptr, std::set<std::string>& types) {
            found = std::move(ptr);
            interface = std::move(types);
          },
          [&](caf::error& err) { result = ConnectFailed(system, err, who, host + ":" + std::to_string(port),
                                                        !secret.empty()); });
  AF_RETURN_IF_ERROR(result);
  if (!found) return errors::Unavailable(who, " publishes no actor");
  const caf::actor peer = caf::actor_cast<caf::actor>(found);
  const auto version_wait = std::min<std::chrono::milliseconds>(TimeLeft(deadline), kMaxVersionWait);
  self->request(peer, version_wait, version_atom::value, WireProtocolVersion(), LibraryVersion())
      .receive(
          [&](uint32_t wire, std::string& library) {
            result = CheckVersionAnswer(peer.node(), who, wire, library);
          },
          [&](caf::error& err) {
            result = VersionRequestFailed(system, err, who);
            if (err == caf::sec::request_timeout) ForgetCachedConnection(connector, found);
          });
  AF_RETURN_IF_ERROR(result);
  if (interface != system.message_types<worker_actor>()) {
    return errors::FailedPrecondition(
        who, " publishes another worker interface than this process, though both speak "
             "Actorflow wire protocol ",
        WireProtocolVersion(),
        ": the two builds differ (was actors/interfaces.h changed without a bump of "
        "kWireProtocolVersion?)");
  }
  *out = caf::actor_cast<worker_actor>(std::move(found));
  return Status::OK();
}

}  // namespace af::actors
