// Placement (whitepaper §3.2.1 and §4.3): choose a device for every node.
//
//  1. Constraints: each node's NodeDef.device, a possibly partial spec
//     ("/device:GPU:*", "/job:ps"); a node that already has an assigned
//     device keeps it.
//  2. Colocation groups (graph/colocation.h). A group's constraint is the
//     merge of its members' constraints; its feasible device types are
//     those with a kernel for every member.
//  3. Candidates: the devices matching the group's constraint whose type
//     is feasible.
//  4. Greedy simulation over the nodes in topological order: a group is
//     placed when its first node is reached, on the candidate where that
//     node would finish soonest given when each device is free and when
//     its inputs arrive (transfer costs from the cost model). Ties go to
//     the device listed first. Bookkeeping nodes the cost model gives no
//     arithmetic (Const, Identity, _Arg, ...) run inline and do not occupy
//     their device, so sources sit with the first device or next to their
//     consumers instead of being spread around. _Arg, _Retval and nodes
//     without a constraint simply follow their neighbours this way.
//
// Errors are INVALID_ARGUMENT naming the node, its op, the constraint and
// the available devices.
#pragma once

#include <string>
#include <vector>

#include "core/device_base.h"
#include "core/kernel_registry.h"
#include "core/status.h"
#include "graph/cost_model.h"
#include "graph/graph.h"

namespace af {

struct DeviceInfo {
  std::string name;  // full name; legacy and reordered spellings are canonicalized
  DeviceType type;   // empty: taken from the name
};

struct PlacerOptions {
  const KernelRegistry* kernels = nullptr;  // nullptr: KernelRegistry::Global()
  const CostModel* cost_model = nullptr;    // nullptr: static estimates only
  // When a constraint cannot be met, relax it (first the device id, then
  // the device type, then the job/replica/task) instead of failing.
  bool allow_soft_placement = false;
};

// Sets every node's assigned device (full canonical names from `devices`).
// On error no node's assignment is changed.
Status PlaceGraph(Graph* g, const std::vector<DeviceInfo>& devices,
                  const PlacerOptions& options = {});

}  // namespace af
