#include "graph/function_inlining.h"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/node_def_util.h"
#include "graph/algorithm.h"
#include "graph/function_instantiation.h"
#include "graph/function_library.h"
#include "graph/functional_control_flow.h"
#include "graph/shape_refiner.h"
#include "graph/symbolic_gradient.h"

namespace af {
namespace {

bool TypesCompatible(DataType produced, DataType expected) {
  return produced == expected || (IsRefType(produced) && BaseType(produced) == expected);
}

std::string TypeListString(const DataTypeVector& types) {
  std::string out = "(";
  for (size_t i = 0; i < types.size(); ++i) out += (i ? ", " : "") + DataTypeString(types[i]);
  return out + ")";
}

// Copies a function's body into a graph (FunctionBodyCopy says what).
class BodyBuilder {
 public:
  BodyBuilder(Graph* graph, const tensorflow::FunctionDef& function, const AttrMap& attrs,
              std::string prefix, std::string device, std::string label)
      : graph_(graph),
        function_(function),
        call_attrs_(attrs),
        prefix_(std::move(prefix)),
        device_(std::move(device)),
        label_(std::move(label)) {}

  Status Build(const std::vector<TensorRef>& inputs, const std::vector<Node*>& control_inputs,
               std::vector<int>* added, FunctionBodyCopy* out) {
    AF_RETURN_IF_ERROR(InstantiateSignature(function_, call_attrs_, &types_));
    if (inputs.size() != types_.args.size()) {
      return Error("it takes " + std::to_string(types_.args.size()) + " arguments, not " +
                   std::to_string(inputs.size()));
    }
    AF_RETURN_IF_ERROR(AddArguments(inputs, added));
    AF_RETURN_IF_ERROR(AddBody(added));
    AF_RETURN_IF_ERROR(WireBody());
    AF_RETURN_IF_ERROR(GateInputlessNodes(inputs, control_inputs, added));
    AF_RETURN_IF_ERROR(Results(&out->results));
    for (const auto& [name, node_name] : function_.control_ret()) {
      auto it = body_.find(node_name);
      if (it == body_.end()) return Error("control output '" + name + "' names no body node");
      out->control_outputs.push_back(it->second);
    }
    for (const auto& [original, node] : body_order_) {
      if (HasSideEffects(*node) && node->out_edges().empty()) out->control_outputs.push_back(node);
      out->body.push_back(node);
    }
    for (const auto& arg : function_.signature().input_arg()) {
      for (Node* identity : arguments_[arg.name()]) out->arguments.push_back(identity);
    }
    out->result_types = types_.results;
    return Status::OK();
  }

  Status Error(const std::string& what) const {
    return errors::InvalidArgument(label_, " calling function '", function_.signature().name(),
                                   "': ", what);
  }

 private:
  Status AddNode(tensorflow::NodeDef def, Node** out, std::vector<int>* added) {
    if (def.device().empty()) def.set_device(device_);
    Status s = graph_->AddNode(std::move(def), out);
    if (!s.ok()) return Error(std::string(s.message()));
    added->push_back((*out)->id());
    return Status::OK();
  }

