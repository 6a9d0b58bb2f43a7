// Arithmetic rewrites that change no value (grappler-style): a node whose
// result is bit for bit one of its inputs hands its consumers that input.
#pragma once

#include "core/status.h"
#include "graph/graph.h"
#include "graph/optimizer_pass.h"

namespace af {

// On pure, non-preserved nodes outside while loops, without control
// inputs, whose output shape is fully known and equal to the replacement's
// (so broadcasting never changes a shape) and of the same dtype:
//   Mul(x, 1), Mul(1, x)             real (integer or floating) T
//   Add(x, 0), Add(0, x), AddV2(..)  real T
//   Sub(x, 0)                        real T
//   RealDiv(x, 1), Div(x, 1)         floating T only
//   Transpose(Transpose(x, p1), p2)  the composed permutation is identity
//   Reshape(x, shape)                x's shape is already the output's
// -> the node's consumers read x. The operand dropped (the 1 or 0, the
// permutations, the new shape; an inner Transpose, which must have no
// control inputs either) is a Const without inputs, so no dependency is
// lost; 1 and 0 must hold in every element, exactly. x*0, complex types
// and integer division are never touched.
// The node's control successors depend on x's source instead (not when that
// is a Switch, whose control signal is live on both branches). The node is
// removed, as are an inner Transpose and operand Consts left without
// consumers (unless preserved). Replaced and dropped nodes count as removed,
// nodes whose inputs changed as rewritten.
//
// One inexactness is accepted, as grappler accepts it: x + 0 and x - (-0)
// turn -0.0 into +0.0, while the rewritten graph keeps -0.0 (the two
// compare equal).
Status SimplifyArithmetic(Graph* graph, const PassContext& context, PassStats* stats);

}  // namespace af
