#include "client/gradients.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "client/control_flow/gradient_state.h"
#include "client/gradients/grad_link.h"
#include "client/standard_ops.h"
#include "core/node_def_util.h"

namespace af {

GradOpRegistry* GradOpRegistry::Global() {
  static GradOpRegistry* registry = [] {
    grad_link::ArrayGrad();
    grad_link::MathGrad();
    grad_link::MathExtraGrad();
    grad_link::NnGrad();
    grad_link::TensorArrayGrad();
    grad_link::ControlFlowGrad();
    grad_link::SparseGrad();
    grad_link::FunctionGrad();
    grad_link::ResourceVariableGrad();
    return new GradOpRegistry();
  }();
  return registry;
}

bool GradOpRegistry::Register(const std::string& op, GradFunc func) {
  std::lock_guard<std::mutex> lock(mu_);
  funcs_[op] = std::move(func);
  return true;
}

Status GradOpRegistry::Lookup(const std::string& op, GradFunc* func) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = funcs_.find(op);
  if (it == funcs_.end()) return errors::NotFound("No gradient defined for op '", op, "'");
  *func = it->second;
  return Status::OK();
}

bool GradOpRegistry::RegisterSparse(const std::string& op, SparseGradFunc func) {
  std::lock_guard<std::mutex> lock(mu_);
  sparse_funcs_[op] = std::move(func);
  return true;
}

bool GradOpRegistry::LookupSparse(const std::string& op, SparseGradFunc* func) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sparse_funcs_.find(op);
  if (it == sparse_funcs_.end()) return false;
  *func = it->second;
  return true;
}

std::vector<std::string> GradOpRegistry::ListOps() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> ops;
  for (const auto& [name, fn] : funcs_) ops.push_back(name);
  for (const auto& [name, fn] : sparse_funcs_)
    if (!funcs_.count(name)) ops.push_back(name);
  std::sort(ops.begin(), ops.end());
  return ops;
}

Status NoGradientFunc(const Scope&, const Operation& op, const std::vector<Output>&,
                      std::vector<Output>* grad_outputs) {
  grad_outputs->assign(op.num_inputs(), NoGradient());
  return Status::OK();
}

namespace {

bool IsDifferentiable(DataType t) {
  const DataType b = BaseType(t);
  return DataTypeIsFloating(b) || DataTypeIsComplex(b);
}

bool CarriesGradient(const Edge* e) {
  return !e->IsControlEdge() && IsDifferentiable(e->src()->output_type(e->src_output()));
}

// A resource variable's handle carries the gradient of what is read through
// it (ReadVariableOp, ResourceGather: TensorFlow differentiates with respect
// to a variable's handle so). Only when a handle is among the xs: other
// graphs keep their paths exactly as before.
bool IsResourceEdge(const Edge* e) {
  return !e->IsControlEdge() && BaseType(e->src()->output_type(e->src_output())) == DT_RESOURCE;
}

std::string Label(const Node* n) {
  return "node '" + n->name() + "' (op '" + n->type_string() + "')";
}

// Ops whose gradient is their output's, unchanged: IndexedSlices pass
// through them as they are (an embedding read through an Identity).
bool PassesGradientThrough(const Node* n) {
  return n->type_string() == "Identity" || n->type_string() == "Snapshot";
}

class SymbolicGradientBuilder {
 public:
  SymbolicGradientBuilder(const Scope& scope, const std::vector<Output>& ys,
                          const std::vector<Output>& xs, const std::vector<Output>& grad_ys,
                          std::vector<GradientValue>* grad_xs, const GradientFrame* frame = nullptr)
      : scope_(scope), ys_(ys), xs_(xs), grad_ys_(grad_ys), grad_xs_(grad_xs) {
    if (frame != nullptr) {
      state_ = frame->state;
      home_frame_ = frame->home_frame;
      home_loop_ = frame->loop;
      fill_missing_ = false;
    }
  }