  // One Identity per flat argument: the body reads its arguments from them.
  Status AddArguments(const std::vector<TensorRef>& inputs, std::vector<int>* added) {
    int flat = 0;
    for (const auto& arg : function_.signature().input_arg()) {
      int start = 0, stop = 0;
      AF_RETURN_IF_ERROR(
          NameRangeForArg(types_.instance, function_.signature(), arg.name(), true, &start, &stop));
      for (int i = start; i < stop; ++i, ++flat) {
        const TensorRef& source = inputs[flat];
        if (source.node == nullptr) return Error("argument " + std::to_string(flat) + " is unfed");
        if (BaseType(source.node->output_type(source.port)) != types_.args[flat]) {
          return Error("argument " + std::to_string(flat) + " is " +
                       DataTypeString(source.node->output_type(source.port)) + ", not " +
                       DataTypeString(types_.args[flat]));
        }
        tensorflow::NodeDef def;
        def.set_name(graph_->NewName(prefix_ + arg.name() +
                                     (stop - start > 1 ? "_" + std::to_string(i - start) : "")));
        def.set_op("Identity");
        def.add_input(source.node->name());
        SetAttr(&def, "T", types_.args[flat]);
        Node* identity = nullptr;
        AF_RETURN_IF_ERROR(AddNode(std::move(def), &identity, added));
        graph_->AddEdge(source.node, source.port, identity, 0);
        arguments_[arg.name()].push_back(identity);
      }
    }
    return Status::OK();
  }
  Status AddBody(std::vector<int>* added) {
    for (const tensorflow::NodeDef& original : function_.node_def()) {
      if (arguments_.count(original.name()) || body_.count(original.name())) {
        return Error("body node '" + original.name() + "' repeats a name in the function");
      }
      tensorflow::NodeDef def = original;
      def.set_name(graph_->NewName(prefix_ + original.name()));
      AF_RETURN_IF_ERROR(SubstitutePlaceholders(function_, call_attrs_, &def));
      // Each inlined copy of a loop is a loop of its own.
      if (def.op() == "Enter" || def.op() == "RefEnter") {
        auto frame = def.mutable_attr()->find("frame_name");
        if (frame != def.mutable_attr()->end()) frame->second.set_s(prefix_ + frame->second.s());
      }
      Node* node = nullptr;
      AF_RETURN_IF_ERROR(AddNode(std::move(def), &node, added));
      body_[original.name()] = node;
      body_order_.push_back({&original, node});
    }
    return Status::OK();
  }

  // A tensor as the body names it: "arg", "arg:i" (element i of a list
  // argument), "node:out_arg:i" or "node:out_arg" (element 0).
  Status Resolve(const std::string& name, TensorRef* out) const {
    const size_t first = name.find(':');
    const std::string head = name.substr(0, first);
    const std::string rest = first == std::string::npos ? "" : name.substr(first + 1);
    if (auto arg = arguments_.find(head); arg != arguments_.end()) {
      size_t element = 0;
      if (!rest.empty()) {
        if (rest.find_first_not_of("0123456789") != std::string::npos || rest.size() > 6) {
          return Error("body input '" + name + "' is not an argument element");
        }
        element = std::stoul(rest);
      }
      if (element >= arg->second.size()) return Error("body input '" + name + "' is out of range");
      *out = TensorRef{arg->second[element], 0};
      return Status::OK();
    }
    auto node = body_.find(head);
    if (node == body_.end()) {
      return Error("body input '" + name + "' names neither an argument nor a body node");
    }
    if (rest.empty()) {
      *out = TensorRef{node->second, 0};
      return Status::OK();
    }
    const size_t second = rest.find(':');
    const std::string output_arg = rest.substr(0, second);
    int element = 0;
    if (second != std::string::npos) {
      const std::string index = rest.substr(second + 1);
      if (index.empty() || index.size() > 6 ||
          index.find_first_not_of("0123456789") != std::string::npos) {
        return Error("body input '" + name + "' has a malformed output index");
      }
      element = std::stoi(index);
    }
    int start = 0, stop = 0;
    Status s = NameRangeForArg(node->second->def(), node->second->op_def(), output_arg, false,
                               &start, &stop);
    if (!s.ok()) return Error("body input '" + name + "': " + std::string(s.message()));
    if (start + element >= stop) return Error("body input '" + name + "' is out of range");
    *out = TensorRef{node->second, start + element};
    return Status::OK();
  }

  Status WireBody() {
    for (const auto& [original, node] : body_order_) {
      int port = 0;
      for (const std::string& input : original->input()) {
        if (input.starts_with('^')) {
          TensorRef source;
          AF_RETURN_IF_ERROR(Resolve(input.substr(1), &source));
          graph_->AddControlEdge(source.node, node);
          continue;
        }
        TensorRef source;
        AF_RETURN_IF_ERROR(Resolve(input, &source));
        const DataType produced = source.node->output_type(source.port);
        const DataType expected = node->input_type(port);
        if (!TypesCompatible(produced, expected)) {
          return Error("body node '" + original->name() + "' input " + std::to_string(port) +
                       " expects " + DataTypeString(expected) + " but '" + input + "' is " +
                       DataTypeString(produced));
        }
        graph_->AddEdge(source.node, source.port, node, port++);
      }
    }
    return Status::OK();
  }

