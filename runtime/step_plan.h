// StepPlan: what the master builds (once per step signature) before it can
// run a step: the session graph pruned for the feeds, fetches and targets,
// placed on the available devices and cut into one partition per device,
// with feeds mapped to `_Arg` and fetches to `_Retval` nodes of partitions.
// CAF-free, so that the master actor only moves the results around.
#pragma once

#include <string>
#include <vector>

#include "core/device_base.h"
#include "core/status.h"
#include "graph/optimizer.h"
#include "graph/subgraph.h"
#include "proto/graph.pb.h"

namespace af {

class CostModel;

// Cache key of a step signature (StepSignature is in graph/subgraph.h):
// sorted feeds, fetches and targets.
std::string StepSignatureKey(const StepSignature& signature);

struct DeviceAttributes {
  std::string name;  // full name, "/job:localhost/replica:0/task:0/device:CPU:0"
  DeviceType type;   // "CPU", "GPU"
  uint64_t incarnation = 0;
};

struct PartitionPlan {
  std::string device;  // full device name
  tensorflow::GraphDef graph;
  int num_args = 0;     // _Arg nodes in this partition (local indices)
  int num_retvals = 0;  // _Retval nodes in this partition
};

// partition -1: the tensor is not needed by this step (a feed nothing reads).
struct TensorLocation {
  int partition = -1;  // index into StepPlan::partitions
  int index = -1;      // local _Arg / _Retval index in that partition
};

struct StepPlan {
  std::vector<PartitionPlan> partitions;
  // What the graph optimizer did between pruning and placement.
  std::vector<PassReport> optimizer_passes;
  std::vector<TensorLocation> feeds;    // parallel to StepSignature::feeds
  std::vector<TensorLocation> fetches;  // parallel to StepSignature::fetches
};

// Prunes, optimizes (graph/optimizer.h: feeds, fetches and targets are
// preserved), places and partitions `graph` for `signature`. Errors are
// INVALID_ARGUMENT naming unknown feeds/fetches/targets or infeasible device
// constraints (listing `devices`). `cost_model` may be null.
Status BuildStepPlan(const Graph& graph, const StepSignature& signature,
                     const std::vector<DeviceAttributes>& devices,
                     const CostModel* cost_model, StepPlan* out,
                     const OptimizerOptions& optimizer = OptimizerOptions::ProcessDefault());
// Convenience: imports `graph_def` first.
Status BuildStepPlan(const tensorflow::GraphDef& graph_def, const StepSignature& signature,
                     const std::vector<DeviceAttributes>& devices,
                     const CostModel* cost_model, StepPlan* out,
                     const OptimizerOptions& optimizer = OptimizerOptions::ProcessDefault());

}  // namespace af
