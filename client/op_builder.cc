#include "client/op_builder.h"

#include "client/const_op.h"
#include "client/control_flow/frame_tracker.h"
#include "core/attr_value_util.h"
#include "core/node_def_util.h"

namespace af {

namespace {

bool IsNodeNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '-' || c == '/' || c == '>';
}

// TensorFlow's node-name rule ([A-Za-z0-9.][A-Za-z0-9_.\-/>]*, no empty
// name-scope component), so the GraphDef this scope writes imports anywhere.
Status CheckNodeName(const std::string& name, std::string_view op) {
  bool ok = !name.empty() && name[0] != '_' && name[0] != '-' && name[0] != '/' &&
            name[0] != '>' && name.back() != '/' && name.find("//") == std::string::npos;
  for (char c : name) ok = ok && IsNodeNameChar(c);
  if (ok) return Status::OK();
  return errors::InvalidArgument("node '", name, "' (op '", op, "'): invalid node name");
}

bool TypesCompatible(DataType produced, DataType expected) {
  if (IsRefType(expected)) return produced == expected;
  return BaseType(produced) == expected;
}

bool InGraph(const Graph& g, const Node* n) { return g.FindNodeId(n->id()) == n; }

}  // namespace

OpBuilder::OpBuilder(const Scope& scope, std::string_view op_type)
    : OpBuilder(scope, op_type, op_type) {}

OpBuilder::OpBuilder(const Scope& scope, std::string_view op_type, std::string_view default_name)
    : scope_(scope), op_type_(op_type), default_name_(default_name) {}

OpBuilder& OpBuilder::AddInput(const Input& input) {
  args_.push_back(Arg{{input}, false});
  return *this;
}

OpBuilder& OpBuilder::AddInputList(const InputList& inputs) {
  args_.push_back(Arg{inputs.inputs(), true});
  return *this;
}

OpBuilder& OpBuilder::SetAttrs(const AttrList& attrs) {
  for (const auto& [name, value] : attrs.values()) attrs_.Set(name, value);
  return *this;
}

Operation OpBuilder::Finish() {
  if (!scope_.ok()) return Operation();
  Node* node = nullptr;
  Status s = Build(&node);
  if (!s.ok()) {
    scope_.UpdateStatus(s);
    return Operation();
  }
  op_ = Operation(node);
  return op_;
}

Status OpBuilder::ResolveInputs(std::vector<std::vector<Output>>* resolved) {
  resolved->resize(args_.size());
  for (size_t a = 0; a < args_.size(); ++a) {
    for (const Input& in : args_[a].inputs) {
      if (!in.status().ok())
        return in.status().WithContext("input " + std::to_string(a) + " of a '" + op_type_ +
                                       "' op");
      Output out = in.output();
      if (in.is_constant()) {
        out = ops::Const(scope_.WithoutOpName(), Input::Initializer(in.tensor()));
        AF_RETURN_IF_ERROR(scope_.status());
      }
      if (!out.valid())
        return errors::InvalidArgument("input ", a, " of a '", op_type_,
                                       "' op is an invalid Output (from a failed op?)");
      if (!InGraph(*scope_.graph(), out.node()))
        return errors::InvalidArgument("input ", a, " of a '", op_type_, "' op ('", out.name(),
                                       "') belongs to another graph");
      if (out.index() < 0 || out.index() >= out.node()->num_outputs())
        return errors::InvalidArgument("input ", a, " of a '", op_type_, "' op names output ",
                                       out.index(), " of node '", out.node()->name(),
                                       "', which has ", out.node()->num_outputs(), " outputs");
      (*resolved)[a].push_back(out);
    }
  }
  return Status::OK();
}

Status OpBuilder::InferAttrsFromInputs(const tensorflow::OpDef& op_def,
                                       const std::vector<std::vector<Output>>& inputs,
                                       tensorflow::NodeDef* def) const {
  auto has = [&](const std::string& name) { return def->attr().count(name) != 0; };
  for (int a = 0; a < op_def.input_arg_size(); ++a) {
    const tensorflow::OpDef::ArgDef& arg = op_def.input_arg(a);
    const std::vector<Output>& outs = inputs[a];
    const bool list_arg = !arg.number_attr().empty() || !arg.type_list_attr().empty();
    if (args_[a].is_list && !list_arg)
      return errors::InvalidArgument(NodeContext(*def), ": input '", arg.name(),
                                     "' takes one tensor, not a list");
    if (!arg.number_attr().empty() && !has(arg.number_attr()))
      SetAttr(def, arg.number_attr(), static_cast<int64_t>(outs.size()));
    if (!arg.type_attr().empty() && !has(arg.type_attr()) && !outs.empty())
      SetAttr(def, arg.type_attr(), BaseType(outs[0].type()));
    if (!arg.type_list_attr().empty() && !has(arg.type_list_attr())) {
      DataTypeVector types;
      for (const Output& o : outs) types.push_back(BaseType(o.type()));
      SetAttr(def, arg.type_list_attr(), types);
    }
  }
  return Status::OK();
}

