#include "client/control_flow/cond.h"

#include <map>

#include "client/control_flow/frame_tracker.h"
#include "client/control_flow/graph_edits.h"
#include "client/standard_ops.h"

namespace af {

namespace {

// Builds one branch and routes what it reads from outside through a Switch
// on the predicate, taking output `taken` (1: true, 0: false).
Status BuildBranch(const Scope& cond_scope, const CondBranchFn& fn, const Output& pred_id,
                   const Output& pivot, int taken, const char* which,
                   std::vector<Output>* results) {
  Graph* g = cond_scope.graph();
  FrameTracker* tracker = cond_scope.frame_tracker();
  const int frame = cond_scope.frame_context();
  const int first_id = g->num_node_ids();
  Status s = fn(cond_scope, results);
  if (s.ok()) s = cond_scope.status();
  if (!s.ok())
    return s.WithContext(std::string("in the ") + which + " branch of Cond '" +
                         cond_scope.name_scope() + "'");
  for (size_t i = 0; i < results->size(); ++i)
    if (!(*results)[i].valid())
      return errors::InvalidArgument("Cond '", cond_scope.name_scope(), "': the ", which,
                                     " branch's result ", i, " is not a valid Output");

  auto built_here = [&](const Node* n) {
    return n->id() >= first_id && tracker->NodeFrame(n) == frame;
  };
  std::map<std::pair<const Node*, int>, Output> switched;
  RouteFn route = [&](const Output& outside, Output* routed) -> Status {
    auto [it, fresh] = switched.try_emplace({outside.node(), outside.index()});
    if (fresh) {
      auto sw = ops::Switch(cond_scope.WithNoControlDependencies().WithOpName("Switch"),
                            outside, pred_id);
      AF_RETURN_IF_ERROR(cond_scope.status());
      it->second = taken == 1 ? sw.output_true : sw.output_false;
    }
    *routed = it->second;
    return Status::OK();
  };
  std::vector<Node*> nodes = NodesBuiltSince(*g, first_id, built_here);
  // Inner loops' nodes read only their own Enters; inner conds' Switches
  // read this branch's tensors or outside ones, routed here in turn.
  AF_RETURN_IF_ERROR(RouteOutsideInputs(
      g, nodes, [&](const Node* n) { return built_here(n) || n == pivot.node(); }, route,
      pivot.node()));
  // A result built outside the branch is switched too, so it is dead when
  // the branch is not taken.
  for (Output& r : *results)
    if (!built_here(r.node())) AF_RETURN_IF_ERROR(route(r, &r));
  return Status::OK();
}

}  // namespace

Status Cond(const Scope& scope, const Output& pred, const CondBranchFn& true_fn,
            const CondBranchFn& false_fn, std::vector<Output>* outputs, const std::string& name) {
  outputs->clear();
  AF_RETURN_IF_ERROR(scope.status());
  if (!pred.valid()) return errors::InvalidArgument("Cond: the predicate is not a valid Output");
  const PartialTensorShape pred_shape = pred.shape();
  if (BaseType(pred.type()) != DT_BOOL || (!pred_shape.unknown_rank() && pred_shape.dims() != 0))
    return errors::InvalidArgument("Cond: the predicate must be a bool scalar, got ",
                                   DataTypeString(pred.type()), " of shape ",
                                   pred_shape.DebugString(), " ('", pred.name(), "')");
  const Scope cs = scope.NewSubScope(name);
  auto pred_switch = ops::Switch(cs.WithOpName("Switch"), pred, pred);
  Output switch_t = ops::Identity(cs.WithOpName("switch_t"), pred_switch.output_true);
  Output switch_f = ops::Identity(cs.WithOpName("switch_f"), pred_switch.output_false);
  Output pred_id = ops::Identity(cs.WithOpName("pred_id"), pred);
  AF_RETURN_IF_ERROR(scope.status());

  std::vector<Output> true_out, false_out;
  Status s = BuildBranch(cs, true_fn, pred_id, switch_t, 1, "true", &true_out);
  if (s.ok()) s = BuildBranch(cs, false_fn, pred_id, switch_f, 0, "false", &false_out);
  if (s.ok() && true_out.size() != false_out.size())
    s = errors::InvalidArgument("Cond '", cs.name_scope(), "': the true branch returns ",
                                true_out.size(), " tensors but the false branch ",
                                false_out.size());
  for (size_t i = 0; s.ok() && i < true_out.size(); ++i) {
    if (BaseType(true_out[i].type()) != BaseType(false_out[i].type())) {
      s = errors::InvalidArgument("Cond '", cs.name_scope(), "': result ", i, " is ",
                                  DataTypeString(true_out[i].type()), " in the true branch ('",
                                  true_out[i].name(), "') but ",
                                  DataTypeString(false_out[i].type()),
                                  " in the false branch ('", false_out[i].name(), "')");
      break;
    }
    outputs->push_back(
        ops::Merge(cs.WithNoControlDependencies().WithOpName("Merge"), {false_out[i], true_out[i]})
            .output);
    s = scope.status();
  }
  if (!s.ok()) {
    outputs->clear();
    scope.UpdateStatus(s);
  }
  return s;
}

Status Cond(const Scope& scope, const Output& pred, const CondValueFn& true_fn,
            const CondValueFn& false_fn, Output* output, const std::string& name) {
  auto as_branch = [](const CondValueFn& fn) -> CondBranchFn {
    return [&fn](const Scope& s, std::vector<Output>* r) {
      *r = {fn(s)};
      return s.status();
    };
  };
  std::vector<Output> outputs;
  AF_RETURN_IF_ERROR(Cond(scope, pred, as_branch(true_fn), as_branch(false_fn), &outputs, name));
  *output = outputs[0];
  return Status::OK();
}

}  // namespace af