  Status Run() {
    for (const Output& x : xs_)
      resource_xs_ = resource_xs_ || (x.valid() && BaseType(x.type()) == DT_RESOURCE);
    AF_RETURN_IF_ERROR(Validate());
    AF_RETURN_IF_ERROR(PrepareFrames());
    FindNodesOnPaths();
    AF_RETURN_IF_ERROR(status_);
    CountPendingBackprops();
    for (size_t i = 0; i < ys_.size(); ++i) {
      if (on_path_.count(ys_[i].node())) backprops_[Key(ys_[i])].push_back(grad_ys_[i]);
    }
    AF_RETURN_IF_ERROR(BackpropInReverseTopologicalOrder());
    return fill_missing_ ? FillMissingWithZeros() : Status::OK();
  }

 private:
  using PortKey = std::pair<const Node*, int>;
  struct PortKeyHash {
    size_t operator()(const PortKey& k) const {
      return std::hash<const void*>()(k.first) * 31 + static_cast<size_t>(k.second);
    }
  };
  static PortKey Key(const Output& o) { return {o.node(), o.index()}; }

  Status Validate() const {
    const Graph& g = *scope_.graph();
    auto check = [&](const Output& o, const char* what, bool may_be_handle = false) -> Status {
      if (!o.valid() || g.FindNodeId(o.node()->id()) != o.node())
        return errors::InvalidArgument("AddSymbolicGradients: an ", what,
                                       " is not an Output of this scope's graph");
      if (o.index() < 0 || o.index() >= o.node()->num_outputs())
        return errors::InvalidArgument("AddSymbolicGradients: ", what, " '", o.name(),
                                       "' names a missing output");
      if (!IsDifferentiable(o.type()) && !(may_be_handle && BaseType(o.type()) == DT_RESOURCE))
        return errors::InvalidArgument("AddSymbolicGradients: ", what, " '", o.name(),
                                       "' has type ", DataTypeString(o.type()),
                                       ", which has no gradient");
      return Status::OK();
    };
    for (const Output& y : ys_) AF_RETURN_IF_ERROR(check(y, "output (y)"));
    for (const Output& x : xs_) AF_RETURN_IF_ERROR(check(x, "input (x)", true));
    if (grad_ys_.size() != ys_.size())
      return errors::InvalidArgument("AddSymbolicGradients: ", grad_ys_.size(),
                                     " gradients given for ", ys_.size(), " outputs");
    for (size_t i = 0; i < ys_.size(); ++i) {
      AF_RETURN_IF_ERROR(check(grad_ys_[i], "output gradient"));
      if (BaseType(grad_ys_[i].type()) != BaseType(ys_[i].type()))
        return errors::InvalidArgument("AddSymbolicGradients: the gradient of '", ys_[i].name(),
                                       "' has type ", DataTypeString(grad_ys_[i].type()),
                                       " but the output has ", DataTypeString(ys_[i].type()));
    }
    return Status::OK();
  }

  // A graph with loops is differentiated frame by frame: the paths stay in
  // one frame (the root frame, or one loop's body), and a loop met on the
  // way is one unit from its Enters to its Exits.
  Status PrepareFrames() {
    if (state_ == nullptr) {
      bool has_control_flow = false;
      for (const Node* n : scope_.graph()->nodes()) has_control_flow |= n->IsControlFlow();
      if (!has_control_flow) return Status::OK();
      owned_state_ = std::make_unique<ControlFlowGradState>();
      Status s = AnalyzeFrames(*scope_.graph(), &owned_state_->frames);
      if (!s.ok()) return s.WithContext("AddSymbolicGradients");
      owned_state_->first_new_id = scope_.graph()->num_node_ids();
      state_ = owned_state_.get();
      home_frame_ = 0;
      for (const Output& y : ys_)
        if (state_->OutputFrame(y.node()) != 0)
          return errors::Unimplemented(
              "AddSymbolicGradients: output '", y.name(),
              "' is computed inside a while loop; differentiate the loop's outputs instead");
      for (const Output& x : xs_)
        if (state_->OutputFrame(x.node()) != 0)
          return errors::Unimplemented(
              "AddSymbolicGradients: input '", x.name(),
              "' lives inside a while loop; gradients are taken with respect to tensors "
              "outside loops (the loop's inputs or the tensors its body reads)");
    }
    for (const Output& x : xs_) x_nodes_.insert(x.node());
    return Status::OK();
  }

