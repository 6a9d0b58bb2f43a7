// The gradient of a function call (TensorFlow's SymbolicGradient
// convention): the gradient copies the function's body once more, fed by
// the call's inputs, and differentiates that copy. The forward values are
// computed again rather than kept from the call, as TensorFlow's
// SymbolicGradient does; side effects of the copy run only if the
// gradient needs them.
#include "client/function_builder.h"
#include "client/gradients.h"
#include "client/gradients/grad_link.h"
#include "client/op_builder.h"
#include "client/standard_ops.h"
#include "graph/algorithm.h"
#include "graph/function_inlining.h"
#include "graph/function_library.h"
#include "graph/shape_refiner.h"
#include "graph/symbolic_gradient.h"

#include <unordered_set>

namespace af {
namespace grad_link {
void FunctionGrad() {}
}  // namespace grad_link

namespace grad {
namespace {

using Grads = std::vector<Output>;

bool IsDifferentiable(const Output& x) {
  const DataType t = BaseType(x.type());
  return DataTypeIsFloating(t) || DataTypeIsComplex(t);
}

Status CallGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  Graph* graph = s.graph();
  // The index points into this copy; the body copy below may not change
  // the graph's library, but the index must not depend on that.
  const tensorflow::FunctionDefLibrary library = graph->library();
  const FunctionIndex index(library);
  FunctionCall call;
  bool is_call = false;
  AF_RETURN_IF_ERROR(CalledFunction(*op.node(), index, &call, &is_call));
  if (!is_call) return errors::Internal("node '", op.name(), "' calls no function");
  std::vector<TensorRef> inputs;
  for (int i = 0; i < op.num_inputs(); ++i) {
    const Output in = op.input(i);
    inputs.push_back(TensorRef{in.node(), in.index()});
  }
  std::vector<int> added;
  FunctionBodyCopy copy;
  const std::string prefix = s.GetUniqueNameForOp(op.name() + "_forward") + "/";
  Status copied =
      CopyFunctionBody(graph, *call.function, *call.attrs, prefix, op.node()->requested_device(),
                       "the gradient of node '" + op.name() + "'", inputs, {}, &added, &copy);
  if (!copied.ok()) {
    // The user's graph keeps no half-copied body.
    for (int id : added) {
      if (Node* n = graph->FindNodeId(id)) graph->RemoveNode(n);
    }
    return copied;
  }
  std::unordered_set<int> fresh(added.begin(), added.end());
  for (int id : added) {
    if (Node* n = graph->FindNodeId(id)) Graph::WriteInputs(*n, n->mutable_def());
  }
  // Gradient functions read static shapes where they have them.
  std::vector<Node*> order;
  AF_RETURN_IF_ERROR(TopologicalOrder(*graph, &order));
  ShapeRefiner refiner(*graph);
  for (Node* n : order) {
    if (fresh.count(n->id())) AF_RETURN_IF_ERROR(refiner.RefineNode(n));
  }
  std::vector<Output> ys, xs, dys;
  for (size_t i = 0; i < copy.results.size(); ++i) {
    ys.emplace_back(copy.results[i].node, copy.results[i].port);
    dys.push_back(g[i]);
  }
  for (Node* argument : copy.arguments) xs.emplace_back(argument, 0);
  out->assign(xs.size(), NoGradient());
  if (ys.empty()) return s.status();
  // Integer and string arguments (counts, indices, names) get none.
  std::vector<Output> differentiable;
  std::vector<size_t> positions;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (IsDifferentiable(xs[i])) {
      differentiable.push_back(xs[i]);
      positions.push_back(i);
    }
  }
  if (differentiable.empty()) return s.status();
  Grads found;
  AF_RETURN_IF_ERROR(AddSymbolicGradients(s, ys, differentiable, dys, &found));
  for (size_t k = 0; k < positions.size(); ++k) (*out)[positions[k]] = found[k];
  return s.status();
}

REGISTER_GRADIENT_OP("PartitionedCall", CallGrad);
REGISTER_GRADIENT_OP("StatefulPartitionedCall", CallGrad);

// A SymbolicGradient's function (graph/symbolic_gradient.h): in a graph of
// its own, a call of f on placeholders for f's inputs, differentiated with
// placeholders for the gradients of its outputs. The call's gradient is
// CallGrad above, so the forward values are recomputed, as TensorFlow's
// SymbolicGradient does.
Status BuildSymbolicGradient(const tensorflow::FunctionDefLibrary& library,
                             const tensorflow::NameAttrList& f, const DataTypeVector& input_types,
                             const std::string& gradient_name, tensorflow::FunctionDef* gradient) {
  const FunctionIndex index(library);
  const tensorflow::FunctionDef* function = index.Find(f.name());
  if (function == nullptr) {
    return errors::NotFound("SymbolicGradient: no function '", f.name(), "' in the library");
  }
  const auto& signature = function->signature();
  for (const auto& arg : signature.input_arg()) {
    if (!arg.number_attr().empty() || !arg.type_list_attr().empty()) {
      return errors::Unimplemented("SymbolicGradient of '", f.name(), "': argument '", arg.name(),
                                   "' is a list");
    }
  }
  const int num_inputs = signature.input_arg_size();
  const int num_outputs = signature.output_arg_size();
  if (static_cast<int>(input_types.size()) != num_inputs + num_outputs) {
    return errors::InvalidArgument("SymbolicGradient of '", f.name(), "': Tin lists ",
                                   input_types.size(), " types for ", num_inputs, " inputs and ",
                                   num_outputs, " output gradients");
  }
  Scope s = Scope::NewRootScope();
  s.graph()->set_library(library);
  std::vector<Output> xs, dys;
  for (int i = 0; i < num_inputs; ++i) {
    xs.push_back(ops::Placeholder(s.WithOpName("x_" + std::to_string(i)), input_types[i]));
  }
  for (int j = 0; j < num_outputs; ++j) {
    dys.push_back(
        ops::Placeholder(s.WithOpName("dy_" + std::to_string(j)), input_types[num_inputs + j]));
  }
  OpBuilder call(s, signature.is_stateful() ? "StatefulPartitionedCall" : "PartitionedCall",
                 "forward");
  call.AddInputList(OutputList(xs.begin(), xs.end()));
  call.attrs().SetTypeList("Tin", DataTypeVector(input_types.begin(), input_types.begin() + num_inputs));
  call.attrs().SetTypeList("Tout", DataTypeVector(input_types.begin() + num_inputs, input_types.end()));
  tensorflow::AttrValue func;
  *func.mutable_func() = f;
  call.attrs().Set("f", std::move(func));
  if (!call.Finish().valid()) return s.status();
  const OutputList ys = call.OutputsForArg("output");
  // Integers and strings have no gradient; TensorFlow answers zeros.
  std::vector<Output> differentiable;
  for (const Output& x : xs) {
    if (IsDifferentiable(x)) differentiable.push_back(x);
  }
  std::vector<Output> found;
  AF_RETURN_IF_ERROR(AddSymbolicGradients(s, std::vector<Output>(ys.begin(), ys.end()),
                                          differentiable, dys, &found));
  std::vector<Output> dxs;
  std::vector<std::string> names;
  for (int i = 0, k = 0; i < num_inputs; ++i) {
    const bool has = k < static_cast<int>(differentiable.size()) && differentiable[k] == xs[i];
    Output dx = has ? found[k++] : Output();
    // An input that reaches no output has a zero gradient, as TensorFlow's.
    if (!dx.node()) dx = ops::ZerosLike(s.WithOpName("zero_" + std::to_string(i)), xs[i]);
    dxs.push_back(dx);
    names.push_back("dx_" + std::to_string(i));
  }
  std::vector<Output> inputs = xs;
  inputs.insert(inputs.end(), dys.begin(), dys.end());
  AF_RETURN_IF_ERROR(s.status());
  return GraphToFunctionDef(*s.graph(), gradient_name, inputs, dxs, names, gradient);
}

const bool kSymbolicGradientsExpand = [] {
  InstallSymbolicGradientBuilder(BuildSymbolicGradient);
  return true;
}();

}  // namespace
}  // namespace grad
}  // namespace af
