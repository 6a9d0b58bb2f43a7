// Which of a session's other servers this server dials itself.
//
// Servers that a session's master introduces to each other (OpenSession's
// peers) must reach each other directly: a route through the master's
// process dies with it (tests/distributed/cross_ps_edges_test.cc). CAF's
// automatic connections did that, but let both servers dial at the same
// moment, as both learn of each other from OpenSession; two connections set
// up at once between one pair of nodes lost the messages of a first step
// going both ways (about 1 in 140; CAF's PR #1070 describes such a race).
// So exactly one side dials: the server whose node id is lower, while it
// handles OpenSession, and it answers once the connection is up.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <caf/node_id.hpp>

#include "actors/interfaces.h"

namespace af::actors {

// The (host, port) of each peer on another node with a higher node id than
// `self` and a published address (not virtual, not the master's process).
std::vector<std::pair<std::string, uint16_t>> PeersToDial(const caf::node_id& self,
                                                         const std::vector<PeerWorker>& peers);

}  // namespace af::actors
