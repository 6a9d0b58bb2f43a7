#include "graph/symbolic_gradient.h"

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/node_def_util.h"
#include "graph/function_library.h"
#include "graph/node_replacement.h"

namespace af {
namespace {

std::mutex& BuilderMutex() {
  static std::mutex mu;
  return mu;
}

SymbolicGradientBuilder& Builder() {
  static SymbolicGradientBuilder builder;
  return builder;
}

std::string Label(const Node& node) {
  return "node '" + node.name() + "' (" + node.type_string() + ")";
}

Status TypeListAttr(const Node& node, const char* name, DataTypeVector* out) {
  auto it = node.def().attr().find(name);
  if (it == node.def().attr().end() || !it->second.has_list()) {
    return errors::InvalidArgument(Label(node), ": attr '", name, "' is missing");
  }
  for (int t : it->second.list().type()) out->push_back(static_cast<DataType>(t));
  return Status::OK();
}

// A name no function of `library` has yet.
std::string FreshName(const tensorflow::FunctionDefLibrary& library, const std::string& base) {
  const FunctionIndex index(library);
  std::string name = base;
  for (int k = 1; index.Find(name) != nullptr; ++k) name = base + "_" + std::to_string(k);
  return name;
}

Status Expand(Graph* graph, Node* node, const SymbolicGradientBuilder& build) {
  auto f = node->def().attr().find("f");
  if (f == node->def().attr().end() || !f->second.has_func()) {
    return errors::InvalidArgument(Label(*node), ": attr 'f' names no function");
  }
  DataTypeVector tin, tout;
  AF_RETURN_IF_ERROR(TypeListAttr(*node, "Tin", &tin));
  AF_RETURN_IF_ERROR(TypeListAttr(*node, "Tout", &tout));
  tensorflow::FunctionDefLibrary library = graph->library();
  const std::string name = FreshName(library, f->second.func().name() + "_SymbolicGradient");
  tensorflow::FunctionDef gradient;
  Status built = build(library, f->second.func(), tin, name, &gradient);
  if (!built.ok()) return built.WithContext(Label(*node));
  if (gradient.signature().output_arg_size() != static_cast<int>(tout.size())) {
    return errors::InvalidArgument(Label(*node), ": Tout lists ", tout.size(),
                                   " gradients, but function '", f->second.func().name(),
                                   "' has ", gradient.signature().output_arg_size(), " inputs");
  }
  *library.add_function() = gradient;
  graph->set_library(library);

  tensorflow::NodeDef def;
  def.set_name(graph->NewName(node->name() + "/call"));
  def.set_op(gradient.signature().is_stateful() ? "StatefulPartitionedCall" : "PartitionedCall");
  def.set_device(node->requested_device());
  SetAttr(&def, "Tin", tin);
  SetAttr(&def, "Tout", tout);
  (*def.mutable_attr())["f"].mutable_func()->set_name(name);
  const NodeInputs in = InputsOf(*node);
  // Names for AddNode's count check; WriteInputs below spells them out.
  for (const TensorRef& input : in.data) def.add_input(input.node ? input.node->name() : "pending");
  Node* call = nullptr;
  AF_RETURN_IF_ERROR(graph->AddNode(std::move(def), &call));
  for (size_t i = 0; i < in.data.size(); ++i) {
    graph->AddEdge(in.data[i].node, in.data[i].port, call, static_cast<int>(i));
  }
  for (Node* c : in.control) graph->AddControlEdge(c, call);
  Graph::WriteInputs(*call, call->mutable_def());
  std::vector<TensorRef> results;
  for (size_t i = 0; i < tout.size(); ++i) results.push_back({call, static_cast<int>(i)});
  std::vector<int> added;
  AF_RETURN_IF_ERROR(ReplaceNodeByResults(graph, node, results, tout, {}, &added));
  for (int id : added) {
    if (Node* n = graph->FindNodeId(id)) Graph::WriteInputs(*n, n->mutable_def());
  }
  return Status::OK();
}

}  // namespace

void InstallSymbolicGradientBuilder(SymbolicGradientBuilder builder) {
  std::lock_guard<std::mutex> lock(BuilderMutex());
  Builder() = std::move(builder);
}

bool IsSymbolicGradient(const Node& node) { return node.type_string() == "SymbolicGradient"; }

Status ExpandSymbolicGradients(Graph* graph, int* expanded) {
  std::vector<Node*> nodes;
  for (Node* n : graph->nodes()) {
    if (IsSymbolicGradient(*n)) nodes.push_back(n);
  }
  if (expanded != nullptr) *expanded = 0;
  if (nodes.empty()) return Status::OK();
  SymbolicGradientBuilder build;
  {
    std::lock_guard<std::mutex> lock(BuilderMutex());
    build = Builder();
  }
  for (Node* n : nodes) {
    if (!build) {
      return errors::Unimplemented(Label(*n), ": expanding SymbolicGradient needs the gradient "
                                   "registry of the client library, which this program does "
                                   "not link");
    }
    AF_RETURN_IF_ERROR(Expand(graph, n, build));
    if (expanded != nullptr) ++*expanded;
  }
  return Status::OK();
}

}  // namespace af
