#include "graph/recv_scheduling.h"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>
#include <vector>

#include "core/device_name.h"
#include "core/logging.h"
#include "core/node_def_util.h"
#include "graph/algorithm.h"
#include "graph/optimizer_pass.h"

namespace af {
namespace {

struct Placement {
  std::string device;  // full name, "" when unplaced
  DeviceName parsed;
  bool valid = false;
};

bool SameTask(const DeviceName& a, const DeviceName& b) {
  return a.job == b.job && a.replica == b.replica && a.task == b.task;
}

// What may receive a dead tensor: everything downstream of a Switch (the
// Merge that ends a cond is counted too, conservatively).
std::vector<bool> MayBeDead(const Graph& graph) {
  std::vector<bool> dead(graph.num_node_ids(), false);
  std::deque<const Node*> work;
  for (const Node* n : graph.nodes())
    if (n->IsSwitch()) {
      dead[n->id()] = true;
      work.push_back(n);
    }
  while (!work.empty()) {
    const Node* n = work.front();
    work.pop_front();
    for (const Edge* e : n->out_edges()) {
      if (dead[e->dst()->id()]) continue;
      dead[e->dst()->id()] = true;
      work.push_back(e->dst());
    }
  }
  return dead;
}

// Every node reachable from `from` along out-edges (itself included).
std::vector<bool> Descendants(const Graph& graph, const Node* from) {
  std::vector<bool> seen(graph.num_node_ids(), false);
  std::vector<const Node*> stack{from};
  seen[from->id()] = true;
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Edge* e : n->out_edges()) {
      if (seen[e->dst()->id()]) continue;
      seen[e->dst()->id()] = true;
      stack.push_back(e->dst());
    }
  }
  return seen;
}

// Every node `to` depends on (itself excluded).
std::vector<bool> Ancestors(const Graph& graph, const Node* to) {
  std::vector<bool> seen(graph.num_node_ids(), false);
  std::vector<const Node*> stack{to};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Edge* e : n->in_edges()) {
      if (seen[e->src()->id()]) continue;
      seen[e->src()->id()] = true;
      stack.push_back(e->src());
    }
  }
  return seen;
}

// Whether the sender keeps the tensor's memory for the whole step anyway (a
// variable's value, a constant, an Identity of either), so holding it there
// costs nothing. A computed tensor held back would only move its memory
// from the receiver to the sender.
bool KeptBySender(const Node& node) {
  const Node* n = &node;
  for (int depth = 0; depth < 16; ++depth) {
    if (n->IsVariable() || n->IsConstant()) return true;
    const std::string& op = n->type_string();
    if (op != "Identity" && op != "RefIdentity") return false;
    const Edge* input = nullptr;
    if (!n->input_edge(0, &input).ok() || input == nullptr) return false;
    n = input->src();
  }
  return false;
}

class RecvScheduler {
 public:
  RecvScheduler(Graph* graph, const RecvSchedulingOptions& options)
      : graph_(graph),
        options_(options),
        cost_(options.cost_model != nullptr ? *options.cost_model : static_model_) {}

  Status Run(RecvSchedulingStats* stats) {
    AF_RETURN_IF_ERROR(ResolvePlacement());
    AF_RETURN_IF_ERROR(Schedule());
    in_loop_ = NodesInLoops(*graph_);
    may_be_dead_ = MayBeDead(*graph_);
    for (auto& [key, consumers] : CutTensors()) {
      ++stats->candidates;
      bool held = false;
      AF_RETURN_IF_ERROR(Hold(std::get<0>(key), std::get<1>(key), consumers, &held));
      stats->held += held;
    }
    return Status::OK();
  }

 private:
  Status ResolvePlacement() {
    placement_.assign(graph_->num_node_ids(), Placement{});
    for (Node* n : graph_->nodes()) {
      Placement& p = placement_[n->id()];
      const std::string& name =
          n->assigned_device_name().empty() ? n->requested_device() : n->assigned_device_name();
      if (!CanonicalizeDeviceName(name, &p.device).ok()) {
        return errors::InvalidArgument("Cannot schedule the transfers of node '", n->name(),
                                       "' (op ", n->type_string(),
                                       "): it has no full device name ('", name,
                                       "'); place the graph first");
      }
      p.valid = ParseDeviceName(p.device, &p.parsed).ok();
    }
    return Status::OK();
  }

  // As soon as possible, with unlimited parallelism: a node starts when its
  // last input has arrived.
  Status Schedule() {
    std::vector<Node*> order;
    AF_RETURN_IF_ERROR(TopologicalOrder(*graph_, &order));
    start_.assign(graph_->num_node_ids(), 0.0);
    finish_.assign(graph_->num_node_ids(), 0.0);
    for (Node* n : order) {
      const Placement& here = placement_[n->id()];
      double start = 0;
      for (const Edge* e : n->in_edges()) {
        if (e->src()->IsNextIteration()) continue;  // a back edge: not yet timed
        const Placement& there = placement_[e->src()->id()];
        double arrival = finish_[e->src()->id()];
        if (there.device != here.device) {
          const int64_t bytes = e->IsControlEdge() ? 4 : cost_.OutputBytes(*e->src(), e->src_output());
          arrival += cost_.TransferMicros(bytes, there.valid && here.valid &&
                                                     IsSameAddressSpace(there.parsed, here.parsed));
        }
        start = std::max(start, arrival);
      }
      start_[n->id()] = start;
      // Static estimates only: measured compute times beside the model's
      // transfer rate would skew the ratio that places the triggers.
      const double compute =
          cost_.EstimatedFlops(*n) == 0 ? 0.0 : cost_.StaticComputeMicros(*n, here.parsed.type);
      finish_[n->id()] = start + compute;
    }
    return Status::OK();
  }

