// The executor's immutable per-partition layout, built once: one NodeItem
// per node (its kernel, its flags, where its input slots and pending count
// live inside its frame) and one FrameInfo per loop frame.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "control-flow/frame_analysis.h"
#include "core/op_kernel.h"
#include "graph/graph.h"

namespace af {

class KernelSegment;

struct FrameInfo;

// What propagation needs of the destination is copied into the edge, so
// that an edge whose destination is not yet ready touches one counter and
// not the destination's NodeItem.
struct EdgeItem {
  int dst_id = 0;
  int src_output = 0;     // kControlSlot for control edges
  int dst_input = 0;      // slot index within the destination's inputs
  int dst_pending_id = 0;  // the destination's NodeItem::pending_id
  int dst_slot = 0;        // input_start + dst_input: the slot in its frame
  bool last_use = false;   // last data edge reading src_output: may move
  bool dst_is_merge = false;
  // The destination waits for this edge alone (one input, not a Merge):
  // it is ready as soon as the edge delivers, without counting.
  bool dst_single_input = false;
};

struct NodeItem {
  const Node* node = nullptr;
  OpKernel* kernel = nullptr;
  bool is_async = false;
  bool is_expensive = false;
  int num_inputs = 0;
  int num_outputs = 0;
  int num_data_inputs = 0;
  int input_start = 0;  // offset of input slot 0 in the frame's slot array
  int pending_id = 0;   // index in the frame's pending arrays
  const FrameInfo* frame = nullptr;        // the frame this node runs in
  const FrameInfo* child_frame = nullptr;  // for Enter: the frame it feeds
  bool is_merge = false, is_switch = false, is_enter = false, is_constant_enter = false,
       is_exit = false, is_next_iteration = false, is_control_trigger = false,
       is_transfer = false, is_root = false;
  // A NoOp's kernel does nothing: the executor only propagates its
  // (control) outputs, saving the call and the kernel object's cache line.
  bool is_noop = false;
  // Some data input arrives as a reference (a variable) where the kernel
  // takes a value: the executor reads it under the variable's mutex and
  // fails if it was never initialized.
  bool derefs_ref_inputs = false;
  // Data edges first, then control edges; they live in ExecutorItems::edges,
  // node after node, so that propagation walks memory in order.
  std::span<const EdgeItem> out_edges;
};

struct FrameInfo {
  int index = 0;
  std::string name;
  const FrameInfo* parent = nullptr;
  int parallel_iterations = 1;
  int num_enters = 0;
  int total_inputs = 0;
  std::vector<int> initial_pending;  // by pending id
  std::vector<const NodeItem*> nodes;
};

struct ExecutorItems {
  ExecutorItems() = default;
  // NodeItem::out_edges point into `edges`: never copied.
  ExecutorItems(const ExecutorItems&) = delete;
  ExecutorItems& operator=(const ExecutorItems&) = delete;

  std::vector<std::shared_ptr<OpKernel>> kernels;  // some shared through a KernelSegment
  std::vector<NodeItem> nodes;  // by node id; node == nullptr for removed ids
  std::vector<EdgeItem> edges;  // every node's out edges, by node id
  std::vector<std::unique_ptr<FrameInfo>> frames;  // frames[0] is the root
  std::vector<const NodeItem*> roots;
  // Without control flow, the root frame is the only frame and has one
  // iteration: nodes propagate with atomic counters instead of its mutex.
  bool has_control_flow = false;
};

// Creates the kernels (errors name the node) and lays out the items.
// With a segment, stateful kernels come from (and go to) it.
Status BuildExecutorItems(const Graph& graph, DeviceBase* device, KernelSegment* segment,
                          ExecutorItems* out);

}  // namespace af
