// Loop control for while-loop frames split over several partitions
// (whitepaper §4.4, OSDI'16 §3.4). Runs after PartitionGraph.
//
// A frame whose nodes (or the Send/Recv pairs of its edges) sit on more
// than one device needs, on every such device, something that runs once
// per iteration of the frame instance, so that the partition's Recvs of the
// frame are scheduled in the right frame and iteration and so that the
// partition has as many iterations as the real loop. The "leader" is the
// device of the frame's LoopCond. On every other device, and on the leader
// when it holds none of the loop's own Merges, the pass adds a control
// loop of scalar float dummies:
//
//   Enter(dummy) -> Merge(Enter, NextIteration) -> Switch(Merge, pred)
//   Switch:1 -> Identity (the pivot) -> NextIteration;  Switch:0 -> Exit
//
// pred is the LoopCond itself on the leader and, elsewhere, a _Recv of it
// (the leader _Sends it each iteration; an existing Send/Recv pair of the
// LoopCond to that device is reused). The dummy is a Const in the parent
// frame: with no inputs for a frame of the root, else with a control input
// from the parent frame's trigger on that device.
//
// Every _Recv that PartitionGraph made for an edge inside a frame gets a
// control input from the frame's "trigger" on its device: the control
// loop's Merge, or on the leader one of the loop's own Merges. A Merge
// (not the pivot) because it fires, live, in every iteration including the
// last one, where the pivot is dead: a Recv gated by the pivot would mark
// a live value received on the last iteration dead, and a Recv feeding the
// loop condition would wait on the condition it computes.
#pragma once

#include <map>
#include <string>

#include "core/status.h"
#include "graph/graph.h"
#include "graph/partition.h"
#include "proto/graph.pb.h"

namespace af {

// `graph` is the placed graph PartitionGraph made `partitions` from, with
// the same options. Nothing changes when no frame spans devices.
// INVALID_ARGUMENT naming the frame when a frame spans devices but has no
// LoopCond, or a frame analysis error.
Status AddLoopControl(const Graph& graph, const PartitionOptions& options,
                      std::map<std::string, tensorflow::GraphDef>* partitions);

}  // namespace af
