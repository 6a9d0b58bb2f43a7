#include "graph/recv_scheduling.h"

#include <algorithm>
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
  std::vector<const Node*> switches;
  for (const Node* n : graph.nodes())
    if (n->IsSwitch()) switches.push_back(n);
  return ReachableFrom(graph, switches);
}

std::vector<bool> Descendants(const Graph& graph, const Node* from) {
  return ReachableFrom(graph, {from});
}

// The variable or constant whose memory `node` is, through a chain of
// Identity ops, or null: the sender keeps such a tensor for the whole step
// anyway, so holding it there costs nothing. A computed tensor held back
// would only move its memory from the receiver to the sender.
const Node* KeptValueOwner(const Node& node) {
  const Node* n = &node;
  for (int depth = 0; depth < 16; ++depth) {
    if (n->IsVariable() || n->IsConstant()) return n;
    const std::string& op = n->type_string();
    if (op != "Identity" && op != "RefIdentity") return nullptr;
    const Edge* input = nullptr;
    if (!n->input_edge(0, &input).ok() || input == nullptr) return nullptr;
    n = input->src();
  }
  return nullptr;
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
      Node* source = graph_->FindNodeId(std::get<0>(key));
      const int port = std::get<1>(key);
      std::vector<std::vector<const Edge*>> groups = SplitByTime(source, port, consumers);
      // The first group's transfer: held when a trigger fits, else at once.
      const Node* trigger = Trigger(source, port, groups[0], Descendants(*graph_, source));
      Node* first_reader = source;
      if (trigger != nullptr) {
        AF_ASSIGN_OR_RETURN(first_reader, AddHold(source, port, trigger));
        Rewire(groups[0], first_reader, 0);
        ++stats->held;
      }
      // Later groups get their own transfer where that is safe, else read
      // the first one's.
      for (size_t g = 1; g < groups.size(); ++g) {
        bool resent = false;
        AF_RETURN_IF_ERROR(Resend(source, port, groups[g], first_reader,
                                  first_reader == source ? port : 0, &resent));
        stats->resent += resent;
      }
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

  // Source node id, port, receiving device: ids, not pointers, so that
  // plans come out the same every time.
  using TensorKey = std::tuple<int, int, std::string>;

  // Large data edges between processes, grouped as the partitioner will
  // group them: one transfer per (tensor, receiving device).
  std::map<TensorKey, std::vector<const Edge*>> CutTensors() const {
    std::map<TensorKey, std::vector<const Edge*>> cut;
    for (const Edge* e : graph_->edges()) {
      if (e->IsControlEdge()) continue;
      const Node* src = e->src();
      const Node* dst = e->dst();
      const Placement& from = placement_[src->id()];
      const Placement& to = placement_[dst->id()];
      if (!from.valid || !to.valid || SameTask(from.parsed, to.parsed)) continue;
      if (in_loop_[src->id()] || in_loop_[dst->id()]) continue;
      // A reference input cannot cross; a reference output read remotely
      // crosses as its value, and so does the hold's.
      if (IsRefType(dst->input_type(e->dst_input()))) continue;
      if (cost_.OutputBytes(*src, e->src_output()) < options_.min_bytes) continue;
      if (KeptValueOwner(*src) == nullptr) continue;
      cut[TensorKey{src->id(), e->src_output(), to.device}].push_back(e);
    }
    return cut;
  }

  // The node on the first consumer's device to start the transfer after,
  // or null when the tensor should cross at once.
  // `excluded`: nodes that will depend on the transfer (a trigger among
  // them would make a cycle).
  const Node* Trigger(const Node* source, int port, const std::vector<const Edge*>& consumers,
                      const std::vector<bool>& excluded) {
    const Edge* first = *std::min_element(
        consumers.begin(), consumers.end(),
        [this](const Edge* a, const Edge* b) { return start_[a->dst()->id()] < start_[b->dst()->id()]; });
    const Node* consumer = first->dst();
    const double transfer = cost_.TransferMicros(cost_.OutputBytes(*source, port), false);
    const double latest = start_[consumer->id()] - transfer;
    if (latest <= 0) return nullptr;
    const std::vector<bool> upstream = ReachableFrom(*graph_, {consumer}, /*forward=*/false);
    const std::string& device = placement_[consumer->id()].device;
    const Node* best = nullptr;
    for (const Node* n : graph_->nodes()) {
      const int id = n->id();
      if (!upstream[id] || excluded[id] || in_loop_[id] || may_be_dead_[id]) continue;
      if (placement_[id].device != device || finish_[id] > latest || finish_[id] <= 0) continue;
      if (best == nullptr || finish_[id] > finish_[best->id()]) best = n;
    }
    return best;
  }

  // An Identity of source:port on the source's device that waits for
  // `trigger`; the partitioner gives it its own _Send.
  StatusOr<Node*> AddHold(Node* source, int port, const Node* trigger) {
    tensorflow::NodeDef def;
    def.set_name(graph_->NewName(source->name() + "/_recv_hold"));
    def.set_op("Identity");
    def.set_device(placement_[source->id()].device);
    SetAttr(&def, "T", BaseType(source->output_type(port)));
    def.add_input(port == 0 ? source->name() : source->name() + ":" + std::to_string(port));
    def.add_input("^" + trigger->name());
    Node* hold = nullptr;
    AF_RETURN_IF_ERROR(graph_->AddNode(std::move(def), &hold));
    hold->set_assigned_device_name(placement_[source->id()].device);
    if (port < static_cast<int>(source->output_shapes().size()))
      hold->set_output_shapes({source->output_shapes()[port]});
    placement_.push_back(placement_[source->id()]);
    in_loop_.push_back(false);
    may_be_dead_.push_back(false);
    start_.push_back(start_[source->id()]);
    finish_.push_back(finish_[source->id()]);
    AF_VLOG << "recv_scheduling: " << source->name() << ":" << port << " waits for "
            << trigger->name() << " (" << hold->name() << ")";
    graph_->AddEdge(source, port, hold, 0);
    graph_->AddControlEdge(const_cast<Node*>(trigger), hold);
    return hold;
  }

  // The consumers read reader:output instead (a hold's output 0, or the
  // source's own port). Their edges are gone afterwards.
  void Rewire(const std::vector<const Edge*>& consumers, Node* reader, int output) {
    std::vector<Node*> rewired;
    for (const Edge* e : consumers) {
      Node* dst = e->dst();
      const int input = e->dst_input();
      if (e->src() == reader && e->src_output() == output) continue;
      graph_->RemoveEdge(e);
      graph_->AddEdge(reader, output, dst, input);
      rewired.push_back(dst);
    }
    Graph::WriteInputs(*reader, reader->mutable_def());
    for (Node* dst : rewired) Graph::WriteInputs(*dst, dst->mutable_def());
  }

  // The consumers in groups of neighbouring start times: with resending on,
  // a gap longer than two transfers of the tensor (a weight used in the
  // forward pass and again in the backward pass) starts a new group.
  std::vector<std::vector<const Edge*>> SplitByTime(const Node* source, int port,
                                                    std::vector<const Edge*> consumers) const {
    std::stable_sort(consumers.begin(), consumers.end(), [this](const Edge* a, const Edge* b) {
      return start_[a->dst()->id()] < start_[b->dst()->id()];
    });
    std::vector<std::vector<const Edge*>> groups{{consumers[0]}};
    const double gap = 2 * cost_.TransferMicros(cost_.OutputBytes(*source, port), false);
    for (size_t i = 1; i < consumers.size(); ++i) {
      if (options_.resend &&
          start_[consumers[i]->dst()->id()] - start_[consumers[i - 1]->dst()->id()] > gap) {
        groups.emplace_back();
      }
      groups.back().push_back(consumers[i]);
    }
    return groups;
  }

  // The nodes that may write the source's buffer in place: every op with a
  // reference input from the variable the source reads. False when that
  // cannot be known (references passed on through other ops).
  bool Writers(const Node* source, std::vector<Node*>* writers) const {
    const Node* n = KeptValueOwner(*source);
    if (n == nullptr) return false;
    if (n->IsConstant()) return true;
    if (n->type_string() == "VarHandleOp") return false;
    for (const Edge* e : n->out_edges()) {
      if (e->IsControlEdge() || !IsRefType(e->dst()->input_type(e->dst_input()))) continue;
      if (e->dst()->IsControlFlow() || e->dst()->type_string() == "RefIdentity") return false;
      writers->push_back(e->dst());
    }
    return true;
  }

  // Sends source:port a second time for a later group of consumers, held
  // until its own trigger. The value must be the one the first group saw,
  // so every writer of the variable waits for the group's consumers. Where
  // no trigger fits, the writers are not known, or those edges would make
  // a cycle, the group reads fallback:fallback_port (the first transfer)
  // and `*resent` is false.
  Status Resend(Node* source, int port, const std::vector<const Edge*>& group, Node* fallback,
                int fallback_port, bool* resent) {
    *resent = false;
    const Node* trigger = nullptr;
    std::vector<Node*> writers;
    if (Writers(source, &writers)) {
      std::vector<bool> downstream(graph_->num_node_ids(), false);
      for (const Edge* e : group) {
        const std::vector<bool> d = Descendants(*graph_, e->dst());
        for (size_t i = 0; i < d.size(); ++i) downstream[i] = downstream[i] || d[i];
      }
      bool writer_downstream = false;
      for (const Node* w : writers) writer_downstream = writer_downstream || downstream[w->id()];
      if (!writer_downstream) trigger = Trigger(source, port, group, downstream);
    }
    if (trigger == nullptr) {
      Rewire(group, fallback, fallback_port);
      return Status::OK();
    }
    std::vector<Node*> consumers;
    for (const Edge* e : group) consumers.push_back(e->dst());
    AF_ASSIGN_OR_RETURN(Node* hold, AddHold(source, port, trigger));
    Rewire(group, hold, 0);
    std::vector<const Edge*> added;
    for (Node* w : writers)
      for (Node* c : consumers) added.push_back(graph_->AddControlEdge(c, w));
    if (!ValidateNoIllegalCycles(*graph_).ok()) {
      for (const Edge* e : added) graph_->RemoveEdge(e);
      std::vector<const Edge*> edges;
      for (const Edge* e : hold->out_edges())
        if (!e->IsControlEdge()) edges.push_back(e);
      Rewire(edges, fallback, fallback_port);
      graph_->RemoveNode(hold);
      return Status::OK();
    }
    for (Node* w : writers) Graph::WriteInputs(*w, w->mutable_def());
    *resent = true;
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
