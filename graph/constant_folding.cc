#include "graph/constant_folding.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/node_def_util.h"
#include "core/tensor_proto.h"
#include "graph/algorithm.h"

namespace af {
namespace {

using OutputId = std::pair<int, int>;  // node id, output port

// Each round of evaluation can only push the frontier one node back (a
// value too large or failing keeps its node); a deep chain of such nodes
// gives up early rather than evaluating it again and again.
constexpr int kMaxRounds = 8;

bool IsOpaqueType(DataType t) {
  const DataType base = BaseType(t);
  return IsRefType(t) || base == DT_RESOURCE || base == DT_VARIANT;
}

// Ops not marked stateful whose result still depends on the machine that
// runs them: folded, they would run once, on the master's host, instead of
// on their device's task at every step.
bool ReadsItsHost(const Node& n) { return n.type_string() == "ReadFile"; }

// What both steps require of a node they replace.
bool MayReplace(const Node& n, const PassContext& context, const std::vector<bool>& in_loop) {
  if (n.IsConstant() || n.num_outputs() == 0 || !IsPureNode(n) || ReadsItsHost(n)) return false;
  if (IsPreservedNode(n, context) || in_loop[n.id()]) return false;
  for (DataType t : n.input_types())
    if (IsOpaqueType(t)) return false;
  for (DataType t : n.output_types())
    if (IsOpaqueType(t)) return false;
  return true;
}

// By input index; null where an input has no edge.
std::vector<const Edge*> DataInputs(const Node& n) {
  std::vector<const Edge*> in(n.num_inputs(), nullptr);
  for (const Edge* e : n.in_edges())
    if (!e->IsControlEdge() && e->dst_input() >= 0 && e->dst_input() < n.num_inputs())
      in[e->dst_input()] = e;
  return in;
}

// The ports of `n` that nodes `outside` accepts read, plus port 0 when such
// a node depends on `n` by control only: the Const replacing port 0 takes
// over the ordering.
template <typename Outside>
std::vector<int> FrontierPorts(const Node& n, Outside outside) {
  std::vector<char> hit(n.num_outputs(), 0);
  for (const Edge* e : n.out_edges())
    if (outside(*e->dst())) hit[e->IsControlEdge() ? 0 : e->src_output()] = 1;
  std::vector<int> ports;
  for (int p = 0; p < n.num_outputs(); ++p)
    if (hit[p]) ports.push_back(p);
  return ports;
}

// Deadness starts at a Switch's untaken branch or a Recv of a dead value
// and flows along every edge; elsewhere a folded Const needs no control
// edge to die with its input.
std::vector<bool> MaybeDead(const Graph& g) {
  std::vector<bool> dead(g.num_node_ids(), false);
  std::deque<const Node*> work;
  for (const Node* n : g.nodes())
    if (n->IsSwitch() || n->IsRecv()) {
      dead[n->id()] = true;
      work.push_back(n);
    }
  while (!work.empty()) {
    const Node* n = work.front();
    work.pop_front();
    for (const Edge* e : n->out_edges())
      if (!dead[e->dst()->id()]) {
        dead[e->dst()->id()] = true;
        work.push_back(e->dst());
      }
  }
  return dead;
}

bool IsShapeOp(const Node& n) {
  const std::string& op = n.type_string();
  return op == "Shape" || op == "ShapeN" || op == "Size" || op == "Rank";
}

// The outputs of a Shape/ShapeN/Size/Rank node, from its inputs' static
// shapes; false when those do not determine them or int32 cannot hold them.
bool ShapeOpValues(const Node& n, std::vector<Tensor>* values) {
  const bool rank = n.type_string() == "Rank", size = n.type_string() == "Size";
  const std::vector<const Edge*> inputs = DataInputs(n);
  if (static_cast<int>(inputs.size()) != n.num_outputs()) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Edge* e = inputs[i];
    if (e == nullptr || e->src_output() >= static_cast<int>(e->src()->output_shapes().size()))
      return false;
    const PartialTensorShape& shape = e->src()->output_shapes()[e->src_output()];
    if (rank ? shape.unknown_rank() : !shape.IsFullyDefined()) return false;
    const DimVector& d = shape.dim_sizes();
    const std::vector<int64_t> v = rank   ? std::vector<int64_t>{shape.dims()}
                                   : size ? std::vector<int64_t>{shape.num_elements()}
                                          : std::vector<int64_t>(d.begin(), d.end());
    const TensorShape dims = rank || size ? TensorShape{} : TensorShape{d.size()};
    if (BaseType(n.output_type(static_cast<int>(i))) == DT_INT64) {
      values->push_back(Tensor::FromVector<int64_t>(v, dims));
      continue;
    }
    for (int64_t x : v)
      if (x > std::numeric_limits<int32_t>::max()) return false;
    values->push_back(Tensor::FromVector<int32_t>(std::vector<int32_t>(v.begin(), v.end()), dims));
  }
  return true;
}

// Strings count their payload: the cap is about the size of the graph.
size_t ValueBytes(const Tensor& t) {
  if (BaseType(t.dtype()) != DT_STRING || !t.IsInitialized()) return t.TotalBytes();
  size_t bytes = 0;
  const std::string* s = t.data<std::string>();
  for (int64_t i = 0; i < t.NumElements(); ++i) bytes += sizeof(std::string) + s[i].size();
  return bytes;
}

// -1 when the static shape or the element size is unknown.
int64_t StaticBytes(const Node& n, int port) {
  if (port >= static_cast<int>(n.output_shapes().size())) return -1;
  const PartialTensorShape& shape = n.output_shapes()[port];
  const int element = DataTypeSize(n.output_type(port));
  if (!shape.IsFullyDefined() || element == 0) return -1;
  if (shape.num_elements() > std::numeric_limits<int64_t>::max() / element)
    return std::numeric_limits<int64_t>::max();
  return shape.num_elements() * element;
}

void SortUnique(std::vector<int>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

class Folder {
 public:
  Folder(Graph* graph, const PassContext& context) : g_(graph), ctx_(context) {}

  Status MaterializeShapes() {
    const std::vector<bool> in_loop = NodesInLoops(*g_);
    const std::vector<bool> maybe_dead = MaybeDead(*g_);
    const auto dead = [&](int id) {  // a Const made here may carry deadness
      return id >= static_cast<int>(maybe_dead.size()) || maybe_dead[id];
    };
    for (Node* n : g_->nodes()) {
      if (!IsShapeOp(*n) || !MayReplace(*n, ctx_, in_loop)) continue;
      std::vector<Tensor> values;
      if (!ShapeOpValues(*n, &values)) continue;
      std::vector<int> deps;
      bool blocked = false;
      for (const Edge* e : n->in_edges()) {
        const Node* src = e->src();
        if (e->IsControlEdge()) {
          deps.push_back(src->id());
        } else if (dead(src->id())) {
          blocked |= src->IsSwitch() || src->IsRecv();
          deps.push_back(src->id());
        }
      }
      if (blocked) continue;
      SortUnique(&deps);
      std::vector<Replacement> outputs;
      for (int p : FrontierPorts(*n, [](const Node&) { return true; }))
        outputs.push_back({p, &values[p]});
      if (outputs.empty()) continue;
      AF_RETURN_IF_ERROR(ReplaceOutputs(n, outputs, deps));
      ours_.insert(n->id());
    }
    return Status::OK();
  }

  Status FoldEvaluated() {
    if (!ctx_.evaluate) return Status::OK();
    std::vector<Node*> order;
    AF_RETURN_IF_ERROR(TopologicalOrder(*g_, &order));
    const std::vector<bool> in_loop = NodesInLoops(*g_);
    const int num_ids = g_->num_node_ids();
    foldable_.assign(num_ids, 0);
    kept_.assign(num_ids, 0);
    piece_.resize(num_ids);
    for (int i = 0; i < num_ids; ++i) piece_[i] = i;
    const auto find = [this](int x) {
      while (piece_[x] != x) x = piece_[x] = piece_[piece_[x]];
      return x;
    };
    bool any = false;
    for (Node* n : order) {
      if (!MayReplace(*n, ctx_, in_loop)) continue;
      const std::vector<const Edge*> inputs = DataInputs(*n);
      bool ok = !inputs.empty();
      for (const Edge* e : inputs)
        ok = ok && e != nullptr && (e->src()->IsConstant() || foldable_[e->src()->id()]);
      if (!ok) continue;
      foldable_[n->id()] = 1;
      any = true;
      for (const Edge* e : inputs)
        if (foldable_[e->src()->id()]) piece_[find(e->src()->id())] = find(n->id());
    }
    if (!any) return Status::OK();
    for (int i = 0; i < num_ids; ++i) piece_[i] = find(i);

    std::map<OutputId, Tensor> values;
    const int64_t cap = std::max<int64_t>(0, ctx_.max_constant_bytes);
    const auto keep = [this](int id) {  // it stays computed; what it reads joins the frontier
      const bool added = !kept_[id];
      kept_[id] = 1;
      return added;
    };
    for (int round = 0; round < kMaxRounds; ++round) {
      std::vector<OutputId> needed;
      bool grew = false;
      for (const OutputId& o : Frontier(order)) {
        if (values.count(o) != 0) continue;
        // Too large before it is computed: not worth computing here.
        if (StaticBytes(*g_->FindNodeId(o.first), o.second) > cap) {
          grew |= keep(o.first);
        } else {
          needed.push_back(o);
        }
      }
      std::vector<int> all(needed.size());
      for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
      std::vector<std::optional<Tensor>> results(needed.size());
      if (!needed.empty()) Evaluate(needed, all, 0, &results);
      for (size_t i = 0; i < needed.size(); ++i) {
        if (results[i].has_value() && static_cast<int64_t>(ValueBytes(*results[i])) <= cap) {
          values.emplace(needed[i], std::move(*results[i]));
        } else {
          grew |= keep(needed[i].first);
        }
      }
      if (!grew) break;
    }

    // Control inputs from outside the folded part, gathered through the
    // Consts and foldable nodes that lead to each node.
    std::vector<std::vector<int>> deps(num_ids);
    for (const Node* n : order) {
      if (!n->IsConstant() && !foldable_[n->id()]) continue;
      std::vector<int>& d = deps[n->id()];
      for (const Edge* e : n->in_edges()) {
        const Node* src = e->src();
        if (src->IsConstant() || foldable_[src->id()]) {
          d.insert(d.end(), deps[src->id()].begin(), deps[src->id()].end());
        } else if (e->IsControlEdge()) {
          d.push_back(src->id());
        }
      }
      SortUnique(&d);
    }

    std::map<int, std::vector<Replacement>> by_node;
    std::unordered_set<int> incomplete;
    for (const OutputId& o : Frontier(order)) {
      auto it = values.find(o);
      if (it == values.end()) {
        incomplete.insert(o.first);
      } else {
        by_node[o.first].push_back({o.second, &it->second});
      }
    }
    for (int id = 0; id < num_ids; ++id)
      if (foldable_[id]) ours_.insert(id);
    for (const auto& [id, outputs] : by_node) {
      if (incomplete.count(id) != 0) continue;  // gave up on it: it stays whole
      AF_RETURN_IF_ERROR(ReplaceOutputs(g_->FindNodeId(id), outputs, deps[id]));
    }
    return Status::OK();
  }

  void RemoveOrphans() {
    std::deque<int> work(lost_successor_.begin(), lost_successor_.end());
    while (!work.empty()) {
      Node* n = g_->FindNodeId(work.front());
      work.pop_front();
      if (n == nullptr || !n->out_edges().empty() || IsPreservedNode(*n, ctx_)) continue;
      if (ours_.count(n->id()) == 0 && !n->IsConstant()) continue;
      for (const Edge* e : n->in_edges()) work.push_back(e->src()->id());
      g_->RemoveNode(n);
      ++stats_.nodes_removed;
    }
  }

  void Finish(PassStats* stats) {
    for (int id : touched_) {
      Node* n = g_->FindNodeId(id);
      if (n == nullptr) continue;
      Graph::WriteInputs(*n, n->mutable_def());
      if (created_.count(id) == 0) ++stats_.nodes_rewritten;
    }
    if (stats != nullptr) {
      stats->nodes_added += stats_.nodes_added;
      stats->nodes_removed += stats_.nodes_removed;
      stats->nodes_rewritten += stats_.nodes_rewritten;
    }
  }

 private:
  struct Replacement {
    int port;
    const Tensor* value;
  };

  bool IsFolded(int id) const {
    return id < static_cast<int>(foldable_.size()) && foldable_[id] && !kept_[id];
  }

  Status AddConst(const Node& original, int port, const Tensor& value,
                  const std::vector<int>& control_deps, Node** out) {
    tensorflow::NodeDef def;
    std::string name = original.name() + "/folded";
    if (port > 0) name += "_" + std::to_string(port);
    def.set_name(g_->NewName(name));
    def.set_op("Const");
    def.set_device(original.def().device());
    SetAttr(&def, "dtype", BaseType(value.dtype()));
    TensorToProtoContent(value, (*def.mutable_attr())["value"].mutable_tensor());
    const auto cls = original.def().attr().find("_class");
    if (cls != original.def().attr().end()) (*def.mutable_attr())["_class"] = cls->second;
    AF_RETURN_IF_ERROR(g_->AddNode(std::move(def), out));
    (*out)->set_output_shapes({PartialTensorShape(value.shape())});
    for (int id : control_deps)
      if (Node* dep = g_->FindNodeId(id)) g_->AddControlEdge(dep, *out);
    created_.insert((*out)->id());
    touched_.insert((*out)->id());
    ++stats_.nodes_added;
    return Status::OK();
  }

  // `outputs` in port order: the lowest port's Const inherits `n`'s control
  // successors.
  Status ReplaceOutputs(Node* n, const std::vector<Replacement>& outputs,
                        const std::vector<int>& control_deps) {
    Node* first = nullptr;
    for (const Replacement& r : outputs) {
      Node* c = nullptr;
      AF_RETURN_IF_ERROR(AddConst(*n, r.port, *r.value, control_deps, &c));
      const std::vector<const Edge*> out = n->out_edges();  // copy: edited below
      for (const Edge* e : out) {
        if (e->IsControlEdge() || e->src_output() != r.port) continue;
        Node* dst = e->dst();
        const int input = e->dst_input();
        g_->RemoveEdge(e);
        g_->AddEdge(c, 0, dst, input);
        touched_.insert(dst->id());
      }
      if (first == nullptr) first = c;
    }
    if (first == nullptr) return Status::OK();
    const std::vector<const Edge*> out = n->out_edges();
    for (const Edge* e : out) {
      if (!e->IsControlEdge()) continue;
      Node* dst = e->dst();
      g_->RemoveEdge(e);
      bool present = false;
      for (const Edge* in : dst->in_edges()) present |= in->IsControlEdge() && in->src() == first;
      if (!present) g_->AddControlEdge(first, dst);
      touched_.insert(dst->id());
    }
    lost_successor_.push_back(n->id());
    return Status::OK();
  }

  std::vector<OutputId> Frontier(const std::vector<Node*>& order) const {
    std::vector<OutputId> out;
    const auto outside = [this](const Node& d) { return !IsFolded(d.id()); };
    for (const Node* n : order) {
      if (!IsFolded(n->id())) continue;
      for (int p : FrontierPorts(*n, outside)) out.emplace_back(n->id(), p);
    }
    return out;
  }

  // All at once first; on failure, each connected piece, then each output
  // alone, so that one failing node keeps only what depends on it computed.
  void Evaluate(const std::vector<OutputId>& outputs, const std::vector<int>& which, int level,
                std::vector<std::optional<Tensor>>* results) {
    std::vector<Tensor> values;
    if (RunEvaluation(outputs, which, &values)) {
      for (size_t i = 0; i < which.size(); ++i) (*results)[which[i]] = std::move(values[i]);
      return;
    }
    if (which.size() == 1) return;
    std::map<int, std::vector<int>> parts;  // by piece, or by output
    for (int i : which) parts[level == 0 ? piece_[outputs[i].first] : i].push_back(i);
    if (parts.size() == 1) {
      parts.clear();
      for (int i : which) parts[i].push_back(i);
    }
    for (const auto& [key, part] : parts) Evaluate(outputs, part, level + 1, results);
  }

  bool RunEvaluation(const std::vector<OutputId>& outputs, const std::vector<int>& which,
                     std::vector<Tensor>* values) const {
    std::vector<char> in_cone(g_->num_node_ids(), 0);
    std::vector<const Node*> stack;
    stack.reserve(which.size());
    for (int i : which) stack.push_back(g_->FindNodeId(outputs[i].first));
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (in_cone[n->id()]) continue;
      in_cone[n->id()] = 1;
      for (const Edge* e : n->in_edges())
        if (!e->IsControlEdge()) stack.push_back(e->src());
    }
    tensorflow::GraphDef def;
    *def.mutable_versions() = g_->versions();
    for (int id = 0; id < g_->num_node_ids(); ++id) {
      if (!in_cone[id]) continue;
      const Node* n = g_->FindNodeId(id);
      tensorflow::NodeDef* node = def.add_node();
      *node = n->def();
      node->clear_device();
      // Ordering against the rest of the graph means nothing here, and the
      // nodes it names are not part of this graph.
      Graph::WriteInputs(*n, node);
      while (node->input_size() > 0 && node->input(node->input_size() - 1)[0] == '^')
        node->mutable_input()->RemoveLast();
    }
    for (size_t k = 0; k < which.size(); ++k) {
      const auto [id, port] = outputs[which[k]];
      const Node* n = g_->FindNodeId(id);
      tensorflow::NodeDef* r = def.add_node();
      r->set_name(g_->NewName("_folded_retval_" + std::to_string(k)));
      r->set_op("_Retval");
      r->add_input(port == 0 ? n->name() : n->name() + ":" + std::to_string(port));
      SetAttr(r, "T", BaseType(n->output_type(port)));
      SetAttr(r, "index", static_cast<int64_t>(k));
    }
    if (!ctx_.evaluate(def, static_cast<int>(which.size()), values).ok()) return false;
    if (values->size() != which.size()) return false;
    for (size_t k = 0; k < which.size(); ++k) {
      const auto [id, port] = outputs[which[k]];
      const Node* n = g_->FindNodeId(id);
      const Tensor& t = (*values)[k];
      if (BaseType(t.dtype()) != BaseType(n->output_type(port))) return false;
      if (!t.IsInitialized() && t.NumElements() != 0) return false;
      if (port < static_cast<int>(n->output_shapes().size()) &&
          !n->output_shapes()[port].IsCompatibleWith(t.shape()))
        return false;
    }
    return true;
  }

  Graph* g_;
  const PassContext& ctx_;
  PassStats stats_;
  std::vector<char> foldable_, kept_;  // by node id, step 2
  std::vector<int> piece_;             // by node id: a foldable node's connected piece
  std::unordered_set<int> ours_;       // removable once nothing reads them
  std::vector<int> lost_successor_;    // ids that lost an out-edge
  std::unordered_set<int> touched_;    // ids whose inputs changed
  std::unordered_set<int> created_;
};

}  // namespace

Status FoldConstants(Graph* graph, const PassContext& context, PassStats* stats) {
  Folder folder(graph, context);
  AF_RETURN_IF_ERROR(folder.MaterializeShapes());
  AF_RETURN_IF_ERROR(folder.FoldEvaluated());
  folder.RemoveOrphans();
  folder.Finish(stats);
  return Status::OK();
}

}  // namespace af
