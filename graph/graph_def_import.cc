// GraphDef -> Graph. Two passes so that inputs may name nodes defined later
// in the GraphDef (TensorFlow writes loops that way), then a cycle check and
// shape inference in topological order.
#include "graph/graph_def_import.h"

#include <optional>
#include <vector>

#include "core/node_def_util.h"
#include "graph/algorithm.h"
#include "graph/shape_refiner.h"

namespace af {

namespace {

std::string NodeLabel(const tensorflow::NodeDef& def) {
  return "node '" + def.name() + "' (op '" + def.op() + "')";
}

bool IsNodeNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-' || c == '/' || c == '>';
}

// TensorFlow's node-name alphabet; ':' and '^' would make input names
// ambiguous, so anything outside it is refused up front.
Status CheckNodeName(const tensorflow::NodeDef& def) {
  const std::string& name = def.name();
  bool ok = !name.empty() && name[0] != '/' && name[0] != '-' && name[0] != '>';
  for (char c : name) ok = ok && IsNodeNameChar(c);
  if (ok) return Status::OK();
  return errors::InvalidArgument(NodeLabel(def), ": invalid node name");
}

// Parses the node's inputs; TensorFlow requires every data input to come
// before the first control input.
Status ParseInputs(const tensorflow::NodeDef& def, std::vector<TensorId>* inputs) {
  inputs->clear();
  bool seen_control = false;
  for (const std::string& input : def.input()) {
    TensorId id;
    Status s = ParseTensorName(input, &id);
    if (!s.ok()) return s.WithContext(NodeLabel(def));
    if (id.is_control()) {
      seen_control = true;
    } else if (seen_control) {
      return errors::InvalidArgument(NodeLabel(def), ": data input '", input,
                                     "' comes after a control input");
    }
    inputs->push_back(std::move(id));
  }
  return Status::OK();
}

bool HasControlEdgeFrom(const Node* dst, const Node* src) {
  for (const Edge* e : dst->in_edges()) {
    if (e->IsControlEdge() && e->src() == src) return true;
  }
  return false;
}

// A ref output may feed a value input (the consumer reads the variable);
// otherwise the types must match exactly.
bool TypesCompatible(DataType produced, DataType expected) {
  return produced == expected || (IsRefType(produced) && BaseType(produced) == expected);
}

Status AddInputEdges(Graph* g, Node* dst, const std::vector<TensorId>& inputs) {
  const tensorflow::NodeDef& def = dst->def();
  int dst_port = 0;
  for (const TensorId& id : inputs) {
    Node* src = g->FindNode(id.node);
    if (src == nullptr) {
      return errors::InvalidArgument(NodeLabel(def), ": input '", id.ToString(),
                                     "' names a node that is not in the graph");
    }
    if (id.is_control()) {
      if (!HasControlEdgeFrom(dst, src)) g->AddControlEdge(src, dst);
      continue;
    }
    if (id.index >= src->num_outputs()) {
      return errors::InvalidArgument(NodeLabel(def), ": input '", id.ToString(),
                                     "' asks for output ", id.index, " of node '", src->name(),
                                     "', which has ", src->num_outputs(), " output(s)");
    }
    if (dst_port >= dst->num_inputs()) {
      return errors::InvalidArgument(NodeLabel(def), ": has more data inputs than the ",
                                     dst->num_inputs(), " its op expects");
    }
    const DataType produced = src->output_type(id.index);
    const DataType expected = dst->input_type(dst_port);
    if (!TypesCompatible(produced, expected)) {
      return errors::InvalidArgument(NodeLabel(def), ": input ", dst_port, " expects ",
                                     DataTypeString(expected), " but '", id.ToString(),
                                     "' produces ", DataTypeString(produced));
    }
    g->AddEdge(src, id.index, dst, dst_port);
    ++dst_port;
  }
  if (dst_port != dst->num_inputs()) {
    return errors::InvalidArgument(NodeLabel(def), ": has ", dst_port,
                                   " data inputs but its op expects ", dst->num_inputs());
  }
  return Status::OK();
}

Status InferAllShapes(const Graph& g, const std::vector<Node*>& order) {
  ShapeRefiner refiner(g);
  for (Node* n : order) AF_RETURN_IF_ERROR(refiner.RefineNode(n));
  return Status::OK();
}

Status ImportInto(const tensorflow::GraphDef& def, Graph* g, const ImportOptions& options) {
  std::vector<Node*> added;
  std::vector<std::vector<TensorId>> inputs(def.node_size());
  added.reserve(def.node_size());
  for (int i = 0; i < def.node_size(); ++i) {
    const tensorflow::NodeDef& node_def = def.node(i);
    AF_RETURN_IF_ERROR(CheckNodeName(node_def));
    AF_RETURN_IF_ERROR(ParseInputs(node_def, &inputs[i]));
    Node* n = nullptr;
    AF_RETURN_IF_ERROR(g->AddNode(node_def, &n));
    added.push_back(n);
  }
  for (int i = 0; i < def.node_size(); ++i) {
    AF_RETURN_IF_ERROR(AddInputEdges(g, added[i], inputs[i]));
  }
  std::vector<Node*> order;
  AF_RETURN_IF_ERROR(TopologicalOrder(*g, &order));
  if (options.infer_shapes) AF_RETURN_IF_ERROR(InferAllShapes(*g, order));
  return Status::OK();
}

}  // namespace

Status ImportGraphDef(const tensorflow::GraphDef& def, Graph* g, const ImportOptions& options) {
  const int first_new_id = g->num_node_ids();
  // Before the nodes: a node may call one of the library's functions by name.
  const tensorflow::FunctionDefLibrary previous_library = g->library();
  g->set_library(def.library());
  Status s = ImportInto(def, g, options);
  if (!s.ok()) {
    // Leave the graph as it was before the call.
    for (int id = first_new_id; id < g->num_node_ids(); ++id) g->RemoveNode(g->FindNodeId(id));
    g->set_library(previous_library);
    return s;
  }
  if (def.has_versions()) g->set_versions(def.versions());
  return Status::OK();
}

}  // namespace af
