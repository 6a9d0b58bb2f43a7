#include "graph/node_replacement.h"

#include <string>

#include "core/node_def_util.h"

namespace af {
namespace {

struct OutEdge {
  Node* dst = nullptr;
  int src_output = 0;
  int dst_input = 0;
};

}  // namespace

NodeInputs InputsOf(const Node& node) {
  NodeInputs in;
  in.data.assign(node.num_inputs(), TensorRef{});
  for (const Edge* e : node.in_edges()) {
    if (e->IsControlEdge()) {
      in.control.push_back(e->src());
    } else {
      in.data[e->dst_input()] = TensorRef{e->src(), e->src_output()};
    }
  }
  return in;
}

bool HasSideEffects(const Node& node) {
  if (node.IsStateful()) return true;
  for (DataType t : node.input_types()) {
    if (IsRefType(t) || t == DT_RESOURCE) return true;
  }
  return false;
}

Status ReplaceNodeByResults(Graph* graph, Node* node, const std::vector<TensorRef>& results,
                            const DataTypeVector& types, const std::vector<Node*>& control_outputs,
                            std::vector<int>* added) {
  const std::string label = "node '" + node->name() + "' (" + node->type_string() + ")";
  if (node->output_types() != types || results.size() != types.size()) {
    return errors::Internal(label, ": its replacement has ", results.size(), " results for its ",
                            node->num_outputs(), " outputs");
  }
  std::vector<OutEdge> out_edges;
  for (const Edge* e : node->out_edges()) {
    out_edges.push_back(OutEdge{e->dst(), e->src_output(), e->dst_input()});
  }
  const std::string assigned = node->assigned_device_name();
  tensorflow::NodeDef def;
  def.set_name(node->name());
  def.set_device(node->requested_device());
  if (results.empty()) {
    def.set_op("NoOp");
  } else {
    def.set_op("IdentityN");
    for (const TensorRef& r : results) def.add_input(r.node->name());
    SetAttr(&def, "T", types);
  }
  graph->RemoveNode(node);
  Node* replacement = nullptr;
  Status s = graph->AddNode(std::move(def), &replacement);
  if (!s.ok()) return s.WithContext(label);
  added->push_back(replacement->id());
  if (!assigned.empty()) replacement->set_assigned_device_name(assigned);
  for (size_t i = 0; i < results.size(); ++i) {
    graph->AddEdge(results[i].node, results[i].port, replacement, static_cast<int>(i));
  }
  for (Node* n : control_outputs) graph->AddControlEdge(n, replacement);
  for (const OutEdge& e : out_edges) {
    if (e.src_output == kControlSlot) {
      graph->AddControlEdge(replacement, e.dst);
    } else {
      graph->AddEdge(replacement, e.src_output, e.dst, e.dst_input);
    }
  }
  for (const OutEdge& e : out_edges) Graph::WriteInputs(*e.dst, e.dst->mutable_def());
  return Status::OK();
}

}  // namespace af
