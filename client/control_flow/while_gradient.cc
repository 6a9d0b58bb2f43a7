// The gradient of a while loop (whitepaper §4.4, OSDI'16 §3.4): the
// forward loop gets an iteration counter and pushes every value the
// backward body reads onto a per-step stack; the backward loop runs the
// counted iterations, popping those values in reverse order.
//
// Ordering: a push carries a control input from the counter's Identity and
// the counter's increment waits (through a ControlTrigger, which fires even
// when a push is dead) for every push, so iteration k+1 pushes only after
// iteration k did (parallel_iterations may otherwise run them in any
// order); the backward loop orders its pops the same way.
//
// Conds inside the body: a value of an untaken branch is dead and is never
// pushed, so its pop is gated by the same branch in the backward loop: a
// Switch of the popped predicate on itself, whose taken output is the pop's
// control input.
#include <map>
#include <vector>

#include "client/control_flow/frame_tracker.h"
#include "client/control_flow/gradient_state.h"
#include "client/control_flow/graph_edits.h"
#include "client/standard_ops.h"
#include "core/node_def_util.h"

namespace af {

namespace {

bool IsDifferentiable(DataType t) {
  const DataType b = BaseType(t);
  return DataTypeIsFloating(b) || DataTypeIsComplex(b);
}

Output DataInput(const Node* n, int i) {
  const Edge* e = nullptr;
  if (!n->input_edge(i, &e).ok()) return Output();
  return Output(e->src(), e->src_output());
}

// A variable of the backward loop and the forward variable or invariant
// (by index) whose gradient it carries.
struct BackwardVariable {
  int forward = 0;
  Output identity, exit;
  Node* merge = nullptr;
};

class WhileGradientBuilder {
 public:
  WhileGradientBuilder(const Scope& scope, ControlFlowGradState* state,
                       const WhileLoopStructure& loop)
      : scope_(scope), state_(state), loop_(loop), graph_(scope.graph()) {}

  Status Build(const std::vector<Output>& exit_grads, const std::vector<bool>& invariant_needed,
               std::vector<Output>* variable_grads, std::vector<Output>* invariant_grads) {
    const FrameTracker* tracker = scope_.frame_tracker();
    parent_frame_ = state_->frames.frames[loop_.frame].parent;
    anchor_ = DataInput(loop_.variables[0].enter, 0).node();
    forward_parent_ = scope_.WithNoControlDependencies().WithFrameContext(
        tracker->NodeFrame(loop_.variables[0].enter));
    forward_body_ = forward_parent_.WithFrameContext(tracker->NodeFrame(loop_.variables[0].merge));
    std::string base = loop_.frame_name;
    const std::string suffix = "/while_context";
    if (base.size() > suffix.size() && base.ends_with(suffix))
      base.resize(base.size() - suffix.size());
    const size_t slash = base.rfind('/');
    // The backward side is not tracked: its ops read forward values until
    // the rewrite below routes them through stacks.
    backward_outer_ = scope_.WithNoControlDependencies()
                          .WithFrameContext(FrameTracker::kUnknown)
                          .NewSubScope((slash == std::string::npos ? base : base.substr(slash + 1)) +
                                       "_grad");
    backward_frame_name_ = backward_outer_.name_scope() + "/while_context";
    loop_first_id_ = graph_->num_node_ids();

    AF_RETURN_IF_ERROR(BuildForwardCounter());
    AF_RETURN_IF_ERROR(BuildBackwardCounter());
    AF_RETURN_IF_ERROR(BuildGradientVariables(exit_grads, invariant_needed));
    const int body_first = graph_->num_node_ids();
    AF_RETURN_IF_ERROR(BuildBody(invariant_needed));
    AF_RETURN_IF_ERROR(RouteForwardValues(body_first));

    variable_grads->assign(loop_.variables.size(), Output());
    for (const BackwardVariable& g : var_grads_) (*variable_grads)[g.forward] = g.exit;
    invariant_grads->assign(loop_.invariant_enters.size(), Output());
    for (const BackwardVariable& g : inv_grads_) (*invariant_grads)[g.forward] = g.exit;
    return scope_.status();
  }

 private:
  void MarkForward(const Output& o, int frame) { state_->added_forward[o.node()->id()] = frame; }
  void MarkForward(const Operation& op, int frame) { state_->added_forward[op.node()->id()] = frame; }

