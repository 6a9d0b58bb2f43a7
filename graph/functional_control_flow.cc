#include "graph/functional_control_flow.h"

#include <string>

#include "core/node_def_util.h"
#include "graph/node_replacement.h"

namespace af {
namespace {

std::string Label(const Node& node) {
  return "node '" + node.name() + "' (" + node.type_string() + ")";
}

// Adds a node whose data inputs are wired from `inputs` (one per input
// port, in order), with control edges from `control`.
class LoweringBuilder {
 public:
  LoweringBuilder(Graph* graph, const Node& lowered, std::vector<int>* added)
      : graph_(graph), device_(lowered.requested_device()), label_(Label(lowered)), added_(added) {}

  Status Add(tensorflow::NodeDef def, const std::vector<TensorRef>& inputs,
             const std::vector<Node*>& control, Node** out) {
    def.set_name(graph_->NewName(def.name()));
    if (def.device().empty()) def.set_device(device_);
    def.clear_input();
    for (const TensorRef& in : inputs) def.add_input(in.node ? in.node->name() : "pending");
    Status s = graph_->AddNode(std::move(def), out);
    if (!s.ok()) return s.WithContext(label_);
    added_->push_back((*out)->id());
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].node)
        graph_->AddEdge(inputs[i].node, inputs[i].port, *out, static_cast<int>(i));
    }
    for (Node* c : control) graph_->AddControlEdge(c, *out);
    return Status::OK();
  }

  Status Simple(const std::string& name, const std::string& op, DataType type,
                const std::vector<TensorRef>& inputs, const std::vector<Node*>& control,
                Node** out) {
    tensorflow::NodeDef def;
    def.set_name(name);
    def.set_op(op);
    if (type != DT_INVALID) SetAttr(&def, "T", type);
    return Add(std::move(def), inputs, control, out);
  }

  // A call of `function` (a func attr of the lowered node) on `inputs`.
  Status Call(const std::string& name, bool stateful, const tensorflow::AttrValue& function,
              const std::vector<TensorRef>& inputs, const DataTypeVector& results,
              const std::vector<Node*>& control, Node** out) {
    tensorflow::NodeDef def;
    def.set_name(name);
    def.set_op(stateful ? "StatefulPartitionedCall" : "PartitionedCall");
    DataTypeVector arg_types;
    for (const TensorRef& in : inputs) arg_types.push_back(BaseType(in.node->output_type(in.port)));
    SetAttr(&def, "Tin", arg_types);
    SetAttr(&def, "Tout", results);
    (*def.mutable_attr())["f"] = function;
    return Add(std::move(def), inputs, control, out);
  }

 private:
  Graph* graph_;
  std::string device_;
  std::string label_;
  std::vector<int>* added_;
};

Status FuncAttr(const Node& node, const char* name, const tensorflow::AttrValue** out) {
  auto it = node.def().attr().find(name);
  if (it == node.def().attr().end() || !it->second.has_func()) {
    return errors::InvalidArgument(Label(node), ": attr '", name, "' names no function");
  }
  *out = &it->second;
  return Status::OK();
}

