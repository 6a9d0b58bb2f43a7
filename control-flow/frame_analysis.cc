#include "control-flow/frame_analysis.h"

#include <deque>
#include <map>

#include "core/node_def_util.h"

namespace af {

namespace {

Status FrameNameOf(const Node& enter, std::string* name, int* parallel_iterations) {
  Status s = GetNodeAttr(enter.def(), "frame_name", name);
  if (!s.ok()) return s;
  int64_t p = 10;
  if (HasNodeAttr(enter.def(), "parallel_iterations")) {
    s = GetNodeAttr(enter.def(), "parallel_iterations", &p);
    if (!s.ok()) return s;
  }
  if (p < 1)
    return errors::InvalidArgument("node '", enter.name(), "' (op '", enter.type_string(),
                                   "'): parallel_iterations must be at least 1, got ", p);
  *parallel_iterations = static_cast<int>(p);
  return Status::OK();
}

// The NextIteration -> Merge edge closes a loop; it is the only edge the
// frame computation may look past, since the graph importer accepts cycles
// only through NextIteration.
bool IsBackEdge(const Edge& e) { return e.src()->IsNextIteration() && e.dst()->IsMerge(); }

class FrameBuilder {
 public:
  FrameBuilder(const Graph& graph, FrameAnalysis* out) : graph_(graph), out_(out) {}

  Status Run() {
    out_->frames.clear();
    out_->frames.push_back(FrameDesc{});  // the root frame
    depth_.assign(1, 0);
    out_->frame_of_node.assign(graph_.num_node_ids(), -1);
    out_->child_frame_of_enter.assign(graph_.num_node_ids(), -1);
    out_frame_.assign(graph_.num_node_ids(), -1);
    MarkLoopNodes();
    AF_RETURN_IF_ERROR(Propagate());
    // Enters disagreeing on a frame's parent make everything downstream
    // look misplaced, so they are reported before the edges; an Exit with no
    // loop is more often the consequence of a misplaced input than a cause.
    if (!enter_error_.ok()) return enter_error_;
    PlaceNextIterations();
    AF_RETURN_IF_ERROR(CheckEdges());
    AF_RETURN_IF_ERROR(CheckRetvals());
    if (!exit_error_.ok()) return exit_error_;
    for (Node* n : graph_.nodes()) {
      const int f = out_->frame_of_node[n->id()];
      if (f < 0)
        return errors::InvalidArgument(
            "node '", n->name(), "' (op '", n->type_string(),
            "') is unreachable from the graph's inputs: it can only be reached through a "
            "loop back edge (NextIteration -> Merge), so its loop has no Enter");
      out_->frames[f].nodes.push_back(n->id());
    }
    return Status::OK();
  }

 private:
  std::string FrameLabel(int f) const {
    if (f == 0) return "the root frame";
    return "frame '" + out_->frames[f].name + "'";
  }

  std::string NodeLabel(const Node& n) const {
    return "node '" + n.name() + "' (op '" + n.type_string() + "') in " +
           FrameLabel(out_->frame_of_node[n.id()]);
  }

  bool IsAncestor(int ancestor, int f) const {
    for (; f >= 0; f = out_->frames[f].parent)
      if (f == ancestor) return true;
    return false;
  }

  // Nodes that flow into a NextIteration or LoopCond without crossing an
  // Enter or Exit belong to a loop body or condition, and the Enter beside
  // that loop's Merge names the loop. When a node's inputs disagree on the
  // frame, this says which side is the mistake: a loop node fed from
  // outside lacks an Enter, anything else fed from inside a loop lacks an
  // Exit, and a loop node fed from a sibling loop belongs to its own.
  void MarkLoopNodes() {
    in_loop_.assign(graph_.num_node_ids(), false);
    home_.assign(graph_.num_node_ids(), std::string());
    auto loop_of_merge = [](const Node& merge) {
      std::string name;
      for (const Edge* e : merge.in_edges())
        if (!e->IsControlEdge() && e->src()->IsEnter() &&
            GetNodeAttr(e->src()->def(), "frame_name", &name).ok())
          return name;
      return std::string();
    };
    std::deque<const Node*> queue;
    for (Node* n : graph_.nodes()) {
      if (!n->IsNextIteration() && !n->IsLoopCond()) continue;
      for (const Edge* e : n->out_edges()) {
        const Node* merge = e->dst();
        if (n->IsLoopCond() && e->dst()->IsSwitch()) {
          const Edge* data = nullptr;
          if (!e->dst()->input_edge(0, &data).ok()) continue;
          merge = data->src();
        }
        if (!merge->IsMerge()) continue;
        home_[n->id()] = loop_of_merge(*merge);
        if (!home_[n->id()].empty()) break;
      }
      in_loop_[n->id()] = true;
      queue.push_back(n);
    }
    while (!queue.empty()) {
      const Node* n = queue.front();
      queue.pop_front();
      for (const Edge* e : n->in_edges()) {
        const Node* src = e->src();
        if (src->IsEnter() || src->IsExit() || in_loop_[src->id()]) continue;
        in_loop_[src->id()] = true;
        home_[src->id()] = home_[n->id()];
        queue.push_back(src);
      }
    }
  }

