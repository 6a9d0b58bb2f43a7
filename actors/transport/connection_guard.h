// Caps on the connections strangers may open to a server's CAF port, and a
// deadline for their TLS handshake. CAF 0.17 accepts and closes sockets
// inside libcaf_io with no hook of ours in between, so
// actors/transport/connection_guard.cc defines libc's accept, accept4 and
// close in the program (as openssl_error_queue.cc does for OpenSSL's
// calls): until GuardListeningPort they only pass through. No CAF here.
#pragma once

#include <chrono>
#include <cstdint>

namespace af::actors {

struct ConnectionGuardOptions {
  int64_t max_connections_per_source = 256;  // from one IPv4 address or IPv6 /64
  int64_t max_connections = 4096;            // from everyone together
  // A connection still in its TLS handshake this long after its accept is
  // shut down (CAF then sees the end and closes it). Zero: no deadline —
  // for servers without a secret, whose CAF speaks plain BASP.
  std::chrono::milliseconds handshake_timeout{0};
};

// The most connections the guard lets in, whatever the options say: the
// process's descriptor limit (RLIMIT_NOFILE) less a quarter of it, keeping
// at least 256 for files, peers and the data plane (and never under half
// of the limit).
int64_t MaxGuardedConnections();

// From now on, connections accepted on the listening socket bound to
// `port` are counted against `options` (max_connections lowered to
// MaxGuardedConnections()): one over a cap is closed at once and CAF's
// accept sees EAGAIN, which it skips. Starts the handshake watchdog.
// One port per process; a second call replaces the first.
void GuardListeningPort(uint16_t port, const ConnectionGuardOptions& options);

// Back to pass-through: stops and joins the watchdog, forgets every
// connection. For tests and for a server on its way out.
void StopConnectionGuard();

// The TLS handshake on `fd` finished (called from the SSL_accept
// override): the watchdog leaves it alone from now on.
void ConnectionHandshakeDone(int fd);

struct ConnectionGuardCounts {
  int64_t open = 0;               // guarded connections open now
  int64_t peak_open = 0;           // the most open at once since GuardListeningPort
  int64_t refused_per_source = 0;  // closed at accept: their source was at its cap
  int64_t refused_total = 0;       // closed at accept: the server was at its cap
  int64_t handshake_timeouts = 0;  // shut down by the watchdog
};
ConnectionGuardCounts GetConnectionGuardCounts();

}  // namespace af::actors
