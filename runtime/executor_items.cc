#include "runtime/executor_items.h"

#include "runtime/kernel_segment.h"

#include "core/kernel_registry.h"

namespace af {

namespace {

// Merge's pending count packs "waiting for a live data input" into bit 0
// and the outstanding control inputs above it, so one integer decides when
// a Merge may fire (first live input, or all inputs dead).
int InitialPending(const Node& n) {
  int control = 0, data = 0;
  for (const Edge* e : n.in_edges()) (e->IsControlEdge() ? control : data)++;
  if (n.IsMerge()) return (control << 1) | 1;
  return control + data;
}

}  // namespace

Status BuildExecutorItems(const Graph& graph, DeviceBase* device, KernelSegment* segment,
                          ExecutorItems* out) {
  FrameAnalysis analysis;
  AF_RETURN_IF_ERROR(AnalyzeFrames(graph, &analysis));

  for (size_t f = 0; f < analysis.frames.size(); ++f) {
    auto info = std::make_unique<FrameInfo>();
    info->index = static_cast<int>(f);
    info->name = analysis.frames[f].name;
    info->parallel_iterations = analysis.frames[f].parallel_iterations;
    info->num_enters = analysis.frames[f].num_enters;
    out->frames.push_back(std::move(info));
  }
  for (size_t f = 0; f < analysis.frames.size(); ++f) {
    const int parent = analysis.frames[f].parent;
    if (parent >= 0) out->frames[f]->parent = out->frames[parent].get();
  }

  out->nodes.assign(graph.num_node_ids(), NodeItem{});
  const DeviceType& device_type = device->device_type();
  for (Node* n : graph.nodes()) {
    NodeItem& item = out->nodes[n->id()];
    item.node = n;
    std::shared_ptr<OpKernel> kernel;
    if (segment != nullptr) {
      AF_RETURN_IF_ERROR(segment->FindOrCreate(*n, device, &kernel));
    } else {
      std::unique_ptr<OpKernel> made;
      AF_RETURN_IF_ERROR(
          KernelRegistry::Global()->CreateKernel(device_type, device, n->def(), &made));
      kernel = std::move(made);
    }
    item.kernel = kernel.get();
    item.is_async = kernel->AsAsync() != nullptr;
    item.is_expensive = kernel->IsExpensive();
    out->kernels.push_back(std::move(kernel));

    item.num_inputs = n->num_inputs();
    item.num_outputs = n->num_outputs();
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) continue;
      item.num_data_inputs++;
      if (IsRefType(e->src()->output_type(e->src_output())) &&
          !IsRefType(n->input_type(e->dst_input())))
        item.derefs_ref_inputs = true;
    }
    item.is_merge = n->IsMerge();
    item.is_switch = n->IsSwitch();
    item.is_enter = n->IsEnter();
    item.is_exit = n->IsExit();
    item.is_next_iteration = n->IsNextIteration();
    item.is_control_trigger = n->type_string() == "ControlTrigger";
    item.is_transfer = n->IsSend() || n->IsRecv();
    item.is_root = n->in_edges().empty();
    item.is_noop = n->type_string() == "NoOp" && item.num_outputs == 0;
    if (item.is_enter) {
      bool is_constant = false;
      if (HasNodeAttr(n->def(), "is_constant"))
        AF_RETURN_IF_ERROR(GetNodeAttr(n->def(), "is_constant", &is_constant));
      item.is_constant_enter = is_constant;
      item.child_frame = out->frames[analysis.child_frame_of_enter[n->id()]].get();
    }
    if (n->IsControlFlow()) out->has_control_flow = true;

    FrameInfo* frame = out->frames[analysis.frame_of_node[n->id()]].get();
    item.frame = frame;
    item.pending_id = static_cast<int>(frame->initial_pending.size());
    frame->initial_pending.push_back(InitialPending(*n));
    item.input_start = frame->total_inputs;
    frame->total_inputs += item.num_inputs;
    frame->nodes.push_back(&item);
    if (item.is_root) out->roots.push_back(&item);
  }

  // Out edges: data edges first; mark the last reader of each output so
  // that propagation can move the value instead of sharing it.
  auto edge_to = [&](const Edge* e, int src_output, int dst_input) {
    const NodeItem& dst = out->nodes[e->dst()->id()];
    EdgeItem edge;
    edge.dst_id = e->dst()->id();
    edge.src_output = src_output;
    edge.dst_input = dst_input;
    edge.dst_pending_id = dst.pending_id;
    edge.dst_slot = dst.input_start + (dst_input == kControlSlot ? 0 : dst_input);
    edge.dst_is_merge = dst.is_merge;
    edge.dst_single_input = !dst.is_merge && e->dst()->in_edges().size() == 1;
    return edge;
  };
  std::vector<std::pair<size_t, size_t>> range_of(out->nodes.size(), {0, 0});
  std::vector<EdgeItem>& edges = out->edges;
  for (size_t id = 0; id < out->nodes.size(); ++id) {
    const Node* n = out->nodes[id].node;
    if (n == nullptr) continue;
    const size_t begin = edges.size();
    std::vector<int> last_edge_of_output(n->num_outputs(), -1);
    for (const Edge* e : n->out_edges()) {
      if (e->IsControlEdge()) continue;
      last_edge_of_output[e->src_output()] = static_cast<int>(edges.size());
      edges.push_back(edge_to(e, e->src_output(), e->dst_input()));
    }
    for (int idx : last_edge_of_output)
      if (idx >= 0) edges[idx].last_use = true;
    for (const Edge* e : n->out_edges())
      if (e->IsControlEdge()) edges.push_back(edge_to(e, kControlSlot, kControlSlot));
    range_of[id] = {begin, edges.size() - begin};
  }
  // Spans only once the vector stops growing.
  for (size_t id = 0; id < out->nodes.size(); ++id)
    out->nodes[id].out_edges = std::span<const EdgeItem>(edges.data() + range_of[id].first,
                                                         range_of[id].second);
  return Status::OK();
}

}  // namespace af