  // A node's frame follows from the frames its producers' outputs are in.
  // Data inputs outrank control inputs; on disagreement a loop node takes
  // its own loop's frame if offered, else the deepest, and any other node
  // the shallowest (see MarkLoopNodes).
  // The disagreeing edge itself is reported by CheckEdges.
  int ChooseFrame(const Node& n) const {
    int chosen = -1;
    for (bool data : {true, false}) {
      for (const Edge* e : n.in_edges()) {
        if (IsBackEdge(*e) || e->IsControlEdge() == data) continue;
        const int f = out_frame_[e->src()->id()];
        if (chosen < 0) {
          chosen = f;
        } else if (f != chosen && !IsHome(n, chosen)) {
          const bool deeper = depth_[f] > depth_[chosen];
          const bool shallower = depth_[f] < depth_[chosen];
          if (IsHome(n, f) || (in_loop_[n.id()] && deeper) || (!in_loop_[n.id()] && shallower))
            chosen = f;
        }
      }
      if (chosen >= 0) return chosen;
    }
    return 0;
  }

  bool IsHome(const Node& n, int f) const {
    return f > 0 && !home_[n.id()].empty() && out_->frames[f].name == home_[n.id()];
  }

  // Topological order over everything but back edges, so that every
  // producer's frame is known before its consumer picks one.
  Status Propagate() {
    std::vector<int> pending(graph_.num_node_ids(), 0);
    std::deque<Node*> ready;
    for (Node* n : graph_.nodes()) {
      for (const Edge* e : n->in_edges())
        if (!IsBackEdge(*e)) ++pending[n->id()];
      if (n->in_edges().empty()) {
        out_->frame_of_node[n->id()] = 0;
        ready.push_back(n);
      }
    }
    while (!ready.empty()) {
      Node* n = ready.front();
      ready.pop_front();
      AF_RETURN_IF_ERROR(SetOutputFrame(*n));
      for (const Edge* e : n->out_edges()) {
        if (IsBackEdge(*e)) continue;
        Node* dst = e->dst();
        if (--pending[dst->id()] == 0) {
          out_->frame_of_node[dst->id()] = ChooseFrame(*dst);
          ready.push_back(dst);
        }
      }
    }
    return Status::OK();
  }

  Status SetOutputFrame(const Node& n) {
    const int frame = out_->frame_of_node[n.id()];
    int out_frame = frame;
    if (n.IsEnter()) {
      std::string name;
      int parallel = 10;
      AF_RETURN_IF_ERROR(FrameNameOf(n, &name, &parallel));
      auto it = frame_by_name_.find(name);
      if (it == frame_by_name_.end()) {
        FrameDesc desc;
        desc.name = name;
        desc.parent = frame;
        desc.parallel_iterations = parallel;
        out_->frames.push_back(desc);
        depth_.push_back(depth_[frame] + 1);
        first_enter_.push_back(&n);
        it = frame_by_name_.emplace(name, static_cast<int>(out_->frames.size()) - 1).first;
      } else if (out_->frames[it->second].parent != frame && enter_error_.ok()) {
        const Node& first = *first_enter_[it->second - 1];
        enter_error_ = errors::InvalidArgument(
            NodeLabel(n), " enters frame '", name, "' from ", FrameLabel(frame), ", but ",
            NodeLabel(first), " enters it from ", FrameLabel(out_->frames[it->second].parent),
            ": all Enter nodes of one while loop must enter it from the same parent frame "
            "(the frame the while loop was built in)");
      }
      out_frame = it->second;
      out_->child_frame_of_enter[n.id()] = out_frame;
      out_->frames[out_frame].num_enters++;
    } else if (n.IsExit()) {
      if (frame == 0) {
        if (exit_error_.ok()) {
          std::string from = "it has no input";
          for (const Edge* e : n.in_edges()) {
            from = "its input comes from " + NodeLabel(*e->src());
            if (!e->IsControlEdge()) break;
          }
          exit_error_ = errors::InvalidArgument(
              NodeLabel(n), " has no while loop to exit (", from,
              "): an Exit node must be fed from inside a loop, i.e. downstream of that "
              "loop's Enter nodes");
        }
      } else {
        out_frame = out_->frames[frame].parent;
      }
    }
    out_frame_[n.id()] = out_frame;
    return Status::OK();
  }

  // A NextIteration belongs to the loop it feeds back into, whatever its
  // input says: that way a NextIteration fed from the wrong frame is
  // reported at its input rather than at the Merge.
  void PlaceNextIterations() {
    for (Node* n : graph_.nodes()) {
      if (!n->IsNextIteration()) continue;
      for (const Edge* e : n->out_edges()) {
        const int f = out_->frame_of_node[e->dst()->id()];
        if (!IsBackEdge(*e) || f < 0) continue;
        out_->frame_of_node[n->id()] = f;
        out_frame_[n->id()] = f;
        break;
      }
    }
  }

