#include "client/control_flow/while_loop.h"

#include <map>

#include "client/control_flow/frame_tracker.h"
#include "client/control_flow/graph_edits.h"
#include "client/standard_ops.h"

namespace af {

namespace {

// TensorFlow's rule: a value may leave the loop body more specific than
// its invariant, never less (its known dims must stay what they were).
bool FitsInvariant(const PartialTensorShape& shape, const PartialTensorShape& invariant) {
  if (invariant.unknown_rank()) return true;
  if (shape.unknown_rank() || shape.dims() != invariant.dims()) return false;
  for (int d = 0; d < invariant.dims(); ++d)
    if (invariant.dim_size(d) >= 0 && shape.dim_size(d) != invariant.dim_size(d)) return false;
  return true;
}

class WhileLoopBuilder {
 public:
  WhileLoopBuilder(const Scope& scope, const WhileLoopOptions& options)
      : scope_(scope), options_(options), graph_(scope.graph()),
        tracker_(scope.frame_tracker()) {}

  Status Build(const std::vector<Output>& loop_vars, const WhileCondFn& cond,
               const WhileBodyFn& body, std::vector<Output>* outputs) {
    AF_RETURN_IF_ERROR(Validate(loop_vars));
    loop_scope_ = scope_.NewSubScope(options_.name);
    frame_name_ = loop().name_scope() + "/while_context";
    frame_ = tracker_->NewManagedFrame(frame_name_, scope_.frame_context());
    // Control dependencies of the caller's scope hold the Enters (they
    // cannot cross into the frame); nothing inside inherits them.
    inner_scope_ = loop().WithNoControlDependencies().WithFrameContext(frame_);
    const int first_id = graph_->num_node_ids();

    std::vector<Output> vars = loop_vars;
    const bool counted = options_.maximum_iterations.has_value();
    Output max_iterations;
    if (counted) {
      max_iterations = ops::Identity(loop().WithOpName("maximum_iterations"),
                                     *options_.maximum_iterations);
      vars.insert(vars.begin(), ops::Const(loop().WithOpName("iteration_counter"), 0));
      AF_RETURN_IF_ERROR(scope_.status());
      if (max_iterations.type() != DT_INT32)
        return Error("maximum_iterations must be an int32 scalar, got ",
                     DataTypeString(max_iterations.type()));
    }
    const int skip = counted ? 1 : 0;
    AF_RETURN_IF_ERROR(BuildHeads(vars, skip));

    const int cond_first = graph_->num_node_ids();
    Output pred;
    std::vector<Output> user_merges(merges_.begin() + skip, merges_.end());
    AF_RETURN_IF_ERROR(Wrap(cond(inner(), user_merges, &pred), "the condition"));
    AF_RETURN_IF_ERROR(CheckPredicate(pred));
    if (counted)
      pred = ops::LogicalAnd(inner(), ops::Less(inner(), merges_[0], max_iterations), pred);
    Output loop_cond = ops::LoopCond(inner().WithOpName("LoopCond"), pred);
    AF_RETURN_IF_ERROR(scope_.status());
    std::vector<Output> exits;
    for (const Output& merge : merges_) {
      auto sw = ops::Switch(inner().WithOpName("Switch"), merge, loop_cond);
      exits.push_back(ops::Exit(inner().WithOpName("Exit"), sw.output_false));
      identities_.push_back(ops::Identity(inner().WithOpName("Identity"), sw.output_true));
    }
    AF_RETURN_IF_ERROR(scope_.status());

    const int body_first = graph_->num_node_ids();
    std::vector<Output> next;
    std::vector<Output> user_identities(identities_.begin() + skip, identities_.end());
    AF_RETURN_IF_ERROR(Wrap(body(inner(), user_identities, &next), "the body"));
    AF_RETURN_IF_ERROR(CheckBodyOutputs(next, skip));
    if (counted) next.insert(next.begin(), ops::Add(inner(), identities_[0], 1));
    for (size_t i = 0; i < next.size(); ++i) {
      Output n = ops::NextIteration(inner().WithOpName("NextIteration"), next[i]);
      AF_RETURN_IF_ERROR(scope_.status());
      ReplaceInput(graph_, merges_[i].node(), 1, n);
    }
    AF_RETURN_IF_ERROR(RouteCapturedTensors(first_id, cond_first, body_first));
    outputs->assign(exits.begin() + skip, exits.end());
    return Status::OK();
  }

 private:
  const Scope& loop() const { return *loop_scope_; }
  const Scope& inner() const { return *inner_scope_; }

  template <typename... Args>
  Status Error(const Args&... args) const {
    return errors::InvalidArgument("WhileLoop '", loop().name_scope(), "': ", args...);
  }

  Status Wrap(const Status& s, const char* what) const {
    if (!s.ok()) return s.WithContext(std::string("in ") + what + " of WhileLoop '" +
                                      loop().name_scope() + "'");
    return scope_.status();
  }

  Status Validate(const std::vector<Output>& loop_vars) const {
    AF_RETURN_IF_ERROR(scope_.status());
    if (loop_vars.empty())
      return errors::InvalidArgument("WhileLoop: at least one loop variable is needed");
    for (size_t i = 0; i < loop_vars.size(); ++i)
      if (!loop_vars[i].valid())
        return errors::InvalidArgument("WhileLoop: loop variable ", i, " is not a valid Output");
    if (options_.parallel_iterations < 1)
      return errors::InvalidArgument("WhileLoop: parallel_iterations must be at least 1, got ",
                                     options_.parallel_iterations);
    if (!options_.shape_invariants.empty() &&
        options_.shape_invariants.size() != loop_vars.size())
      return errors::InvalidArgument("WhileLoop: ", options_.shape_invariants.size(),
                                     " shape invariants for ", loop_vars.size(),
                                     " loop variables");
    return Status::OK();
  }