Status LowerIf(Graph* graph, Node* node, std::vector<int>* added, std::vector<Node*>* calls) {
  const bool stateful = node->type_string() == "If";
  const tensorflow::AttrValue *then_branch = nullptr, *else_branch = nullptr;
  AF_RETURN_IF_ERROR(FuncAttr(*node, "then_branch", &then_branch));
  AF_RETURN_IF_ERROR(FuncAttr(*node, "else_branch", &else_branch));
  const NodeInputs in = InputsOf(*node);
  const std::string name = node->name();
  const DataTypeVector results = node->output_types();
  LoweringBuilder b(graph, *node, added);
  TensorRef pred = in.data[0];
  if (BaseType(node->input_type(0)) != DT_BOOL) {
    // TensorFlow's reading of a number, a string or a non-scalar as a
    // condition (a nonzero or non-empty scalar, a tensor with elements).
    Node* truth = nullptr;
    AF_RETURN_IF_ERROR(b.Simple(name + "/to_bool", "ToBool", BaseType(node->input_type(0)),
                                {pred}, in.control, &truth));
    pred = {truth, 0};
  }
  // Pivots: one live and one dead per step, gating each branch's call.
  Node *pred_switch = nullptr, *pivot_true = nullptr, *pivot_false = nullptr;
  AF_RETURN_IF_ERROR(
      b.Simple(name + "/switch_pred", "Switch", DT_BOOL, {pred, pred}, in.control, &pred_switch));
  AF_RETURN_IF_ERROR(
      b.Simple(name + "/pivot_t", "Identity", DT_BOOL, {{pred_switch, 1}}, {}, &pivot_true));
  AF_RETURN_IF_ERROR(
      b.Simple(name + "/pivot_f", "Identity", DT_BOOL, {{pred_switch, 0}}, {}, &pivot_false));
  std::vector<TensorRef> true_args, false_args;
  for (size_t i = 1; i < in.data.size(); ++i) {
    Node* sw = nullptr;
    AF_RETURN_IF_ERROR(b.Simple(name + "/input_" + std::to_string(i - 1), "Switch",
                                BaseType(node->input_type(static_cast<int>(i))), {in.data[i], pred},
                                in.control, &sw));
    true_args.push_back({sw, 1});
    false_args.push_back({sw, 0});
  }
  Node *then_call = nullptr, *else_call = nullptr;
  AF_RETURN_IF_ERROR(
      b.Call(name + "/then", stateful, *then_branch, true_args, results, {pivot_true}, &then_call));
  AF_RETURN_IF_ERROR(b.Call(name + "/else", stateful, *else_branch, false_args, results,
                            {pivot_false}, &else_call));
  calls->push_back(then_call);
  calls->push_back(else_call);
  std::vector<TensorRef> merged;
  for (size_t i = 0; i < results.size(); ++i) {
    tensorflow::NodeDef def;
    def.set_name(name + "/output_" + std::to_string(i));
    def.set_op("Merge");
    SetAttr(&def, "T", results[i]);
    SetAttr(&def, "N", int64_t{2});
    Node* merge = nullptr;
    const int port = static_cast<int>(i);
    AF_RETURN_IF_ERROR(b.Add(std::move(def), {{then_call, port}, {else_call, port}}, {}, &merge));
    merged.push_back({merge, 0});
  }
  // Without results, the node waits for whichever branch ran: a Merge of
  // the pivots, each after its branch, is live either way.
  std::vector<Node*> waits_for;
  if (results.empty()) {
    Node *after_then = nullptr, *after_else = nullptr, *done = nullptr;
    AF_RETURN_IF_ERROR(b.Simple(name + "/then_done", "Identity", DT_BOOL, {{pivot_true, 0}},
                                {then_call}, &after_then));
    AF_RETURN_IF_ERROR(b.Simple(name + "/else_done", "Identity", DT_BOOL, {{pivot_false, 0}},
                                {else_call}, &after_else));
    tensorflow::NodeDef def;
    def.set_name(name + "/branch_executed");
    def.set_op("Merge");
    SetAttr(&def, "T", DT_BOOL);
    SetAttr(&def, "N", int64_t{2});
    AF_RETURN_IF_ERROR(b.Add(std::move(def), {{after_then, 0}, {after_else, 0}}, {}, &done));
    waits_for.push_back(done);
  }
  return ReplaceNodeByResults(graph, node, merged, results, waits_for, added);
}