  ops::Enter::Attrs EnterAttrs(bool constant) const {
    return ops::Enter::IsConstant(constant).ParallelIterations(loop_.parallel_iterations);
  }

  // A constant of the forward parent frame: in a nested loop it must run
  // once per outer iteration, so it hangs on a node of that frame.
  Output ParentConst(const Tensor& value, const char* name) {
    Scope s = forward_parent_.WithOpName(name);
    if (anchor_ != nullptr) s = s.WithControlDependencies({Operation(anchor_)});
    Output c = ops::Const(s, Input::Initializer(value));
    if (c.valid()) MarkForward(c, parent_frame_);
    return c;
  }

  Status BuildForwardCounter() {
    Output zero = ParentConst(Tensor::Scalar<int32_t>(0), "forward_count_init");
    AF_RETURN_IF_ERROR(scope_.status());
    Output enter = ops::Enter(forward_parent_.WithOpName("forward_count_enter"), zero,
                              loop_.frame_name, EnterAttrs(false));
    AF_RETURN_IF_ERROR(scope_.status());
    MarkForward(enter, loop_.frame);
    const Scope& f = forward_body_;
    Output merge = ops::Merge(f.WithOpName("forward_count_merge"), {enter, enter}).output;
    auto sw = ops::Switch(f.WithOpName("forward_count_switch"), merge, Output(loop_.loop_cond, 0));
    forward_index_ = ops::Identity(f.WithOpName("forward_count"), sw.output_true);
    Output one = ops::Const(f.WithOpName("forward_count_one").WithControlDependencies(forward_index_), 1);
    Output add = ops::Add(f.WithOpName("forward_count_add"), forward_index_, one);
    Output next = ops::NextIteration(f.WithOpName("forward_count_next"), add);
    Output exit = ops::Exit(f.WithOpName("forward_count_exit"), sw.output_false);
    AF_RETURN_IF_ERROR(scope_.status());
    ReplaceInput(graph_, merge.node(), 1, next);
    for (const Output& o : {merge, sw.output_true, forward_index_, one, add, next})
      MarkForward(o, loop_.frame);
    MarkForward(exit, parent_frame_);
    forward_add_ = add.node();
    forward_count_ = exit;
    // The increment waits for this iteration's pushes, dead ones included.
    auto sync = ops::ControlTrigger(f.WithOpName("forward_sync").WithControlDependencies(forward_index_));
    AF_RETURN_IF_ERROR(scope_.status());
    MarkForward(sync.operation, loop_.frame);
    forward_sync_ = sync.operation.node();
    AddControlInput(graph_, forward_sync_, forward_add_);
    return Status::OK();
  }

  Status BuildBackwardCounter() {
    const Scope& b = backward_outer_;
    Output enter = ops::Enter(b.WithOpName("count_enter"), forward_count_, backward_frame_name_,
                              EnterAttrs(false));
    Output merge = ops::Merge(b.WithOpName("count_merge"), {enter, enter}).output;
    Output zero = ops::Const(b.WithOpName("count_zero").WithControlDependencies(merge), 0);
    loop_cond_ = ops::LoopCond(b.WithOpName("LoopCond"), ops::Greater(b, merge, zero));
    auto sw = ops::Switch(b.WithOpName("count_switch"), merge, loop_cond_);
    pivot_ = ops::Identity(b.WithOpName("count"), sw.output_true);
    Output one = ops::Const(b.WithOpName("count_one").WithControlDependencies(pivot_), 1);
    Output sub = ops::Sub(b.WithOpName("count_sub"), pivot_, one);
    Output next = ops::NextIteration(b.WithOpName("count_next"), sub);
    AF_RETURN_IF_ERROR(scope_.status());
    ReplaceInput(graph_, merge.node(), 1, next);
    backward_sub_ = sub.node();
    auto sync = ops::ControlTrigger(b.WithOpName("backward_sync").WithControlDependencies(pivot_));
    AF_RETURN_IF_ERROR(scope_.status());
    backward_sync_ = sync.operation.node();
    AddControlInput(graph_, backward_sync_, backward_sub_);
    return Status::OK();
  }