Status OpBuilder::Build(Node** out) {
  Graph* g = scope_.graph();
  const tensorflow::OpDef* op_def = nullptr;
  AF_RETURN_IF_ERROR(g->op_registry()->LookUpOpDef(op_type_, &op_def));
  std::vector<std::vector<Output>> inputs;
  AF_RETURN_IF_ERROR(ResolveInputs(&inputs));

  tensorflow::NodeDef def;
  def.set_name(scope_.GetUniqueNameForOp(default_name_));
  def.set_op(op_type_);
  AF_RETURN_IF_ERROR(CheckNodeName(def.name(), op_type_));
  if (!scope_.device().empty()) def.set_device(scope_.device());
  for (const auto& [name, value] : attrs_.values()) (*def.mutable_attr())[name] = value;
  if (!scope_.colocation_constraints().empty())
    SetAttr(&def, "_class", scope_.colocation_constraints());
  if (scope_.device_function()) {
    // As TensorFlow's colocate_with: a colocated op follows its group and
    // requests no device of its own.
    if (scope_.colocation_constraints().empty()) {
      def.set_device(scope_.device_function()(def));
    } else {
      def.clear_device();
    }
  }
  if (static_cast<int>(inputs.size()) != op_def->input_arg_size())
    return errors::InvalidArgument(NodeContext(def), ": got ", inputs.size(),
                                   " input args but the op has ", op_def->input_arg_size());
  AF_RETURN_IF_ERROR(InferAttrsFromInputs(*op_def, inputs, &def));
  std::vector<Output> flat;
  for (const auto& arg : inputs) flat.insert(flat.end(), arg.begin(), arg.end());
  for (const Output& o : flat) def.add_input(o.name());
  for (const Operation& dep : scope_.control_deps()) def.add_input("^" + dep.name());

  Node* n = nullptr;
  AF_RETURN_IF_ERROR(g->AddNode(def, &n));
  auto fail = [&](Status s) {
    g->RemoveNode(n);
    return s;
  };
  if (static_cast<int>(flat.size()) != n->num_inputs())
    return fail(errors::InvalidArgument(NodeContext(n->def()), ": got ", flat.size(),
                                        " inputs but the op expects ", n->num_inputs()));
  for (int i = 0; i < n->num_inputs(); ++i) {
    if (!TypesCompatible(flat[i].type(), n->input_type(i)))
      return fail(errors::InvalidArgument(NodeContext(n->def()), ": input ", i, " expects ",
                                          DataTypeString(n->input_type(i)), " but '",
                                          flat[i].name(), "' produces ",
                                          DataTypeString(flat[i].type())));
  }
  for (const Operation& dep : scope_.control_deps()) {
    if (!InGraph(*g, dep.node()))
      return fail(errors::InvalidArgument(NodeContext(n->def()), ": control dependency '",
                                          dep.name(), "' belongs to another graph"));
  }
  for (int i = 0; i < n->num_inputs(); ++i) g->AddEdge(flat[i].node(), flat[i].index(), n, i);
  for (const Operation& dep : scope_.control_deps()) g->AddControlEdge(dep.node(), n);
  Status s = scope_.frame_tracker()->Place(n, scope_.frame_context());
  if (!s.ok()) return fail(s);
  s = scope_.RefineNode(n);
  if (!s.ok()) return fail(s);
  *out = n;
  return Status::OK();
}

Output OpBuilder::OutputForArg(std::string_view arg) const {
  OutputList list = OutputsForArg(arg);
  return list.empty() ? Output() : list[0];
}

OutputList OpBuilder::OutputsForArg(std::string_view arg) const {
  OutputList list;
  if (!op_.valid()) return list;
  int start = 0, stop = 0;
  if (!NameRangeForArg(op_.node()->def(), op_.node()->op_def(), arg, false, &start, &stop).ok())
    return list;
  for (int i = start; i < stop; ++i) list.emplace_back(op_.node(), i);
  return list;
}

}  // namespace af