// Case: one _SwitchN per input routes it to the branch the index names
// (the last one for an index out of range); a pivot per branch gates its
// call; a Merge per result takes whichever branch ran.
Status LowerCase(Graph* graph, Node* node, std::vector<int>* added, std::vector<Node*>* calls) {
  const bool stateful = node->type_string() == "Case";
  auto it = node->def().attr().find("branches");
  if (it == node->def().attr().end() || it->second.list().func_size() == 0) {
    return errors::InvalidArgument(Label(*node), ": attr 'branches' names no function");
  }
  const auto& branches = it->second.list().func();
  const int n = branches.size();
  const NodeInputs in = InputsOf(*node);
  const std::string name = node->name();
  const DataTypeVector results = node->output_types();
  LoweringBuilder b(graph, *node, added);
  const TensorRef index = in.data[0];
  auto switch_n = [&](const std::string& suffix, DataType type, const TensorRef& data,
                      Node** out) {
    tensorflow::NodeDef def;
    def.set_name(name + suffix);
    def.set_op("_SwitchN");
    SetAttr(&def, "T", type);
    SetAttr(&def, "num_outs", int64_t{n});
    return b.Add(std::move(def), {data, index}, in.control, out);
  };
  Node* index_switch = nullptr;
  AF_RETURN_IF_ERROR(switch_n("/switch_index", DT_INT32, index, &index_switch));
  std::vector<Node*> pivots(n);
  for (int k = 0; k < n; ++k) {
    AF_RETURN_IF_ERROR(b.Simple(name + "/pivot_" + std::to_string(k), "Identity", DT_INT32,
                                {{index_switch, k}}, {}, &pivots[k]));
  }
  std::vector<std::vector<TensorRef>> args(n);
  for (size_t i = 1; i < in.data.size(); ++i) {
    Node* sw = nullptr;
    AF_RETURN_IF_ERROR(switch_n("/input_" + std::to_string(i - 1),
                                BaseType(node->input_type(static_cast<int>(i))), in.data[i], &sw));
    for (int k = 0; k < n; ++k) args[k].push_back({sw, k});
  }
  std::vector<Node*> branch_calls(n);
  for (int k = 0; k < n; ++k) {
    tensorflow::AttrValue function;
    *function.mutable_func() = branches[k];
    AF_RETURN_IF_ERROR(b.Call(name + "/branch_" + std::to_string(k), stateful, function, args[k],
                              results, {pivots[k]}, &branch_calls[k]));
    calls->push_back(branch_calls[k]);
  }
  auto merge = [&](const std::string& suffix, DataType type, const std::vector<TensorRef>& from,
                   Node** out) {
    tensorflow::NodeDef def;
    def.set_name(name + suffix);
    def.set_op("Merge");
    SetAttr(&def, "T", type);
    SetAttr(&def, "N", int64_t{n});
    return b.Add(std::move(def), from, {}, out);
  };
  std::vector<TensorRef> merged;
  for (size_t i = 0; i < results.size(); ++i) {
    std::vector<TensorRef> from;
    for (int k = 0; k < n; ++k) from.push_back({branch_calls[k], static_cast<int>(i)});
    Node* m = nullptr;
    AF_RETURN_IF_ERROR(merge("/output_" + std::to_string(i), results[i], from, &m));
    merged.push_back({m, 0});
  }
  // Without results, the node waits for whichever branch ran.
  std::vector<Node*> waits_for;
  if (results.empty()) {
    std::vector<TensorRef> done;
    for (int k = 0; k < n; ++k) {
      Node* after = nullptr;
      AF_RETURN_IF_ERROR(b.Simple(name + "/branch_" + std::to_string(k) + "_done", "Identity",
                                  DT_INT32, {{pivots[k], 0}}, {branch_calls[k]}, &after));
      done.push_back({after, 0});
    }
    Node* executed = nullptr;
    AF_RETURN_IF_ERROR(merge("/branch_executed", DT_INT32, done, &executed));
    waits_for.push_back(executed);
  }
  return ReplaceNodeByResults(graph, node, merged, results, waits_for, added);
}

