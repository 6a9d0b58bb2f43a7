// Common subexpression elimination (whitepaper §5.1): a pure computation
// that appears twice with the same inputs runs once, and every consumer of
// the copy reads the one that stays.
#pragma once

#include "core/status.h"
#include "graph/graph.h"
#include "graph/optimizer_pass.h"

namespace af {

// Merges equivalent nodes in place. Two nodes are equivalent when both are
// pure (IsPureNode), read no resource handle and are outside while loops,
// and they share the op, every attr value (bit for bit, `_class`
// included), the requested and assigned device, the data inputs (node,
// port and order; the two inputs of a commutative binary op in either
// order) and the set of control inputs. Nodes are visited in topological
// order, so the inputs of a node are already merged when it is looked at,
// and whole duplicated subgraphs fold in one pass. The duplicate's
// consumers (data and control) move to the node kept. A preserved node is
// never removed: if only the later of two equivalent nodes is preserved, it
// is kept and the earlier goes; if both are, both stay. Counts removed
// nodes in stats->nodes_removed and nodes whose inputs were rewired in
// stats->nodes_rewritten.
Status EliminateCommonSubexpressions(Graph* graph, const PassContext& context, PassStats* stats);

}  // namespace af