  // Body nodes with no inputs (constants, variable handles) would otherwise
  // run in the root frame, alive, before the call's control inputs.
  Status GateInputlessNodes(const std::vector<TensorRef>& inputs,
                            const std::vector<Node*>& control_inputs, std::vector<int>* added) {
    std::vector<Node*> inputless;
    for (const auto& [original, node] : body_order_) {
      if (node->in_edges().empty()) inputless.push_back(node);
    }
    if (inputless.empty() || (control_inputs.empty() && inputs.empty())) return Status::OK();
    tensorflow::NodeDef def;
    def.set_name(graph_->NewName(prefix_ + "input_control_node"));
    def.set_op("NoOp");
    Node* gate = nullptr;
    AF_RETURN_IF_ERROR(AddNode(std::move(def), &gate, added));
    for (Node* src : control_inputs) graph_->AddControlEdge(src, gate);
    for (const auto& [name, identities] : arguments_) {
      for (Node* identity : identities) graph_->AddControlEdge(identity, gate);
    }
    for (Node* node : inputless) graph_->AddControlEdge(gate, node);
    return Status::OK();
  }

  Status Results(std::vector<TensorRef>* results) const {
    for (const auto& arg : function_.signature().output_arg()) {
      int start = 0, stop = 0;
      AF_RETURN_IF_ERROR(NameRangeForArg(types_.instance, function_.signature(), arg.name(), false,
                                         &start, &stop));
      if (stop - start != 1) {
        return errors::Unimplemented(label_, ": function '", function_.signature().name(),
                                     "': result '", arg.name(),
                                     "' is a list, which inlining does not support");
      }
      auto ret = function_.ret().find(arg.name());
      if (ret == function_.ret().end()) return Error("result '" + arg.name() + "' has no value");
      TensorRef value;
      AF_RETURN_IF_ERROR(Resolve(ret->second, &value));
      results->push_back(value);
    }
    return Status::OK();
  }

  Graph* graph_;
  const tensorflow::FunctionDef& function_;
  const AttrMap& call_attrs_;
  const std::string prefix_;
  const std::string device_;
  const std::string label_;
  FunctionSignatureTypes types_;
  std::unordered_map<std::string, std::vector<Node*>> arguments_;
  std::unordered_map<std::string, Node*> body_;
  std::vector<std::pair<const tensorflow::NodeDef*, Node*>> body_order_;
};

std::string CallLabel(const Node& call) {
  return "node '" + call.name() + "' (" + call.type_string() + ")";
}

// Replaces one call by a copy of its function's body.
class CallInliner {
 public:
  CallInliner(Graph* graph, Node* call, const FunctionCall& target, int depth)
      : graph_(graph), call_(call), target_(target), depth_(depth) {}

  // `added` gets every node made; `calls` the body nodes that call functions.
  Status Inline(const FunctionIndex& index, std::vector<int>* added, std::vector<Node*>* calls) {
    BodyBuilder builder(graph_, *target_.function, *target_.attrs, call_->name() + "/",
                        call_->requested_device(), CallLabel(*call_));
    if (depth_ > kMaxFunctionCallDepth) {
      return builder.Error("calls nest deeper than " + std::to_string(kMaxFunctionCallDepth) +
                           " levels (a recursive function?)");
    }
    const NodeInputs in = InputsOf(*call_);
    FunctionBodyCopy copy;
    AF_RETURN_IF_ERROR(builder.Build(in.data, in.control, added, &copy));
    if (call_->output_types() != copy.result_types) {
      return builder.Error("the call expects results " + TypeListString(call_->output_types()) +
                           " but the function returns " + TypeListString(copy.result_types));
    }
    // The call's name now stands for the body's results.
    AF_RETURN_IF_ERROR(ReplaceNodeByResults(graph_, call_, copy.results, copy.result_types,
                                            copy.control_outputs, added));
    call_ = nullptr;
    for (Node* node : copy.body) {
      FunctionCall nested;
      bool is_call = false;
      AF_RETURN_IF_ERROR(CalledFunction(*node, index, &nested, &is_call));
      if (is_call || IsFunctionalControlFlow(*node)) calls->push_back(node);
    }
    return Status::OK();
  }