  using TensorKey = std::tuple<Node*, int, std::string>;  // source, port, receiving device

  // Large data edges between processes, grouped as the partitioner will
  // group them: one transfer per (tensor, receiving device).
  std::map<TensorKey, std::vector<const Edge*>> CutTensors() const {
    std::map<TensorKey, std::vector<const Edge*>> cut;
    for (const Edge* e : graph_->edges()) {
      if (e->IsControlEdge()) continue;
      Node* src = e->src();
      const Node* dst = e->dst();
      const Placement& from = placement_[src->id()];
      const Placement& to = placement_[dst->id()];
      if (!from.valid || !to.valid || SameTask(from.parsed, to.parsed)) continue;
      if (in_loop_[src->id()] || in_loop_[dst->id()]) continue;
      // A reference input cannot cross; a reference output read remotely
      // crosses as its value, and so does the hold's.
      if (IsRefType(dst->input_type(e->dst_input()))) continue;
      if (cost_.OutputBytes(*src, e->src_output()) < options_.min_bytes) continue;
      if (!KeptBySender(*src)) continue;
      cut[TensorKey{src, e->src_output(), to.device}].push_back(e);
    }
    return cut;
  }

  // The node on the first consumer's device to start the transfer after,
  // or null when the tensor should cross at once.
  const Node* Trigger(const Node* source, int port, const std::vector<const Edge*>& consumers) {
    const Edge* first = *std::min_element(
        consumers.begin(), consumers.end(),
        [this](const Edge* a, const Edge* b) { return start_[a->dst()->id()] < start_[b->dst()->id()]; });
    const Node* consumer = first->dst();
    const double transfer = cost_.TransferMicros(cost_.OutputBytes(*source, port), false);
    const double latest = start_[consumer->id()] - transfer;
    if (latest <= 0) return nullptr;
    // Recomputed per tensor: earlier holds added edges.
    const std::vector<bool> downstream = Descendants(*graph_, source);
    const std::vector<bool> upstream = Ancestors(*graph_, consumer);
    const std::string& device = placement_[consumer->id()].device;
    const Node* best = nullptr;
    for (const Node* n : graph_->nodes()) {
      const int id = n->id();
      if (!upstream[id] || downstream[id] || in_loop_[id] || may_be_dead_[id]) continue;
      if (placement_[id].device != device || finish_[id] > latest || finish_[id] <= 0) continue;
      if (best == nullptr || finish_[id] > finish_[best->id()]) best = n;
    }
    return best;
  }

  Status Hold(Node* source, int port, const std::vector<const Edge*>& consumers, bool* held) {
    const Node* trigger = Trigger(source, port, consumers);
    if (trigger == nullptr) return Status::OK();
    tensorflow::NodeDef def;
    def.set_name(graph_->NewName(source->name() + "/_recv_hold"));
    def.set_op("Identity");
    def.set_device(placement_[source->id()].device);
    SetAttr(&def, "T", BaseType(source->output_type(port)));
    def.add_input(port == 0 ? source->name() : source->name() + ":" + std::to_string(port));
    def.add_input("^" + trigger->name());
    Node* hold = nullptr;
    if (Status s = graph_->AddNode(std::move(def), &hold); !s.ok()) return s;
    hold->set_assigned_device_name(placement_[source->id()].device);
    if (port < static_cast<int>(source->output_shapes().size()))
      hold->set_output_shapes({source->output_shapes()[port]});
    placement_.push_back(placement_[source->id()]);
    in_loop_.push_back(false);
    may_be_dead_.push_back(false);
    start_.push_back(start_[source->id()]);
    finish_.push_back(finish_[source->id()]);
    AF_VLOG << "recv_scheduling: " << source->name() << ":" << port << " to "
            << placement_[consumers.front()->dst()->id()].device << " waits for "
            << trigger->name();
    graph_->AddEdge(source, port, hold, 0);
    graph_->AddControlEdge(const_cast<Node*>(trigger), hold);
    std::vector<Node*> rewired;
    for (const Edge* e : consumers) {
      Node* dst = e->dst();
      const int input = e->dst_input();
      graph_->RemoveEdge(e);
      graph_->AddEdge(hold, 0, dst, input);
      rewired.push_back(dst);
    }
    Graph::WriteInputs(*hold, hold->mutable_def());
    for (Node* dst : rewired) Graph::WriteInputs(*dst, dst->mutable_def());
    *held = true;
    return Status::OK();
  }

  Graph* graph_;
  const RecvSchedulingOptions& options_;
  CostModel static_model_;
  const CostModel& cost_;
  std::vector<Placement> placement_;
  std::vector<double> start_, finish_;
  std::vector<bool> in_loop_, may_be_dead_;
};

}  // namespace

Status ScheduleRecvs(Graph* graph, const RecvSchedulingOptions& options,
                     RecvSchedulingStats* stats) {
  *stats = RecvSchedulingStats{};
  return RecvScheduler(graph, options).Run(stats);
}

}  // namespace af
