// For tests of what a server refuses (tests/distributed/): a raw CAF peer
// that connects to a server's worker and sends it requests no well-behaved
// master would: without the cluster-secret handshake, or for an incarnation
// the server no longer is. No CAF here, so that tests need none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace af::actors {

struct ProbeAnswer {
  std::string what;  // "RunGraph", ...
  Status status;     // the server's answer (OK if it obeyed)
};

// Sends a TensorPush (with this process's node as sender, then
// anonymously: neither has an answer), then each request, waiting for its
// answer. Fails only if the server cannot be reached.
// `secret`: connect over the cluster's TLS (a member that skips the
// handshake); empty: plain CAF, which a server with a secret refuses before
// any request (UNAUTHENTICATED).
Status ProbeWithoutHandshake(const std::string& host, uint16_t port,
                             std::vector<ProbeAnswer>* answers, const std::string& secret = "");

// Sends OpenSession, RegisterGraph and RunGraph meant for `incarnation`
// (a process that served at host:port before a restart), as a master that
// missed the restart would. Fails only if the server cannot be reached.
Status ProbeIncarnation(const std::string& host, uint16_t port, uint64_t incarnation,
                        std::vector<ProbeAnswer>* answers);

// Connects without the wire-version exchange (as an Actorflow that
// predates it would, had it the same interface) and asks ListDevices and
// OpenSession. Fails only if the server cannot be reached.
Status ProbeWithoutVersionExchange(const std::string& host, uint16_t port,
                                   std::vector<ProbeAnswer>* answers);

// Publishes, in a second actor system of this process, an actor that
// answers none of the version exchange, as a worker that predates it, and
// connects to it as sessions connect: the status they would get.
Status ConnectToServerOlderThanVersions();

}  // namespace af::actors
