#include "core/server_limits.h"

#include <atomic>

namespace af {
namespace {

std::atomic<int64_t> g_max_graph_bytes{ServerLimits{}.max_graph_bytes};
std::atomic<int64_t> g_max_graph_nodes{ServerLimits{}.max_graph_nodes};
std::atomic<int64_t> g_max_sessions_per_client{ServerLimits{}.max_sessions_per_client};
std::atomic<int64_t> g_max_connections_per_source{ServerLimits{}.max_connections_per_source};
std::atomic<int64_t> g_max_connections{ServerLimits{}.max_connections};
std::atomic<double> g_handshake_timeout_secs{ServerLimits{}.handshake_timeout_secs};

}  // namespace

void SetServerLimits(const ServerLimits& limits) {
  g_max_graph_bytes.store(limits.max_graph_bytes);
  g_max_graph_nodes.store(limits.max_graph_nodes);
  g_max_sessions_per_client.store(limits.max_sessions_per_client);
  g_max_connections_per_source.store(limits.max_connections_per_source);
  g_max_connections.store(limits.max_connections);
  g_handshake_timeout_secs.store(limits.handshake_timeout_secs);
}

ServerLimits GetServerLimits() {
  ServerLimits limits;
  limits.max_graph_bytes = g_max_graph_bytes.load();
  limits.max_graph_nodes = g_max_graph_nodes.load();
  limits.max_sessions_per_client = g_max_sessions_per_client.load();
  limits.max_connections_per_source = g_max_connections_per_source.load();
  limits.max_connections = g_max_connections.load();
  limits.handshake_timeout_secs = g_handshake_timeout_secs.load();
  return limits;
}

Status CheckGraphLimits(std::string_view what, int64_t bytes, int64_t nodes) {
  const ServerLimits limits = GetServerLimits();
  if (bytes > limits.max_graph_bytes) {
    return errors::ResourceExhausted(what, ": the graph is ", bytes,
                                     " bytes, over this server's limit of ",
                                     limits.max_graph_bytes, " (--max_graph_bytes)");
  }
  if (nodes > limits.max_graph_nodes) {
    return errors::ResourceExhausted(what, ": the graph has ", nodes,
                                     " nodes, over this server's limit of ",
                                     limits.max_graph_nodes, " (--max_graph_nodes)");
  }
  return Status::OK();
}

}  // namespace af
