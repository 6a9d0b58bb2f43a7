#include "client/function_builder.h"

#include <unordered_map>
#include <unordered_set>

#include "client/op_builder.h"
#include "core/node_def_util.h"
#include "graph/function_library.h"
#include "graph/node_replacement.h"

namespace af {
namespace {

// How the body names output `port` of `node`: "node:out_arg:index".
Status BodyTensorName(const Node& node, int port, std::string* out) {
  const tensorflow::OpDef& op_def = node.op_def();
  for (const auto& arg : op_def.output_arg()) {
    int start = 0, stop = 0;
    AF_RETURN_IF_ERROR(NameRangeForArg(node.def(), op_def, arg.name(), false, &start, &stop));
    if (port >= start && port < stop) {
      *out = node.name() + ":" + arg.name() + ":" + std::to_string(port - start);
      return Status::OK();
    }
  }
  return errors::Internal("node '", node.name(), "' has no output ", port);
}

// Every node of the body's graph but the arguments, in id order.
std::vector<const Node*> BodyNodes(const Graph& body,
                                   const std::unordered_set<const Node*>& arguments) {
  std::vector<const Node*> nodes;
  for (Node* n : body.nodes()) {
    if (!arguments.count(n)) nodes.push_back(n);
  }
  return nodes;
}

}  // namespace

Status GraphToFunctionDef(const Graph& body, const std::string& name,
                          const std::vector<Output>& inputs, const std::vector<Output>& outputs,
                          const std::vector<std::string>& output_names,
                          tensorflow::FunctionDef* out) {
  if (name.empty()) return errors::InvalidArgument("GraphToFunctionDef: the function needs a name");
  if (!output_names.empty() && output_names.size() != outputs.size()) {
    return errors::InvalidArgument("GraphToFunctionDef '", name, "': ", outputs.size(),
                                   " outputs but ", output_names.size(), " output names");
  }
  out->Clear();
  tensorflow::OpDef* signature = out->mutable_signature();
  signature->set_name(name);
  std::unordered_set<const Node*> arguments;
  for (const Output& in : inputs) {
    if (in.node() == nullptr || !in.node()->IsPlaceholder()) {
      return errors::InvalidArgument("GraphToFunctionDef '", name,
                                     "': every input must be a Placeholder");
    }
    arguments.insert(in.node());
    auto* arg = signature->add_input_arg();
    arg->set_name(in.node()->name());
    arg->set_type(static_cast<tensorflow::DataType>(in.node()->output_type(0)));
  }
  auto tensor_name = [&](const Node* node, int port, std::string* text) -> Status {
    if (arguments.count(node)) {
      *text = node->name();
      return Status::OK();
    }
    return BodyTensorName(*node, port, text);
  };
  const std::vector<const Node*> nodes = BodyNodes(body, arguments);
  std::unordered_set<const Node*> waited_for;
  for (const Node* n : nodes) {
    if (n->IsPlaceholder()) {
      return errors::InvalidArgument("GraphToFunctionDef '", name,
                                     "': the body reads placeholder '", n->name(),
                                     "', which is not one of its inputs");
    }
    tensorflow::NodeDef* def = out->add_node_def();
    *def = n->def();
    def->clear_input();
    std::vector<std::string> data(n->num_inputs()), control;
    for (const Edge* e : n->in_edges()) {
      waited_for.insert(e->src());
      if (e->IsControlEdge()) {
        control.push_back("^" + e->src()->name());
      } else {
        AF_RETURN_IF_ERROR(tensor_name(e->src(), e->src_output(), &data[e->dst_input()]));
      }
    }
    for (std::string& in : data) def->add_input(std::move(in));
    for (std::string& in : control) def->add_input(std::move(in));
    if (HasSideEffects(*n)) signature->set_is_stateful(true);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string result =
        output_names.empty() ? "output_" + std::to_string(i) : output_names[i];
    auto* arg = signature->add_output_arg();
    arg->set_name(result);
    arg->set_type(static_cast<tensorflow::DataType>(outputs[i].type()));
    AF_RETURN_IF_ERROR(
        tensor_name(outputs[i].node(), outputs[i].index(), &(*out->mutable_ret())[result]));
    waited_for.insert(outputs[i].node());
  }
  // Callers' shape inference reads the results' shapes from here.
  tensorflow::AttrValue shapes;
  for (const Output& o : outputs) {
    tensorflow::NodeDef carrier;
    SetAttr(&carrier, "shape", o.shape());
    *shapes.mutable_list()->add_shape() = carrier.attr().at("shape").shape();
  }
  (*out->mutable_attr())["_output_shapes"] = shapes;
  for (const Node* n : nodes) {
    if (!HasSideEffects(*n) || waited_for.count(n)) continue;
    signature->add_control_output(n->name());
    (*out->mutable_control_ret())[n->name()] = n->name();
  }
  return Status::OK();
}

Status AddFunctionToLibrary(const Scope& scope, const tensorflow::FunctionDef& function) {
  tensorflow::FunctionDefLibrary library = scope.graph()->library();
  tensorflow::FunctionDefLibrary addition;
  *addition.add_function() = function;
  AF_RETURN_IF_ERROR(MergeFunctionLibrary(addition, &library));
  scope.graph()->set_library(library);
  return Status::OK();
}

std::vector<Output> CallFunction(const Scope& scope, const std::string& name,
                                 const std::vector<Output>& args) {
  if (!scope.ok()) return {};
  const FunctionIndex index(scope.graph()->library());
  const tensorflow::FunctionDef* function = index.Find(name);
  if (function == nullptr) {
    scope.UpdateStatus(errors::NotFound("CallFunction: no function '", name, "' in the library"));
    return {};
  }
  DataTypeVector arg_types, result_types;
  for (const Output& a : args) arg_types.push_back(BaseType(a.type()));
  for (const auto& r : function->signature().output_arg()) {
    result_types.push_back(static_cast<DataType>(r.type()));
  }
  const bool stateful = function->signature().is_stateful();
  OpBuilder b(scope, stateful ? "StatefulPartitionedCall" : "PartitionedCall", name);
  b.AddInputList(OutputList(args.begin(), args.end()));
  b.attrs().SetTypeList("Tin", arg_types);
  b.attrs().SetTypeList("Tout", result_types);
  b.attrs().SetFunc("f", name);
  if (auto shapes = function->attr().find("_output_shapes"); shapes != function->attr().end()) {
    b.attrs().Set("_output_shapes", shapes->second);
  }
  if (!b.Finish().valid()) return {};
  OutputList results = b.OutputsForArg("output");
  return std::vector<Output>(results.begin(), results.end());
}

}  // namespace af
