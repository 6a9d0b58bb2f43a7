// Copying a Graph: the passes that rewrite a graph for one step signature
// (feeds, fetches, targets) work on a copy so the session's graph stays as
// the client built it.
#pragma once

#include "core/status.h"
#include "graph/graph.h"

namespace af {

// Adds every node and edge of `src` to the empty graph `dst` (same op
// registry expected), keeping NodeDefs, inferred output shapes, assigned
// devices, versions and the function library. Node ids in `dst` are dense
// and follow `src`'s id order. INVALID_ARGUMENT if `dst` is not empty.
Status CopyGraph(const Graph& src, Graph* dst);

}  // namespace af