  // One backward loop variable: Enter(init) -> Merge -> Switch -> Identity
  // (read by the body) and Exit (the result); the Merge's back edge is set
  // once the body exists.
  Status AddBackwardVariable(int forward, const Output& init, std::vector<BackwardVariable>* to) {
    const Scope& b = backward_outer_;
    Output enter = ops::Enter(b.WithOpName("Enter"), init, backward_frame_name_, EnterAttrs(false));
    Output m = ops::Merge(b.WithOpName("Merge"), {enter, enter}).output;
    auto sw = ops::Switch(b.WithOpName("Switch"), m, loop_cond_);
    BackwardVariable v;
    v.forward = forward;
    v.identity = ops::Identity(b.WithOpName("Identity"), sw.output_true);
    v.exit = ops::Exit(b.WithOpName("Exit"), sw.output_false);
    AF_RETURN_IF_ERROR(scope_.status());
    v.merge = m.node();
    to->push_back(std::move(v));
    return Status::OK();
  }

  Status BuildGradientVariables(const std::vector<Output>& exit_grads,
                                const std::vector<bool>& invariant_needed) {
    for (size_t i = 0; i < loop_.variables.size(); ++i) {
      const WhileLoopVariable& v = loop_.variables[i];
      if (!IsDifferentiable(v.merge->output_type(0))) continue;
      Output init = exit_grads[i];
      if (!init.valid()) {
        Output like = v.exit != nullptr ? Output(v.exit, 0) : DataInput(v.enter, 0);
        init = ops::ZerosLike(backward_outer_, like);
      }
      AF_RETURN_IF_ERROR(AddBackwardVariable(static_cast<int>(i), init, &var_grads_));
    }
    for (size_t j = 0; j < loop_.invariant_enters.size(); ++j) {
      const Node* enter = loop_.invariant_enters[j];
      if (!invariant_needed[j] || !IsDifferentiable(enter->output_type(0))) continue;
      Output init = ops::ZerosLike(backward_outer_, DataInput(enter, 0));
      AF_RETURN_IF_ERROR(AddBackwardVariable(static_cast<int>(j), init, &inv_grads_));
    }
    return Status::OK();
  }

  // One iteration backwards: the gradient of the forward body from its
  // results (the NextIteration inputs) to what it read (the Identities and
  // the invariants).
  Status BuildBody(const std::vector<bool>&) {
    const Scope body = backward_outer_.WithOpName("");
    std::vector<Output> ys, xs, grad_ys, grads;
    for (const BackwardVariable& g : var_grads_) {
      const WhileLoopVariable& v = loop_.variables[g.forward];
      ys.push_back(DataInput(v.next_iteration, 0));
      xs.push_back(Output(v.identity, 0));
      grad_ys.push_back(g.identity);
    }
    for (const BackwardVariable& g : inv_grads_) {
      xs.push_back(Output(loop_.invariant_enters[g.forward], 0));
    }
    GradientFrame frame{state_, loop_.frame, &loop_};
    AF_RETURN_IF_ERROR(AddSymbolicGradientsInFrame(body, ys, xs, grad_ys, frame, &grads));
    const Scope& b = backward_outer_;
    for (size_t k = 0; k < var_grads_.size(); ++k) {
      const BackwardVariable& v = var_grads_[k];
      Output g = grads[k].valid() ? grads[k] : ops::ZerosLike(b, v.identity);
      Output next = ops::NextIteration(b.WithOpName("NextIteration"), g);
      AF_RETURN_IF_ERROR(scope_.status());
      ReplaceInput(graph_, v.merge, 1, next);
    }
    for (size_t k = 0; k < inv_grads_.size(); ++k) {
      const BackwardVariable& v = inv_grads_[k];
      const Output& d = grads[var_grads_.size() + k];
      Output sum = d.valid() ? ops::Add(b, v.identity, d).z : v.identity;
      Output next = ops::NextIteration(b.WithOpName("NextIteration"), sum);
      AF_RETURN_IF_ERROR(scope_.status());
      ReplaceInput(graph_, v.merge, 1, next);
    }
    return Status::OK();
  }

  bool IsOwnInvariantEnter(const Node* n) const {
    for (const Node* e : loop_.invariant_enters)
      if (e == n) return true;
    return false;
  }