  // Whether paths may run through `n`: forward nodes of the home frame
  // other than the enclosing loop's own Merge/Switch/NextIteration/Exit.
  bool Allowed(const Node* n) const {
    if (state_ == nullptr || x_nodes_.count(n)) return true;
    // An Exit of a loop in the home frame hands its value to the home frame.
    const int frame = n->IsExit() ? state_->OutputFrame(n) : state_->NodeFrame(n);
    if (!state_->IsForward(n) || frame != home_frame_) return false;
    return home_loop_ == nullptr || !home_loop_->IsOwnStructure(n);
  }

  bool IsLoopEntry(const Node* n) const { return state_ != nullptr && n->IsEnter(); }
  bool IsLoopExit(const Node* n) const { return state_ != nullptr && n->IsExit(); }

  bool Carries(const Edge* e) const {
    return CarriesGradient(e) || (resource_xs_ && IsResourceEdge(e));
  }

  // Nodes reachable forward from the xs and backward from the ys, along
  // edges that carry gradients.
  void FindNodesOnPaths() {
    const Graph& g = *scope_.graph();
    std::unordered_set<const Node*> forward;
    std::deque<const Node*> queue;
    for (const Output& x : xs_) {
      if (forward.insert(x.node()).second) queue.push_back(x.node());
    }
    while (!queue.empty()) {
      const Node* n = queue.front();
      queue.pop_front();
      for (const Edge* e : n->out_edges()) {
        if (!Carries(e) || !Allowed(e->dst())) continue;
        if (IsLoopEntry(e->dst()) && !x_nodes_.count(e->dst())) {
          // Into a loop: on to every Exit of it.
          forward.insert(e->dst());
          const WhileLoopStructure* loop = nullptr;
          Status s = state_->LoopOfEnter(g, e->dst(), &loop);
          if (!s.ok()) {
            status_.Update(s);
            continue;
          }
          for (const WhileLoopVariable& v : loop->variables)
            if (v.exit != nullptr && forward.insert(v.exit).second) queue.push_back(v.exit);
          continue;
        }
        if (forward.insert(e->dst()).second) queue.push_back(e->dst());
      }
    }
    std::unordered_set<const Node*> backward;
    for (const Output& y : ys_) {
      if (backward.insert(y.node()).second) queue.push_back(y.node());
    }
    while (!queue.empty()) {
      const Node* n = queue.front();
      queue.pop_front();
      if (forward.count(n)) on_path_.insert(n);
      // The body's inputs end the paths of one iteration.
      if (home_loop_ != nullptr && x_nodes_.count(n)) continue;
      if (IsLoopExit(n)) {
        // Out of a loop: back to every Enter of it.
        const WhileLoopStructure* loop = nullptr;
        Status s = state_->LoopOfExit(g, n, &loop);
        if (!s.ok()) {
          status_.Update(s);
          continue;
        }
        for (const WhileLoopVariable& v : loop->variables)
          if (backward.insert(v.enter).second) queue.push_back(v.enter);
        for (const Node* enter : loop->invariant_enters)
          if (backward.insert(enter).second) queue.push_back(enter);
        continue;
      }
      for (const Edge* e : n->in_edges()) {
        if (Carries(e) && Allowed(e->src()) && backward.insert(e->src()).second)
          queue.push_back(e->src());
      }
    }
    // A loop is on a path when one of its Exits is.
    for (const Node* n : on_path_) {
      if (!IsLoopExit(n)) continue;
      const WhileLoopStructure* loop = nullptr;
      if (state_->LoopOfExit(g, n, &loop).ok()) ++loop_exits_pending_[loop->frame];
    }
  }