Status LowerWhile(Graph* graph, Node* node, std::vector<int>* added, std::vector<Node*>* calls) {
  const bool stateful = node->type_string() == "While";
  const tensorflow::AttrValue *cond = nullptr, *body = nullptr;
  AF_RETURN_IF_ERROR(FuncAttr(*node, "cond", &cond));
  AF_RETURN_IF_ERROR(FuncAttr(*node, "body", &body));
  const NodeInputs in = InputsOf(*node);
  if (in.data.empty()) return errors::InvalidArgument(Label(*node), ": a loop without variables");
  int64_t parallel_iterations = 10;
  GetNodeAttr(node->def(), "parallel_iterations", &parallel_iterations).ok();
  const std::string name = node->name();
  const DataTypeVector types = node->output_types();
  LoweringBuilder b(graph, *node, added);
  std::vector<Node*> merges;
  std::vector<TensorRef> loop_values;
  for (size_t i = 0; i < in.data.size(); ++i) {
    tensorflow::NodeDef enter;
    enter.set_name(name + "/enter_" + std::to_string(i));
    enter.set_op("Enter");
    SetAttr(&enter, "T", types[i]);
    SetAttr(&enter, "frame_name", name);
    SetAttr(&enter, "parallel_iterations", parallel_iterations);
    Node* entered = nullptr;
    AF_RETURN_IF_ERROR(b.Add(std::move(enter), {in.data[i]}, in.control, &entered));
    tensorflow::NodeDef merge;
    merge.set_name(name + "/merge_" + std::to_string(i));
    merge.set_op("Merge");
    SetAttr(&merge, "T", types[i]);
    SetAttr(&merge, "N", int64_t{2});
    Node* merged = nullptr;
    // Input 1 (the NextIteration) is wired once the body exists.
    AF_RETURN_IF_ERROR(b.Add(std::move(merge), {{entered, 0}, {}}, {}, &merged));
    merges.push_back(merged);
    loop_values.push_back({merged, 0});
  }
  Node* cond_call = nullptr;
  AF_RETURN_IF_ERROR(
      b.Call(name + "/cond", stateful, *cond, loop_values, {DT_BOOL}, {}, &cond_call));
  calls->push_back(cond_call);
  Node* loop_cond = nullptr;
  AF_RETURN_IF_ERROR(
      b.Simple(name + "/loop_cond", "LoopCond", DT_INVALID, {{cond_call, 0}}, {}, &loop_cond));
  std::vector<TensorRef> body_args, exits;
  for (size_t i = 0; i < merges.size(); ++i) {
    const std::string suffix = "_" + std::to_string(i);
    Node *sw = nullptr, *taken = nullptr, *exit = nullptr;
    AF_RETURN_IF_ERROR(b.Simple(name + "/switch" + suffix, "Switch", types[i],
                                {{merges[i], 0}, {loop_cond, 0}}, {}, &sw));
    AF_RETURN_IF_ERROR(
        b.Simple(name + "/body_input" + suffix, "Identity", types[i], {{sw, 1}}, {}, &taken));
    AF_RETURN_IF_ERROR(b.Simple(name + "/exit" + suffix, "Exit", types[i], {{sw, 0}}, {}, &exit));
    body_args.push_back({taken, 0});
    exits.push_back({exit, 0});
  }
  Node* body_call = nullptr;
  AF_RETURN_IF_ERROR(b.Call(name + "/body", stateful, *body, body_args, types, {}, &body_call));
  calls->push_back(body_call);
  for (size_t i = 0; i < merges.size(); ++i) {
    Node* next = nullptr;
    AF_RETURN_IF_ERROR(b.Simple(name + "/next_" + std::to_string(i), "NextIteration", types[i],
                                {{body_call, static_cast<int>(i)}}, {}, &next));
    graph->AddEdge(next, 0, merges[i], 1);
    Graph::WriteInputs(*merges[i], merges[i]->mutable_def());
  }
  return ReplaceNodeByResults(graph, node, exits, types, {}, added);
}

}  // namespace

bool IsFunctionalControlFlow(const Node& node) {
  const std::string& op = node.type_string();
  return op == "If" || op == "StatelessIf" || op == "Case" || op == "StatelessCase" ||
         op == "While" || op == "StatelessWhile";
}

Status LowerFunctionalControlFlow(Graph* graph, Node* node, std::vector<int>* added,
                                  std::vector<Node*>* calls) {
  const std::string& op = node->type_string();
  if (op == "If" || op == "StatelessIf") return LowerIf(graph, node, added, calls);
  if (op == "Case" || op == "StatelessCase") return LowerCase(graph, node, added, calls);
  return LowerWhile(graph, node, added, calls);
}

}  // namespace af
