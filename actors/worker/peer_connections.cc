#include "actors/worker/peer_connections.h"

#include "core/cluster_spec.h"

namespace af::actors {

std::vector<std::pair<std::string, uint16_t>> PeersToDial(const caf::node_id& self,
                                                         const std::vector<PeerWorker>& peers) {
  std::vector<std::pair<std::string, uint16_t>> out;
  for (const PeerWorker& peer : peers) {
    if (!peer.worker || peer.address.empty() || IsVirtualAddress(peer.address)) continue;
    const caf::node_id other = peer.worker.node();
    if (other == self || !(self < other)) continue;
    std::string host;
    uint16_t port = 0;
    if (!ParseHostPort(peer.address, &host, &port).ok()) continue;
    out.emplace_back(std::move(host), port);
  }
  return out;
}

}  // namespace af::actors