  // A node is visited once every consumer on a path has sent its gradient.
  void CountPendingBackprops() {
    for (const Node* n : on_path_) {
      int count = 0;
      for (const Edge* e : n->out_edges())
        if (Carries(e) && on_path_.count(e->dst())) ++count;
      pending_[n] = count;
    }
  }

  Status SumGradients(const Scope& scope, const PortKey& port, GradientValue* sum) {
    auto it = backprops_.find(port);
    if (it == backprops_.end()) {
      *sum = GradientValue();
      return Status::OK();
    }
    return AddGradients(scope, it->second, sum);
  }

  bool HasInputsOnPath(const Node* n) const {
    for (const Edge* e : n->in_edges())
      if (Carries(e) && on_path_.count(e->src())) return true;
    return false;
  }

  Status BackpropInReverseTopologicalOrder() {
    const Scope grad_scope = scope_.NewSubScope("gradients");
    std::deque<const Node*> ready;
    for (const auto& [n, count] : pending_)
      if (count == 0 && !(IsLoopEntry(n) && !x_nodes_.count(n))) ready.push_back(n);
    size_t visited = 0;
    while (!ready.empty()) {
      const Node* n = ready.front();
      ready.pop_front();
      ++visited;
      const Scope node_scope = grad_scope.NewSubScope(n->name() + "_grad");
      std::vector<GradientValue> dy(n->num_outputs());
      bool any = false;
      for (int i = 0; i < n->num_outputs(); ++i) {
        AF_RETURN_IF_ERROR(SumGradients(node_scope, {n, i}, &dy[i]));
        any = any || dy[i].valid();
        for (size_t j = 0; j < xs_.size(); ++j)
          if (xs_[j].node() == n && xs_[j].index() == i) (*grad_xs_)[j] = dy[i];
      }
      if (IsLoopExit(n) && !x_nodes_.count(n)) {
        exit_grads_[n] = ToDense(node_scope, dy[0]);
        const WhileLoopStructure* loop = nullptr;
        AF_RETURN_IF_ERROR(state_->LoopOfExit(*scope_.graph(), n, &loop));
        if (--loop_exits_pending_[loop->frame] == 0)
          AF_RETURN_IF_ERROR(BackpropThroughLoop(grad_scope, *loop, &ready, &visited));
        continue;
      }
      if (!HasInputsOnPath(n)) continue;
      std::vector<GradientValue> dx;
      if (any && PassesGradientThrough(n) && dy[0].is_sparse())
        dx = {dy[0]};
      else if (any)
        AF_RETURN_IF_ERROR(CallGradFunc(node_scope, n, dy, &dx));
      for (const Edge* e : n->in_edges()) {
        if (!Carries(e) || !on_path_.count(e->src())) continue;
        if (any && dx[e->dst_input()].valid())
          backprops_[{e->src(), e->src_output()}].push_back(dx[e->dst_input()]);
        if (--pending_[e->src()] == 0) ready.push_back(e->src());
      }
    }
    if (visited != on_path_.size())
      return errors::Internal("AddSymbolicGradients: visited ", visited, " of ", on_path_.size(),
                              " nodes on the paths (a cycle?)");
    return Status::OK();
  }

