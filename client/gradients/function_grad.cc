// The gradient of a function call (TensorFlow's SymbolicGradient
// convention): the gradient copies the function's body once more, fed by
// the call's inputs, and differentiates that copy. The forward values are
// computed again rather than kept from the call, as TensorFlow's
// SymbolicGradient does; side effects of the copy run only if the
// gradient needs them.
#include "client/gradients.h"
#include "client/gradients/grad_link.h"
#include "graph/algorithm.h"
#include "graph/function_inlining.h"
#include "graph/function_library.h"
#include "graph/shape_refiner.h"

#include <unordered_set>

namespace af {
namespace grad_link {
void FunctionGrad() {}
}  // namespace grad_link

namespace grad {
namespace {

using Grads = std::vector<Output>;

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
  if (ys.empty()) {
    for (size_t i = 0; i < xs.size(); ++i) out->push_back(NoGradient());
    return s.status();
  }
  AF_RETURN_IF_ERROR(AddSymbolicGradients(s, ys, xs, dys, out));
  return s.status();
}

REGISTER_GRADIENT_OP("PartitionedCall", CallGrad);
REGISTER_GRADIENT_OP("StatefulPartitionedCall", CallGrad);

}  // namespace
}  // namespace grad
}  // namespace af