  Status CheckEdges() const {
    for (Node* dst : graph_.nodes()) {
      const int dst_frame = out_->frame_of_node[dst->id()];
      if (dst_frame < 0) continue;
      for (const Edge* e : dst->in_edges()) {
        const Node& src = *e->src();
        const int src_out = out_frame_[src.id()];
        if (src_out < 0 || src_out == dst_frame) continue;
        return EdgeError(*e, src_out, dst_frame);
      }
    }
    return Status::OK();
  }

  // A fetch (or function result) of a tensor that lives in a loop would be
  // written once per iteration; its _Retval then sits in the loop frame with
  // no edge to disagree, so it is caught here.
  Status CheckRetvals() const {
    for (Node* n : graph_.nodes()) {
      const int f = out_->frame_of_node[n->id()];
      if (n->type_string() != "_Retval" || f <= 0) continue;
      std::string producer = "its input";
      for (const Edge* e : n->in_edges()) {
        if (e->IsControlEdge()) continue;
        producer = NodeLabel(*e->src());
        if (e->src()->IsEnter()) producer += ", whose output is in " + FrameLabel(f);
        break;
      }
      return errors::InvalidArgument(
          NodeLabel(*n), " fetches (returns) the output of ", producer,
          ": a tensor inside a while loop cannot be fetched, since it takes a value every "
          "iteration; fetch a loop output (an Exit node) instead");
    }
    return Status::OK();
  }

  Status EdgeError(const Edge& e, int src_out, int dst_frame) const {
    const Node& src = *e.src();
    const Node& dst = *e.dst();
    const bool control = e.IsControlEdge();
    std::string producer = NodeLabel(src);
    if (src.IsEnter() || src.IsExit())
      producer += ", whose output is in " + FrameLabel(src_out);
    std::string why;
    if (IsAncestor(dst_frame, src_out)) {
      why = control ? "a control dependency cannot leave a while loop except through an Exit "
                      "node: depend on the loop's Exit instead"
                    : "a value computed inside a while loop leaves it only through an Exit "
                      "node: use the loop's output (its Exit) instead";
    } else if (IsAncestor(src_out, dst_frame)) {
      why = control ? "a control dependency cannot cross into a while loop: enter the loop "
                      "through an Enter node (or depend on a value computed inside the loop)"
                    : "a value from outside a while loop enters it only through an Enter node "
                      "(TensorFlow adds one, with is_constant true, for each tensor a loop "
                      "body captures)";
    } else {
      why = "these are different while loops: a value passes from one to the other only by "
            "leaving through an Exit node and entering through an Enter node";
    }
    if (dst.IsNextIteration())
      why = "a NextIteration must be fed from the same loop it feeds back into; " + why;
    return errors::InvalidArgument(NodeLabel(dst), " has a ", control ? "control" : "data",
                                   " input from ", producer, ": ", why);
  }

  const Graph& graph_;
  FrameAnalysis* out_;
  std::map<std::string, int> frame_by_name_;
  std::vector<int> depth_;                 // by frame
  std::vector<const Node*> first_enter_;   // by frame - 1
  std::vector<int> out_frame_;             // by node id: the frame its outputs are in
  std::vector<bool> in_loop_;              // by node id; see MarkLoopNodes
  std::vector<std::string> home_;          // by node id: its loop's frame name, if known
  // Found while propagating, reported once all frames are known (see Run).
  Status enter_error_, exit_error_;
};

}  // namespace

Status AnalyzeFrames(const Graph& graph, FrameAnalysis* out) {
  return FrameBuilder(graph, out).Run();
}

Status ValidateFrames(const Graph& graph) {
  FrameAnalysis analysis;
  AF_RETURN_IF_ERROR(AnalyzeFrames(graph, &analysis));
  std::vector<const Node*> next_iteration(analysis.frames.size(), nullptr);
  std::vector<bool> has_loop_cond(analysis.frames.size(), false);
  for (Node* n : graph.nodes()) {
    const int f = analysis.frame_of_node[n->id()];
    if (n->IsLoopCond()) has_loop_cond[f] = true;
    if (n->IsNextIteration() && next_iteration[f] == nullptr) next_iteration[f] = n;
  }
  for (size_t f = 0; f < analysis.frames.size(); ++f) {
    const Node* n = next_iteration[f];
    if (n == nullptr || has_loop_cond[f]) continue;
    const std::string where =
        f == 0 ? std::string("the root frame") : "frame '" + analysis.frames[f].name + "'";
    return errors::InvalidArgument(
        "node '", n->name(), "' (op '", n->type_string(), "') in ", where,
        " feeds back into a loop that has no LoopCond node: the loop's Switch nodes must take "
        "their predicate from a LoopCond in the same frame, or the loop cannot stop");
  }
  return Status::OK();
}

}  // namespace af