  // Every Exit of the loop on a path has its gradient: build the backward
  // loop and hand the gradients of its Enters to what feeds them.
  Status BackpropThroughLoop(const Scope& grad_scope, const WhileLoopStructure& loop,
                             std::deque<const Node*>* ready, size_t* visited) {
    std::vector<Output> exit_grads;
    for (const WhileLoopVariable& v : loop.variables) {
      auto it = exit_grads_.find(v.exit);
      exit_grads.push_back(it == exit_grads_.end() ? Output() : it->second);
    }
    std::vector<bool> invariant_needed;
    for (const Node* enter : loop.invariant_enters)
      invariant_needed.push_back(on_path_.count(enter) != 0);
    std::vector<Output> var_grads, inv_grads;
    AF_RETURN_IF_ERROR(BuildWhileLoopGradient(grad_scope, state_, loop, exit_grads,
                                              invariant_needed, &var_grads, &inv_grads));
    auto hand_back = [&](const Node* enter, const Output& grad) {
      if (!on_path_.count(enter)) return;
      ++*visited;
      for (const Edge* e : enter->in_edges()) {
        if (!Carries(e) || !on_path_.count(e->src())) continue;
        if (grad.valid()) backprops_[{e->src(), e->src_output()}].push_back(grad);
        if (--pending_[e->src()] == 0) ready->push_back(e->src());
      }
    };
    for (size_t i = 0; i < loop.variables.size(); ++i)
      hand_back(loop.variables[i].enter, var_grads[i]);
    for (size_t j = 0; j < loop.invariant_enters.size(); ++j)
      hand_back(loop.invariant_enters[j], inv_grads[j]);
    return Status::OK();
  }

  Status CallGradFunc(const Scope& scope, const Node* n, const std::vector<GradientValue>& dy,
                      std::vector<GradientValue>* dx) {
    SparseGradFunc sparse_fn;
    GradFunc fn;
    const bool sparse = GradOpRegistry::Global()->LookupSparse(n->type_string(), &sparse_fn);
    if (!sparse && !GradOpRegistry::Global()->Lookup(n->type_string(), &fn).ok())
      return errors::NotFound("No gradient defined for op '", n->type_string(), "' (node '",
                              n->name(), "'), which is on a path from the inputs to the outputs");
    Node* node = const_cast<Node*>(n);
    // Outputs nothing depends on get zeros, so gradient functions always see
    // one tensor per output.
    std::vector<Output> dense_dy(n->num_outputs());
    for (int i = 0; i < n->num_outputs(); ++i) {
      dense_dy[i] = dy[i].valid() ? ToDense(scope, dy[i]) : ops::ZerosLike(scope, Output(node, i));
      AF_RETURN_IF_ERROR(scope.status());
    }
    Status s;
    if (sparse) {
      s = sparse_fn(scope, Operation(node), dense_dy, dx);
    } else {
      std::vector<Output> dense_dx;
      s = fn(scope, Operation(node), dense_dy, &dense_dx);
      dx->assign(dense_dx.begin(), dense_dx.end());
    }
    if (s.ok()) s = scope.status();
    if (!s.ok()) {
      if (s.message().find("'" + n->name() + "'") != std::string::npos) return s;
      return s.WithContext("gradient of " + Label(n));
    }
    if (static_cast<int>(dx->size()) != n->num_inputs())
      return errors::Internal("the gradient function of ", Label(n), " returned ", dx->size(),
                              " gradients for ", n->num_inputs(), " inputs");
    return Status::OK();
  }

  Status FillMissingWithZeros() {
    const Scope zeros_scope = scope_.NewSubScope("gradients_zeros");
    for (size_t j = 0; j < xs_.size(); ++j) {
      if ((*grad_xs_)[j].valid()) continue;
      if (BaseType(xs_[j].type()) == DT_RESOURCE) {
        // Zeros shaped like the variable, read when the step runs.
        DataType dtype = DT_INVALID;
        if (!GetNodeAttr(xs_[j].node()->def(), "dtype", &dtype).ok())
          return errors::InvalidArgument("AddSymbolicGradients: no output depends on the handle '",
                                         xs_[j].name(), "', and its variable's dtype is unknown");
        (*grad_xs_)[j] =
            Output(ops::ZerosLike(zeros_scope, ops::ReadVariableOp(zeros_scope, xs_[j], dtype)));
        AF_RETURN_IF_ERROR(scope_.status());
        continue;
      }
      (*grad_xs_)[j] = Output(ops::ZerosLike(zeros_scope, xs_[j]));
      AF_RETURN_IF_ERROR(scope_.status());
    }
    return Status::OK();
  }