  // A forward value of this loop's frame, as the backward body reads it.
  Status Pop(const Output& value, Output* popped) {
    auto [it, fresh] = popped_.try_emplace({value.node(), value.index()});
    if (!fresh) {
      *popped = it->second;
      return Status::OK();
    }
    const DataType dtype = BaseType(value.type());
    Output max_size = ParentConst(Tensor::Scalar<int32_t>(-1), "stack_max_size");
    auto stack = ops::StackV2(forward_parent_.WithOpName("stack"), max_size, dtype);
    AF_RETURN_IF_ERROR(scope_.status());
    MarkForward(stack.handle, parent_frame_);
    Output push_handle = ops::Enter(forward_parent_.WithOpName("stack_enter"), stack.handle,
                                    loop_.frame_name, EnterAttrs(true));
    AF_RETURN_IF_ERROR(scope_.status());
    MarkForward(push_handle, loop_.frame);
    auto push = ops::StackPushV2(forward_body_.WithOpName("stack_push"), push_handle, value);
    AF_RETURN_IF_ERROR(scope_.status());
    MarkForward(push.operation, loop_.frame);
    AddControlInput(graph_, forward_index_.node(), push.operation.node());
    AddControlInput(graph_, push.operation.node(), forward_sync_);

    Output pop_handle;
    AF_RETURN_IF_ERROR(EnterBackward(stack.handle, &pop_handle));
    auto pop = ops::StackPopV2(backward_outer_.WithOpName("stack_pop"), pop_handle, dtype);
    AF_RETURN_IF_ERROR(scope_.status());
    AddControlInput(graph_, pivot_.node(), pop.elem.node());
    AddControlInput(graph_, pop.elem.node(), backward_sync_);
    it->second = pop.elem;
    // Popped only where the forward value was pushed: in the same branches.
    for (const BranchSide& side : BranchContext(value)) {
      Node* gate = nullptr;
      AF_RETURN_IF_ERROR(BranchGate(side, &gate));
      AddControlInput(graph_, gate, pop.elem.node());
    }
    *popped = pop.elem;
    return Status::OK();
  }

  // One branch of a cond in the forward body: the cond's predicate and the
  // side (Switch output 0: false, 1: true).
  struct BranchSide {
    Output pred;
    int side = 0;
    bool operator==(const BranchSide& o) const { return pred == o.pred && side == o.side; }
  };
  using Context = std::vector<BranchSide>;

  static const Context& Deeper(const Context& a, const Context& b) {
    return b.size() > a.size() ? b : a;
  }

  // The conds (outermost first) whose branches a forward value of this
  // loop's body lies in: a Switch adds its side, a Merge closes the
  // innermost, anything else is in the deepest context of its inputs.
  const Context& BranchContext(const Output& value) {
    static const Context kNone;
    const Node* n = value.node();
    if (!state_->IsForward(n) || state_->NodeFrame(n) != loop_.frame || loop_.IsOwnStructure(n) ||
        n->IsEnter())
      return kNone;
    const std::pair<const Node*, int> key{n, n->IsSwitch() ? value.index() : 0};
    auto found = contexts_.find(key);
    if (found != contexts_.end()) return found->second;
    Context ctx;
    if (n->IsSwitch()) {
      ctx = BranchContext(DataInput(n, 0));
      ctx.push_back(BranchSide{DataInput(n, 1), value.index()});
    } else {
      for (const Edge* e : n->in_edges()) {
        const Context& in = e->IsControlEdge() ? NodeContext(e->src())
                                               : BranchContext(Output(e->src(), e->src_output()));
        ctx = Deeper(ctx, in);
      }
      if (n->IsMerge() && !ctx.empty()) ctx.pop_back();
    }
    return contexts_[key] = std::move(ctx);
  }

  // A control edge leaves a node, not an output: a Switch's is the deeper
  // of its two sides' (rare; switch_t and switch_f are Identities).
  const Context& NodeContext(const Node* n) {
    if (!n->IsSwitch()) return BranchContext(Output(const_cast<Node*>(n), 0));
    return Deeper(BranchContext(Output(const_cast<Node*>(n), 0)),
                  BranchContext(Output(const_cast<Node*>(n), 1)));
  }

