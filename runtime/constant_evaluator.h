// The evaluator constant folding runs its folded subgraphs with
// (graph/constant_folding.h): the host's CPU kernels, outside any session.
#pragma once

#include "graph/optimizer_pass.h"

namespace af {

// Imports the GraphDef, runs it once on a CPU device shared by every
// evaluator of the process (created on first use, one pool thread: folded
// graphs are small and often run while a session is busy), and returns the
// `_Retval` values in index order. Failures (an op without a CPU kernel, a
// kernel's error, a missing retval) come back as the Status. Safe to call
// from several threads at once.
ConstantEvaluator MakeCpuConstantEvaluator();

}  // namespace af
