// The graph optimizer's passes in a step's trace: one DeviceStepStats
// named kOptimizerTraceDevice with an entry per pass (its wall time, and a
// label saying what it changed), so that Chrome traces and RunMetadata
// show where plan-building time went.
#pragma once

#include <vector>

#include "graph/optimizer.h"
#include "proto/step_stats.pb.h"

namespace af {

inline constexpr char kOptimizerTraceDevice[] = "/graph_optimizer";

// Adds the passes (nothing when there are none). The passes ran when the
// step's plan was made, which may be long before this step.
void AddOptimizerTrace(const std::vector<PassReport>& passes, tensorflow::StepStats* stats);

}  // namespace af
