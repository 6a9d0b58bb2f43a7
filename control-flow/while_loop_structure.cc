#include "control-flow/while_loop_structure.h"

#include "core/node_def_util.h"

namespace af {

namespace {

Status Malformed(const WhileLoopStructure& loop, const Node* n, const std::string& why) {
  return errors::Unimplemented("while loop '", loop.frame_name, "': node '", n->name(), "' (op '",
                               n->type_string(), "') ", why,
                               "; gradients need TensorFlow's loop structure");
}

// Nodes added after the frame analysis (gradients) are not part of the loop.
bool Analyzed(const FrameAnalysis& frames, const Node* n) {
  return n->id() < static_cast<int>(frames.frame_of_node.size());
}

Node* SoleConsumer(const FrameAnalysis& frames, const Node* n, int port,
                   bool (Node::*is)() const) {
  Node* found = nullptr;
  for (const Edge* e : n->out_edges())
    if (e->src_output() == port && Analyzed(frames, e->dst()) && (e->dst()->*is)())
      found = e->dst();
  return found;
}

bool IsIdentity(const Node* n) { return n->type_string() == "Identity"; }

}  // namespace

bool WhileLoopStructure::IsOwnStructure(const Node* n) const {
  if (n == loop_cond) return true;
  for (const WhileLoopVariable& v : variables)
    if (n == v.merge || n == v.switch_node || n == v.next_iteration || n == v.exit) return true;
  return false;
}

const WhileLoopVariable* WhileLoopStructure::VariableOfExit(const Node* exit) const {
  for (const WhileLoopVariable& v : variables)
    if (v.exit == exit) return &v;
  return nullptr;
}

Status FindWhileLoop(const Graph& graph, const FrameAnalysis& frames, int frame,
                     WhileLoopStructure* out) {
  *out = WhileLoopStructure();
  out->frame = frame;
  out->frame_name = frames.frames[frame].name;
  out->parallel_iterations = frames.frames[frame].parallel_iterations;
  for (Node* n : graph.nodes()) {
    if (!Analyzed(frames, n) || !n->IsEnter() || frames.child_frame_of_enter[n->id()] != frame)
      continue;
    bool constant = false;
    if (HasNodeAttr(n->def(), "is_constant"))
      AF_RETURN_IF_ERROR(GetNodeAttr(n->def(), "is_constant", &constant));
    if (constant) {
      out->invariant_enters.push_back(n);
      continue;
    }
    WhileLoopVariable v;
    v.enter = n;
    v.merge = SoleConsumer(frames, n, 0, &Node::IsMerge);
    if (v.merge == nullptr) return Malformed(*out, n, "feeds no Merge");
    for (const Edge* e : v.merge->in_edges())
      if (!e->IsControlEdge() && Analyzed(frames, e->src()) && e->src()->IsNextIteration())
        v.next_iteration = e->src();
    v.switch_node = SoleConsumer(frames, v.merge, 0, &Node::IsSwitch);
    if (v.next_iteration == nullptr || v.switch_node == nullptr)
      return Malformed(*out, v.merge, "lacks its NextIteration or Switch");
    const Edge* pred = nullptr;
    AF_RETURN_IF_ERROR(v.switch_node->input_edge(1, &pred));
    if (!pred->src()->IsLoopCond()) return Malformed(*out, v.switch_node, "is not driven by a LoopCond");
    if (out->loop_cond != nullptr && out->loop_cond != pred->src())
      return Malformed(*out, v.switch_node, "is driven by a second LoopCond");
    out->loop_cond = pred->src();
    for (const Edge* e : v.switch_node->out_edges()) {
      if (e->IsControlEdge() || !Analyzed(frames, e->dst())) continue;
      if (e->src_output() == 0 && e->dst()->IsExit()) v.exit = e->dst();
      if (e->src_output() == 1) {
        if (!IsIdentity(e->dst()) || v.identity != nullptr)
          return Malformed(*out, v.switch_node, "feeds its body other than through one Identity");
        v.identity = e->dst();
      }
    }
    if (v.identity == nullptr) return Malformed(*out, v.switch_node, "has no Identity for its body");
    out->variables.push_back(v);
  }
  if (out->variables.empty())
    return errors::Unimplemented("while loop '", out->frame_name, "' has no loop variable");
  return Status::OK();
}

}  // namespace af
