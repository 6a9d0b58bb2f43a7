// Constant folding (whitepaper §5): parts of a step's graph whose values do
// not depend on anything fed or stateful are computed once, at optimization
// time, and replaced by Const nodes.
#pragma once

#include "core/status.h"
#include "graph/graph.h"
#include "graph/optimizer_pass.h"

namespace af {

// In place on `graph`, in two steps:
//  1. Shape, ShapeN and Size of inputs whose static shape is fully known,
//     and Rank of inputs whose rank is known, become Consts even when the
//     input itself is computed. When that input might be dead (something
//     downstream of a Switch or Recv), the Const gets a control edge from
//     it so that it dies with it; an input read straight from a Switch or
//     Recv output (whose deadness a control edge cannot carry) is skipped.
//  2. With context.evaluate set: a node is foldable when it is pure, not
//     preserved, outside loops, has at least one data input, every data
//     input comes from a Const or another foldable node, and neither it
//     nor its inputs carry ref, resource or variant values. Const itself
//     is never folded. The outputs of foldable nodes read by nodes that are
//     not folded are evaluated and each becomes a Const named
//     "<node>/folded" ("<node>/folded_<port>" for ports above 0), on the
//     node's requested device with its `_class` attr. Each new Const gets a
//     control edge from every node outside the folded part that some node
//     it replaces depended on by control (transitively, through the
//     Consts and foldable nodes in between), and takes over the control
//     successors of the node it replaces.
//     A value larger than context.max_constant_bytes (not even computed
//     when its static shape says so), or one whose evaluation fails (no CPU
//     kernel, a runtime error), is not replaced: its node stays and what it
//     reads is folded instead where possible. Values computed only on the
//     way to a replaced output are not capped.
// Finally the foldable nodes, shape ops and Consts left without any
// successor by these rewrites are removed (only those; other dead nodes
// are the dead-node pass's). Evaluation errors never fail the pass.
Status FoldConstants(Graph* graph, const PassContext& context, PassStats* stats);

}  // namespace af
