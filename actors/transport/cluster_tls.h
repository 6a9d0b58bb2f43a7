// CAF connections of a cluster with a secret run over mutual TLS
// (libcaf_openssl), each side presenting a certificate of the cluster CA
// that core/tls_identity.h derives from the secret. A peer without the
// secret cannot finish the TLS handshake, so it never reaches BASP: it
// cannot claim a node id, allocate a message buffer or replay anything.
// Without a secret (loopback-only servers) connections stay plain CAF.
#pragma once

#include <cstdint>
#include <string>

#include <caf/fwd.hpp>
#include <caf/io/middleman_actor.hpp>

#include "actors/interfaces.h"
#include "core/status.h"

namespace af::actors {

// The middleman actor that connects for a process holding `secret`:
// libcaf_openssl's (making the process's TLS identity the secret's) when
// `secret` is non-empty, CAF's plain one otherwise. FAILED_PRECONDITION
// when a secret is given but the system has no caf::openssl::manager (an
// embedding application's system: cfg.load<caf::openssl::manager>()).
Status ConnectionManagerFor(caf::actor_system& system, const std::string& secret,
                            caf::io::middleman_actor* out);

// Publishes `worker` on host:port: over mutual TLS with a secret, plain
// without. Returns the bound port.
Status PublishWorker(caf::actor_system& system, const worker_actor& worker,
                     const std::string& host, uint16_t port, const std::string& secret,
                     uint16_t* bound);

// A connect that failed during CAF's handshake when TLS was or was not in
// play: the wording a user needs ("requires the cluster secret", "holds
// another secret or none"), as UNAUTHENTICATED; other failures UNAVAILABLE
// with CAF's words (callers name the peer).
// `address` ("host:port") is probed with a plain TCP connect when TLS
// failed in a way CAF does not tell from an absent server.
Status ConnectFailed(caf::actor_system& system, const caf::error& err, const std::string& who,
                     const std::string& address, bool with_secret);

}  // namespace af::actors
