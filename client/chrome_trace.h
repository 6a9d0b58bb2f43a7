// Chrome trace-event JSON from a step's StepStats, for chrome://tracing and
// Perfetto (ui.perfetto.dev): one process per device (named after it), one
// track per thread that ran the device's nodes, one complete ("X") event per
// node execution, and a flow arrow from each _Send to the _Recv that took
// its tensor.
//
//   RunOptions options;
//   options.trace_level = RunOptions::FULL_TRACE;
//   RunMetadata metadata;
//   AF_RETURN_IF_ERROR(session->Run(options, feeds, fetches, {}, &out, &metadata));
//   std::ofstream("step.json") << StepStatsToChromeTrace(metadata.step_stats, metadata.traffic);
#pragma once

#include <string>

#include "core/status.h"
#include "core/step_traffic.h"
#include "proto/step_stats.pb.h"

namespace af {

// Times are microseconds from the step's first node (the wall-clock start,
// in microseconds since the Unix epoch, is in "otherData"). A _Send and a
// _Recv pair up when their timeline labels name the same tensor and the
// same two devices (see NodeExecStats.timeline_label); the k-th Send of a
// tensor pairs with its k-th Recv.
//
// `traffic` (RunMetadata::traffic) adds a "traffic between tasks" process
// with one counter per receiving task ("bytes into <task>", one series per
// sender) and the same figures, with tensor counts, under
// "otherData"."traffic".
std::string StepStatsToChromeTrace(const tensorflow::StepStats& step_stats,
                                   const StepTraffic& traffic = {});

// Writes the trace to `path`; a failure names the file.
Status WriteChromeTrace(const tensorflow::StepStats& step_stats, const std::string& path,
                        const StepTraffic& traffic = {});

}  // namespace af
