// Gradients of Cond's Switch and Merge (TensorFlow's rule): a Merge sends
// its gradient back through a Switch on the cond's predicate, so only the
// branch that ran receives it; a Switch merges what its two outputs got
// (the untaken output's gradient is dead, the Merge forwards the other).
// While loops never reach these: AddSymbolicGradients differentiates a
// loop as a whole (client/control_flow/while_gradient.cc).
#include <deque>
#include <unordered_set>

#include "client/gradients.h"
#include "client/gradients/grad_link.h"
#include "client/standard_ops.h"

namespace af {
namespace grad_link {
void ControlFlowGrad() {}
}  // namespace grad_link

namespace {

// The predicate of the cond a Merge closes: the nearest Switch upstream of
// its inputs (a branch reads outside tensors through Switches on the
// predicate, and its constants hang on cond/switch_t or cond/switch_f,
// Identities of a Switch of the predicate).
Status FindCondPredicate(const Node* merge, Output* pred) {
  std::deque<const Node*> queue;
  std::unordered_set<const Node*> seen;
  for (const Edge* e : merge->in_edges())
    if (seen.insert(e->src()).second) queue.push_back(e->src());
  while (!queue.empty()) {
    const Node* n = queue.front();
    queue.pop_front();
    if (n->IsSwitch()) {
      const Edge* p = nullptr;
      AF_RETURN_IF_ERROR(n->input_edge(1, &p));
      *pred = Output(p->src(), p->src_output());
      return Status::OK();
    }
    if (n->IsMerge() || n->IsEnter() || n->IsExit()) continue;  // another cond or loop
    for (const Edge* e : n->in_edges())
      if (seen.insert(e->src()).second) queue.push_back(e->src());
  }
  return errors::Unimplemented("no Switch found upstream of Merge '", merge->name(),
                               "': gradients only flow through Merges that close a cond");
}

Status MergeGrad(const Scope& scope, const Operation& op, const std::vector<Output>& grad_inputs,
                 std::vector<Output>* grad_outputs) {
  if (op.num_inputs() != 2)
    return errors::Unimplemented("gradient of Merge '", op.name(), "' with ", op.num_inputs(),
                                 " inputs: only a cond's two-way Merge is differentiable");
  Output pred;
  AF_RETURN_IF_ERROR(FindCondPredicate(op.node(), &pred));
  auto sw = ops::Switch(scope, grad_inputs[0], pred);
  *grad_outputs = {sw.output_false, sw.output_true};
  return scope.status();
}

Status SwitchGrad(const Scope& scope, const Operation&, const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  Output merged = ops::Merge(scope, {grad_inputs[0], grad_inputs[1]}).output;
  *grad_outputs = {merged, NoGradient()};
  return scope.status();
}

REGISTER_GRADIENT_OP("Merge", MergeGrad);
REGISTER_GRADIENT_OP("RefMerge", MergeGrad);
REGISTER_GRADIENT_OP("Switch", SwitchGrad);
REGISTER_GRADIENT_OP("RefSwitch", SwitchGrad);

}  // namespace
}  // namespace af