  const Scope& scope_;
  const std::vector<Output>& ys_;
  const std::vector<Output>& xs_;
  const std::vector<Output>& grad_ys_;
  std::vector<GradientValue>* grad_xs_;
  std::unordered_set<const Node*> on_path_;
  std::unordered_map<const Node*, int> pending_;
  std::unordered_map<PortKey, std::vector<GradientValue>, PortKeyHash> backprops_;
  // Loops: null state for graphs without control flow.
  std::unique_ptr<ControlFlowGradState> owned_state_;
  ControlFlowGradState* state_ = nullptr;
  int home_frame_ = 0;
  const WhileLoopStructure* home_loop_ = nullptr;
  bool fill_missing_ = true;
  bool resource_xs_ = false;  // a variable's handle is among the xs
  Status status_;
  std::unordered_set<const Node*> x_nodes_;
  std::unordered_map<int, int> loop_exits_pending_;  // by frame
  std::unordered_map<const Node*, Output> exit_grads_;
};

// The tensors of gradients that may be IndexedSlices, for the callers
// that asked for tensors.
Status Densify(const Scope& scope, const std::vector<GradientValue>& grads,
               std::vector<Output>* dense) {
  dense->clear();
  const Scope to_dense = scope.NewSubScope("gradients_to_dense");
  for (const GradientValue& g : grads) dense->push_back(ToDense(to_dense, g));
  return scope.status();
}

}  // namespace

Status AddSymbolicGradientsInFrame(const Scope& scope, const std::vector<Output>& ys,
                                   const std::vector<Output>& xs,
                                   const std::vector<Output>& grad_ys, const GradientFrame& frame,
                                   std::vector<Output>* grad_xs) {
  AF_RETURN_IF_ERROR(scope.status());
  std::vector<GradientValue> grads(xs.size());
  SymbolicGradientBuilder builder(scope, ys, xs, grad_ys, &grads, &frame);
  AF_RETURN_IF_ERROR(builder.Run());
  return Densify(scope, grads, grad_xs);
}

Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                            const std::vector<Output>& inputs,
                            const std::vector<Output>& grad_inputs,
                            std::vector<GradientValue>* grad_outputs) {
  AF_RETURN_IF_ERROR(scope.status());
  grad_outputs->assign(inputs.size(), GradientValue());
  SymbolicGradientBuilder builder(scope, outputs, inputs, grad_inputs, grad_outputs);
  Status s = builder.Run();
  if (!s.ok()) grad_outputs->clear();
  return s;
}

Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                            const std::vector<Output>& inputs,
                            const std::vector<Output>& grad_inputs,
                            std::vector<Output>* grad_outputs) {
  std::vector<GradientValue> grads;
  Status s = AddSymbolicGradients(scope, outputs, inputs, grad_inputs, &grads);
  if (s.ok()) s = Densify(scope, grads, grad_outputs);
  if (!s.ok()) grad_outputs->clear();
  return s;
}

Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                            const std::vector<Output>& inputs, std::vector<Output>* grad_outputs) {
  std::vector<GradientValue> grads;
  Status s = AddSymbolicGradients(scope, outputs, inputs, &grads);
  if (s.ok()) s = Densify(scope, grads, grad_outputs);
  if (!s.ok()) grad_outputs->clear();
  return s;
}

Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                            const std::vector<Output>& inputs,
                            std::vector<GradientValue>* grad_outputs) {
  AF_RETURN_IF_ERROR(scope.status());
  std::vector<Output> ones;
  const Scope ones_scope = scope.NewSubScope("gradients_ys");
  for (const Output& y : outputs) {
    if (!y.valid())
      return errors::InvalidArgument("AddSymbolicGradients: an output (y) is not valid");
    ones.push_back(ops::OnesLike(ones_scope, y));
  }
  AF_RETURN_IF_ERROR(scope.status());
  return AddSymbolicGradients(scope, outputs, inputs, ones, grad_outputs);
}

}  // namespace af