  PartialTensorShape Invariant(const Output& var, int user_index) const {
    if (user_index >= 0 && !options_.shape_invariants.empty())
      return options_.shape_invariants[user_index];
    return var.shape();
  }

  // Enter and Merge per variable; the Merge's second input becomes the
  // NextIteration once the body exists.
  Status BuildHeads(const std::vector<Output>& vars, int skip) {
    for (size_t i = 0; i < vars.size(); ++i) {
      const int user_index = static_cast<int>(i) - skip;
      const PartialTensorShape invariant = Invariant(vars[i], user_index);
      if (!FitsInvariant(vars[i].shape(), invariant))
        return Error("loop variable ", user_index, " ('", vars[i].name(), "') enters with shape ",
                     vars[i].shape().DebugString(), ", which does not fit its shape invariant ",
                     invariant.DebugString());
      Output enter = ops::Enter(loop().WithOpName("Enter"), vars[i], frame_name_,
                                ops::Enter::IsConstant(false).ParallelIterations(
                                    options_.parallel_iterations));
      Output merge = ops::Merge(inner().WithOpName("Merge"), {enter, enter}).output;
      AF_RETURN_IF_ERROR(scope_.status());
      merge.node()->set_output_shapes({invariant, PartialTensorShape(TensorShape{})});
      merges_.push_back(merge);
    }
    return Status::OK();
  }

  Status CheckPredicate(const Output& pred) const {
    if (!pred.valid()) return Error("the condition returned no tensor");
    if (BaseType(pred.type()) != DT_BOOL)
      return Error("the condition must return a bool scalar, got ",
                   DataTypeString(pred.type()), " '", pred.name(), "'");
    const PartialTensorShape s = pred.shape();
    if (!s.unknown_rank() && s.dims() != 0)
      return Error("the condition must return a scalar, got shape ", s.DebugString(), " ('",
                   pred.name(), "')");
    return Status::OK();
  }

  Status CheckBodyOutputs(const std::vector<Output>& next, int skip) const {
    const size_t expected = merges_.size() - skip;
    if (next.size() != expected)
      return Error("the body returned ", next.size(), " values for ", expected,
                   " loop variables");
    for (size_t i = 0; i < next.size(); ++i) {
      const Output& merge = merges_[i + skip];
      if (!next[i].valid()) return Error("the body's value ", i, " is not a valid Output");
      if (BaseType(next[i].type()) != BaseType(merge.type()))
        return Error("loop variable ", i, " enters as ", DataTypeString(merge.type()),
                     " but the body returns ", DataTypeString(next[i].type()), " ('",
                     next[i].name(), "')");
      const PartialTensorShape& invariant = merge.node()->output_shapes()[0];
      if (!FitsInvariant(next[i].shape(), invariant))
        return Error("loop variable ", i, " has shape ", invariant.DebugString(),
                     " entering the loop but ", next[i].shape().DebugString(),
                     " after an iteration ('", next[i].name(),
                     "'); to let its shape vary, give a shape invariant "
                     "(WhileLoopOptions::shape_invariants)");
    }
    return Status::OK();
  }

  // Tensors from outside that the condition or body read enter through one
  // constant Enter each; ops with no input at all get the loop's pivot as a
  // control input so they run in every iteration.
  Status RouteCapturedTensors(int first_id, int cond_first, int body_first) {
    auto in_frame = [&](const Node* n) { return tracker_->NodeFrame(n) == frame_; };
    auto inside = [&](const Node* n) { return tracker_->OutputFrame(n) == frame_; };
    std::map<std::pair<const Node*, int>, Output> entered;
    RouteFn route = [&](const Output& outside, Output* routed) -> Status {
      auto [it, fresh] = entered.try_emplace({outside.node(), outside.index()});
      if (fresh) {
        it->second = ops::Enter(loop().WithNoControlDependencies().WithOpName("Enter"), outside,
                                frame_name_,
                                ops::Enter::IsConstant(true).ParallelIterations(
                                    options_.parallel_iterations));
        AF_RETURN_IF_ERROR(scope_.status());
      }
      *routed = it->second;
      return Status::OK();
    };
    std::vector<Node*> cond_nodes, body_nodes;
    for (Node* n : NodesBuiltSince(*graph_, first_id, in_frame))
      (n->id() >= cond_first && n->id() < body_first ? cond_nodes : body_nodes).push_back(n);
    AF_RETURN_IF_ERROR(
        RouteOutsideInputs(graph_, cond_nodes, inside, route, merges_[0].node()));
    return RouteOutsideInputs(graph_, body_nodes, inside, route, identities_[0].node());
  }

  const Scope& scope_;
  const WhileLoopOptions& options_;
  Graph* graph_;
  FrameTracker* tracker_;
  // Set by Build (a Scope has no empty state).
  std::optional<Scope> loop_scope_, inner_scope_;
  std::string frame_name_;
  int frame_ = 0;
  std::vector<Output> merges_, identities_;
};

}  // namespace

Status WhileLoop(const Scope& scope, const std::vector<Output>& loop_vars,
                 const WhileCondFn& cond, const WhileBodyFn& body, std::vector<Output>* outputs,
                 const WhileLoopOptions& options) {
  outputs->clear();
  WhileLoopBuilder builder(scope, options);
  Status s = builder.Build(loop_vars, cond, body, outputs);
  if (!s.ok()) {
    outputs->clear();
    scope.UpdateStatus(s);
  }
  return s;
}

}  // namespace af
