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

}  // namespace

Status AnalyzeFrames(const Graph& graph, FrameAnalysis* out) {
  out->frames.clear();
  out->frames.push_back(FrameDesc{});  // the root frame
  out->frame_of_node.assign(graph.num_node_ids(), -1);
  out->child_frame_of_enter.assign(graph.num_node_ids(), -1);
  std::map<std::string, int> frame_by_name;

  std::deque<Node*> queue;
  for (Node* n : graph.nodes()) {
    if (n->in_edges().empty()) {
      out->frame_of_node[n->id()] = 0;
      queue.push_back(n);
    }
  }

  // Breadth-first from the roots: a node's frame follows from its producer.
  while (!queue.empty()) {
    Node* n = queue.front();
    queue.pop_front();
    const int frame = out->frame_of_node[n->id()];
    int out_frame = frame;
    if (n->IsEnter()) {
      std::string name;
      int parallel = 10;
      AF_RETURN_IF_ERROR(FrameNameOf(*n, &name, &parallel));
      auto it = frame_by_name.find(name);
      if (it == frame_by_name.end()) {
        FrameDesc desc;
        desc.name = name;
        desc.parent = frame;
        desc.parallel_iterations = parallel;
        out->frames.push_back(desc);
        it = frame_by_name.emplace(name, static_cast<int>(out->frames.size()) - 1).first;
      } else if (out->frames[it->second].parent != frame) {
        return errors::InvalidArgument(
            "node '", n->name(), "' (op 'Enter') enters frame '", name,
            "' from frame '", out->frames[frame].name, "', but other Enter nodes enter it from '",
            out->frames[out->frames[it->second].parent].name, "'");
      }
      out_frame = it->second;
      out->child_frame_of_enter[n->id()] = out_frame;
      out->frames[out_frame].num_enters++;
    } else if (n->IsExit()) {
      if (frame == 0)
        return errors::InvalidArgument("node '", n->name(), "' (op '", n->type_string(),
                                       "') exits the root frame: it has no matching Enter");
      out_frame = out->frames[frame].parent;
    }
    for (const Edge* e : n->out_edges()) {
      Node* dst = e->dst();
      int& dst_frame = out->frame_of_node[dst->id()];
      if (dst_frame == -1) {
        dst_frame = out_frame;
        queue.push_back(dst);
      } else if (dst_frame != out_frame) {
        return errors::InvalidArgument(
            "node '", dst->name(), "' (op '", dst->type_string(), "') is reached from frame '",
            out->frames[out_frame].name, "' (through '", n->name(), "') and from frame '",
            out->frames[dst_frame].name, "'; a node must live in exactly one loop frame");
      }
    }
  }

  for (Node* n : graph.nodes()) {
    const int f = out->frame_of_node[n->id()];
    if (f < 0)
      return errors::InvalidArgument("node '", n->name(), "' (op '", n->type_string(),
                                     "') is unreachable from the graph's inputs: it can only "
                                     "be reached through a loop back edge");
    out->frames[f].nodes.push_back(n->id());
  }
  return Status::OK();
}

}  // namespace af
