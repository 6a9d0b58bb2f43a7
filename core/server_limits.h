// What a server accepts from the processes it serves: the size of the
// graphs they send, how many sessions one client may hold open, and how
// many connections strangers may hold on its port and for how long. Set
// once by `actorflow server` from its flags (process-wide: one server per
// process); the defaults are far above any real model and only stop
// requests meant to exhaust the server. No CAF here.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/status.h"

namespace af {

struct ServerLimits {
  int64_t max_graph_bytes = int64_t{1} << 30;  // a serialized GraphDef (--max_graph_bytes)
  int64_t max_graph_nodes = int64_t{1} << 22;  // its nodes (--max_graph_nodes)
  int64_t max_sessions_per_client = 64;        // open at once per client node
  // Connections on the server's CAF port (actors/transport/connection_guard.h):
  // from one IPv4 address or IPv6 /64 (a loopback cluster of ~100 processes
  // comes from 127.0.0.1), from everyone, and how long one may take to
  // finish its TLS handshake (with a cluster secret).
  int64_t max_connections_per_source = 256;  // --max_connections_per_source
  int64_t max_connections = 4096;            // --max_connections
  double handshake_timeout_secs = 10;        // --handshake_timeout_secs
};

void SetServerLimits(const ServerLimits& limits);
ServerLimits GetServerLimits();

// RESOURCE_EXHAUSTED naming `what` ("Extend of session 7"), the size and
// the limit when a graph of `bytes` serialized bytes and `nodes` nodes
// (negative: not known yet) is over the limits.
Status CheckGraphLimits(std::string_view what, int64_t bytes, int64_t nodes);

}  // namespace af
