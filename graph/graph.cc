#include "graph/graph.h"

#include <algorithm>

#include "core/node_def_util.h"

namespace af {

namespace {

bool OpIs(const Node& n, std::string_view a, std::string_view b = {}) {
  const std::string& op = n.type_string();
  return op == a || (!b.empty() && op == b);
}

// Drops `edge` from `edges` keeping the order of the rest.
void EraseEdge(std::vector<const Edge*>* edges, const Edge* edge) {
  auto it = std::find(edges->begin(), edges->end(), edge);
  if (it != edges->end()) edges->erase(it);
}

}  // namespace

// ---- Node ----

Status Node::input_edge(int index, const Edge** out) const {
  for (const Edge* e : in_edges_) {
    if (e->dst_input() == index) {
      *out = e;
      return Status::OK();
    }
  }
  return errors::NotFound("node '", name(), "' has no edge into input ", index);
}

bool Node::IsSwitch() const { return OpIs(*this, "Switch", "RefSwitch") || OpIs(*this, "_SwitchN"); }
bool Node::IsMerge() const { return OpIs(*this, "Merge", "RefMerge"); }
bool Node::IsEnter() const { return OpIs(*this, "Enter", "RefEnter"); }
bool Node::IsExit() const { return OpIs(*this, "Exit", "RefExit"); }
bool Node::IsNextIteration() const { return OpIs(*this, "NextIteration", "RefNextIteration"); }
bool Node::IsLoopCond() const { return OpIs(*this, "LoopCond"); }
bool Node::IsControlFlow() const {
  return IsSwitch() || IsMerge() || IsEnter() || IsExit() || IsNextIteration() || IsLoopCond();
}
bool Node::IsSend() const { return OpIs(*this, "_Send", "_HostSend"); }
bool Node::IsRecv() const { return OpIs(*this, "_Recv", "_HostRecv"); }
bool Node::IsConstant() const { return OpIs(*this, "Const", "HostConst"); }
bool Node::IsPlaceholder() const {
  return OpIs(*this, "Placeholder", "PlaceholderV2") || OpIs(*this, "PlaceholderWithDefault");
}
bool Node::IsVariable() const {
  return OpIs(*this, "VariableV2", "Variable") || OpIs(*this, "VarHandleOp");
}

// ---- Edge ----

std::string Edge::DebugString() const {
  if (IsControlEdge()) return "^" + src_->name() + " -> " + dst_->name();
  return internal::StrCat(src_->name(), ":", src_output_, " -> ", dst_->name(), ":", dst_input_);
}

// ---- Graph ----

Graph::Graph(const OpRegistry* registry) : registry_(registry) {}

Graph::~Graph() = default;

void Graph::set_library(const tensorflow::FunctionDefLibrary& l) {
  library_ = l;
  for (const tensorflow::FunctionDef& f : library_.function()) {
    auto& slot = function_ops_[f.signature().name()];
    if (slot && slot->SerializeAsString() == f.signature().SerializeAsString()) continue;
    if (slot) replaced_function_ops_.push_back(std::move(slot));
    slot = std::make_unique<tensorflow::OpDef>(f.signature());
  }
}

Status Graph::AddNode(tensorflow::NodeDef def, Node** out) {
  if (def.name().empty()) {
    return errors::InvalidArgument("a node of op '", def.op(), "' has an empty name");
  }
  if (by_name_.count(def.name()) != 0) {
    return errors::InvalidArgument("node '", def.name(), "' (op '", def.op(),
                                   "'): duplicate node name");
  }
  const tensorflow::OpDef* op_def = nullptr;
  Status s = registry_->LookUpOpDef(def.op(), &op_def);
  if (!s.ok()) {
    auto function = function_ops_.find(def.op());
    if (function == function_ops_.end()) return s.WithContext("node '" + def.name() + "'");
    op_def = function->second.get();
  }

  AddDefaultsToNodeDef(*op_def, &def);
  AF_RETURN_IF_ERROR(ValidateNodeDef(def, *op_def));
  DataTypeVector inputs, outputs;
  AF_RETURN_IF_ERROR(InOutTypesForNode(def, *op_def, &inputs, &outputs));

  // Built completely before it becomes visible, so a failure above leaves
  // the graph untouched.
  auto node = std::unique_ptr<Node>(new Node());
  node->id_ = static_cast<int>(nodes_.size());
  node->def_ = std::move(def);
  node->op_def_ = op_def;
  node->input_types_ = std::move(inputs);
  node->output_types_ = std::move(outputs);
  node->output_shapes_.assign(node->output_types_.size(), PartialTensorShape::Unknown());

  Node* raw = node.get();
  by_name_.emplace(raw->name(), raw);
  nodes_.push_back(std::move(node));
  ++num_nodes_;
  if (out != nullptr) *out = raw;
  return Status::OK();
}

const Edge* Graph::AddEdge(Node* src, int src_output, Node* dst, int dst_input) {
  auto edge = std::unique_ptr<Edge>(new Edge());
  edge->id_ = static_cast<int>(edges_.size());
  edge->src_ = src;
  edge->dst_ = dst;
  edge->src_output_ = src_output;
  edge->dst_input_ = dst_input;
  const Edge* raw = edge.get();
  src->out_edges_.push_back(raw);
  dst->in_edges_.push_back(raw);
  edges_.push_back(std::move(edge));
  return raw;
}

const Edge* Graph::AddControlEdge(Node* src, Node* dst) {
  return AddEdge(src, kControlSlot, dst, kControlSlot);
}

void Graph::RemoveEdge(const Edge* edge) {
  if (edge == nullptr || edge->id() < 0 || edge->id() >= num_edge_ids() ||
      edges_[edge->id()].get() != edge) {
    return;  // not ours, or already removed
  }
  EraseEdge(&edge->src()->out_edges_, edge);
  EraseEdge(&edge->dst()->in_edges_, edge);
  edges_[edge->id()].reset();
}

void Graph::RemoveNode(Node* node) {
  if (node == nullptr || node->id() < 0 || node->id() >= num_node_ids() ||
      nodes_[node->id()].get() != node) {
    return;
  }
  // RemoveEdge shrinks these vectors; a self-loop sits in both, so each is
  // drained rather than walked over a copy.
  while (!node->in_edges_.empty()) RemoveEdge(node->in_edges_.back());
  while (!node->out_edges_.empty()) RemoveEdge(node->out_edges_.back());
  by_name_.erase(node->name());
  --num_nodes_;
  nodes_[node->id()].reset();
}

Node* Graph::FindNode(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

Node* Graph::FindNodeId(int id) const {
  if (id < 0 || id >= num_node_ids()) return nullptr;
  return nodes_[id].get();
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(num_nodes_);
  for (const auto& n : nodes_) {
    if (n) out.push_back(n.get());
  }
  return out;
}

std::vector<const Edge*> Graph::edges() const {
  std::vector<const Edge*> out;
  for (const auto& e : edges_) {
    if (e) out.push_back(e.get());
  }
  return out;
}

std::string Graph::NewName(std::string_view prefix) const {
  std::string name(prefix);
  for (int i = 1; by_name_.count(name) != 0; ++i) {
    name = internal::StrCat(prefix, "_", i);
  }
  return name;
}

void Graph::ToGraphDef(tensorflow::GraphDef* out) const {
  out->Clear();
  *out->mutable_versions() = versions_;
  *out->mutable_library() = library_;
  for (const auto& node : nodes_) {
    if (!node) continue;
    tensorflow::NodeDef* def = out->add_node();
    *def = node->def_;
    if (!node->assigned_device_.empty()) def->set_device(node->assigned_device_);
    WriteInputs(*node, def);
  }
}

void Graph::WriteInputs(const Node& node, tensorflow::NodeDef* def) {
  std::vector<const Edge*> data_in;
  for (const Edge* e : node.in_edges_) {
    if (!e->IsControlEdge()) data_in.push_back(e);
  }
  std::stable_sort(data_in.begin(), data_in.end(),
                   [](const Edge* a, const Edge* b) { return a->dst_input() < b->dst_input(); });
  def->clear_input();
  for (const Edge* e : data_in) {
    if (e->src_output() == 0) {
      def->add_input(e->src()->name());
    } else {
      def->add_input(internal::StrCat(e->src()->name(), ":", e->src_output()));
    }
  }
  for (const Edge* e : node.in_edges_) {
    if (e->IsControlEdge()) def->add_input("^" + e->src()->name());
  }
}

}  // namespace af