 private:
  Graph* graph_;
  Node* call_;
  const FunctionCall& target_;
  const int depth_;
};

}  // namespace

Status CopyFunctionBody(Graph* graph, const tensorflow::FunctionDef& function, const AttrMap& attrs,
                        const std::string& prefix, const std::string& device,
                        const std::string& label, const std::vector<TensorRef>& inputs,
                        const std::vector<Node*>& control_inputs, std::vector<int>* added,
                        FunctionBodyCopy* out) {
  BodyBuilder builder(graph, function, attrs, prefix, device, label);
  return builder.Build(inputs, control_inputs, added, out);
}

bool HasFunctionCalls(const Graph& graph) {
  const FunctionIndex index(graph.library());
  for (Node* n : graph.nodes()) {
    FunctionCall call;
    bool is_call = false;
    if (CalledFunction(*n, index, &call, &is_call).ok() && is_call) return true;
    if (IsFunctionalControlFlow(*n) || IsSymbolicGradient(*n)) return true;
    // A call of a missing function still needs InlineFunctionCalls' error.
    if (IsFunctionCallOp(n->type_string())) return true;
  }
  return false;
}

namespace {

Status InlineFunctionCallsOnce(Graph* graph, InlineStats* stats);

bool HasSymbolicGradients(const Graph& graph) {
  for (Node* n : graph.nodes()) {
    if (IsSymbolicGradient(*n)) return true;
  }
  return false;
}

}  // namespace

// A SymbolicGradient becomes a call of a new library function first; one
// inside a function body appears only once that body is inlined, so
// expansion and inlining alternate until neither is left.
Status InlineFunctionCalls(Graph* graph, InlineStats* stats) {
  for (int round = 0; round < kMaxFunctionCallDepth; ++round) {
    int expanded = 0;
    AF_RETURN_IF_ERROR(ExpandSymbolicGradients(graph, &expanded));
    AF_RETURN_IF_ERROR(InlineFunctionCallsOnce(graph, stats));
    if (!HasSymbolicGradients(*graph)) return Status::OK();
  }
  return errors::InvalidArgument("SymbolicGradient nodes nested deeper than ",
                                 kMaxFunctionCallDepth, " levels of gradient functions");
}

namespace {

Status InlineFunctionCallsOnce(Graph* graph, InlineStats* stats) {
  // The library is copied: AddNode may not change it, but the index must
  // not depend on that.
  const tensorflow::FunctionDefLibrary library = graph->library();
  const FunctionIndex index(library);
  std::vector<std::pair<Node*, int>> pending;
  for (Node* n : graph->nodes()) {
    FunctionCall call;
    bool is_call = false;
    AF_RETURN_IF_ERROR(CalledFunction(*n, index, &call, &is_call));
    if (is_call || IsFunctionalControlFlow(*n)) pending.push_back({n, 1});
  }
  // Ids: a nested call's node is gone once it is inlined in turn.
  std::vector<int> added;
  int inlined = 0;
  while (!pending.empty()) {
    auto [node, depth] = pending.back();
    pending.pop_back();
    std::vector<Node*> nested;
    if (IsFunctionalControlFlow(*node)) {
      AF_RETURN_IF_ERROR(LowerFunctionalControlFlow(graph, node, &added, &nested));
    } else {
      FunctionCall call;
      bool is_call = false;
      AF_RETURN_IF_ERROR(CalledFunction(*node, index, &call, &is_call));
      CallInliner inliner(graph, node, call, depth);
      AF_RETURN_IF_ERROR(inliner.Inline(index, &added, &nested));
    }
    ++inlined;
    // Depth alone does not bound a function that calls itself twice.
    if (graph->num_nodes() > kMaxInlinedGraphNodes) {
      return errors::ResourceExhausted("inlining function calls made the step's graph exceed ",
                                       kMaxInlinedGraphNodes, " nodes (a recursive function?)");
    }
    for (Node* n : nested) pending.push_back({n, depth + 1});
  }
  if (inlined == 0) return Status::OK();
  // Inputs as names, then shapes, now that every edge is in place.
  std::vector<Node*> order;
  AF_RETURN_IF_ERROR(TopologicalOrder(*graph, &order));
  for (int id : added) {
    if (Node* n = graph->FindNodeId(id)) Graph::WriteInputs(*n, n->mutable_def());
  }
  ShapeRefiner refiner(*graph);
  for (Node* n : order) AF_RETURN_IF_ERROR(refiner.RefineNode(n));
  if (stats != nullptr) {
    stats->calls_inlined += inlined;
    stats->nodes_added += static_cast<int>(added.size()) - inlined;
  }
  return Status::OK();
}

}  // namespace
}  // namespace af
