// Process-wide placement settings, in the shape of TensorFlow 2's
// tf.config.set_soft_device_placement and
// tf.debugging.set_log_device_placement: they apply to every step planned
// by a master in this process. Defaults come from the environment
// (ACTORFLOW_SOFT_PLACEMENT=1, ACTORFLOW_LOG_DEVICE_PLACEMENT=1), else off.
#pragma once

#include <string>

#include "graph/graph.h"

namespace af {

// Soft placement: a node pinned to a device it has no kernel for (an op
// without a GPU kernel under /device:GPU:0) moves to one it has, instead of
// failing the step.
void SetSoftDevicePlacement(bool enabled);
bool SoftDevicePlacement();

// Logs every node's device when a step is planned ("node (op): device").
void SetLogDevicePlacement(bool enabled);
bool LogDevicePlacement();
// The lines that logging prints for a placed graph.
std::string DescribeDevicePlacement(const Graph& g);

}  // namespace af