  // Live in a backward iteration exactly when the forward iteration took
  // `side` of the cond: an Identity of a Switch of the popped predicate.
  Status BranchGate(const BranchSide& side, Node** gate) {
    for (const auto& [known, node] : gates_) {
      if (known == side) {
        *gate = node;
        return Status::OK();
      }
    }
    Output pred;
    AF_RETURN_IF_ERROR(Pop(side.pred, &pred));
    auto sw = ops::Switch(backward_outer_.WithOpName("branch_gate_switch"), pred, pred);
    Output taken = ops::Identity(backward_outer_.WithOpName("branch_gate"),
                                 side.side == 1 ? sw.output_true : sw.output_false);
    AF_RETURN_IF_ERROR(scope_.status());
    gates_.emplace_back(side, taken.node());
    *gate = taken.node();
    return Status::OK();
  }

  // A value from outside both loops (or from an enclosing backward loop),
  // entered once into the backward frame.
  Status EnterBackward(const Output& value, Output* entered) {
    auto [it, fresh] = entered_.try_emplace({value.node(), value.index()});
    if (fresh) {
      it->second = ops::Enter(backward_outer_.WithOpName("Enter"), value, backward_frame_name_,
                              EnterAttrs(true));
      AF_RETURN_IF_ERROR(scope_.status());
    }
    *entered = it->second;
    return Status::OK();
  }

  bool IsBackwardSide(const Node* n) const {
    return n->id() >= loop_first_id_ && !state_->IsAddedForward(n);
  }

  // The backward body's ops read forward tensors directly; route each
  // through a stack (values of this loop's frame) or an Enter (anything
  // else), and give ops without inputs the backward pivot.
  Status RouteForwardValues(int body_first) {
    std::vector<Node*> body;
    for (int id = body_first; id < graph_->num_node_ids(); ++id) {
      Node* n = graph_->FindNodeId(id);
      if (n != nullptr && !state_->IsAddedForward(n)) body.push_back(n);
    }
    for (Node* n : body) {
      std::vector<const Edge*> edges(n->in_edges().begin(), n->in_edges().end());
      for (const Edge* e : edges) {
        if (IsBackwardSide(e->src())) continue;
        if (e->IsControlEdge()) {
          // Ordering on a forward op cannot cross into the backward frame,
          // and the values read already order the backward op after it.
          graph_->RemoveEdge(e);
          SyncNodeDefInputs(n);
          continue;
        }
        Output value(e->src(), e->src_output());
        while (IsOwnInvariantEnter(value.node())) value = DataInput(value.node(), 0);
        Output routed;
        if (state_->OutputFrame(value.node()) == loop_.frame) {
          AF_RETURN_IF_ERROR(Pop(value, &routed));
        } else {
          AF_RETURN_IF_ERROR(EnterBackward(value, &routed));
        }
        ReplaceInput(graph_, n, e->dst_input(), routed);
      }
    }
    for (Node* n : body)
      if (n->in_edges().empty()) AddControlInput(graph_, pivot_.node(), n);
    return Status::OK();
  }

  const Scope& scope_;
  ControlFlowGradState* state_;
  const WhileLoopStructure& loop_;
  Graph* graph_;
  int parent_frame_ = 0;
  Node* anchor_ = nullptr;
  Scope forward_parent_ = scope_;
  Scope forward_body_ = scope_;
  Scope backward_outer_ = scope_;
  std::string backward_frame_name_;
  int loop_first_id_ = 0;
  Output forward_index_, forward_count_, loop_cond_, pivot_;
  Node* forward_add_ = nullptr;
  Node* forward_sync_ = nullptr;
  Node* backward_sub_ = nullptr;
  Node* backward_sync_ = nullptr;
  // The backward loop's variables: one per differentiable loop variable,
  // one per invariant whose gradient is needed.
  std::vector<BackwardVariable> var_grads_, inv_grads_;
  std::map<std::pair<const Node*, int>, Output> popped_, entered_;
  std::map<std::pair<const Node*, int>, Context> contexts_;
  std::vector<std::pair<BranchSide, Node*>> gates_;
};

}  // namespace

Status BuildWhileLoopGradient(const Scope& scope, ControlFlowGradState* state,
                              const WhileLoopStructure& loop,
                              const std::vector<Output>& exit_grads,
                              const std::vector<bool>& invariant_needed,
                              std::vector<Output>* variable_grads,
                              std::vector<Output>* invariant_grads) {
  WhileGradientBuilder builder(scope, state, loop);
  Status s = builder.Build(exit_grads, invariant_needed, variable_grads, invariant_grads);
  if (!s.ok()) return s.WithContext("gradient of while loop '" + loop.frame_name + "'");
  return s;
}

}  // namespace af
