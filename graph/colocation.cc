#include "graph/colocation.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/node_def_util.h"

namespace af {
namespace {

class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int Find(int x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    // The lower id becomes the root, which keeps group numbering stable.
    if (a == b) return;
    if (a < b) std::swap(a, b);
    parent_[a] = b;
  }

 private:
  std::vector<int> parent_;
};

constexpr std::string_view kColocationPrefix = "loc:@";

bool ReadsReference(const Edge& e) {
  if (e.IsControlEdge()) return false;
  DataType produced = e.src()->output_type(e.src_output());
  DataType consumed = e.dst()->input_type(e.dst_input());
  if (BaseType(produced) == DT_RESOURCE) return true;
  return IsRefType(produced) && IsRefType(consumed);
}

}  // namespace

Status ComputeColocationGroups(const Graph& g, ColocationGroups* out) {
  UnionFind uf(g.num_node_ids());
  std::vector<Node*> nodes = g.nodes();

  // `_class` attrs.
  std::unordered_map<std::string, int> class_root;
  for (Node* n : nodes) {
    if (!HasNodeAttr(n->def(), "_class")) continue;
    std::vector<std::string> classes;
    Status s = GetNodeAttr(n->def(), "_class", &classes);
    if (!s.ok()) {
      return errors::InvalidArgument("Node '", n->name(), "' (op ", n->type_string(),
                                     ") has a malformed _class attr: ", s.message());
    }
    for (const std::string& c : classes) {
      if (c.size() <= kColocationPrefix.size() ||
          c.compare(0, kColocationPrefix.size(), kColocationPrefix) != 0)
        continue;
      std::string target = c.substr(kColocationPrefix.size());
      auto [it, inserted] = class_root.emplace(target, n->id());
      if (!inserted) uf.Union(n->id(), it->second);
      if (Node* named = g.FindNode(target)) uf.Union(n->id(), named->id());
    }
  }

  // Reference and resource edges.
  for (const Edge* e : g.edges()) {
    if (ReadsReference(*e)) uf.Union(e->src()->id(), e->dst()->id());
  }

  // The control nodes of one loop variable.
  for (Node* merge : nodes) {
    if (!merge->IsMerge()) continue;
    bool is_loop = false;
    for (const Edge* e : merge->in_edges()) {
      if (!e->IsControlEdge() && e->src()->IsNextIteration()) is_loop = true;
    }
    if (!is_loop) continue;
    for (const Edge* e : merge->in_edges()) {
      if (e->IsControlEdge()) continue;
      if (e->src()->IsEnter() || e->src()->IsNextIteration()) uf.Union(merge->id(), e->src()->id());
    }
    for (const Edge* e : merge->out_edges()) {
      if (e->IsControlEdge() || e->src_output() != 0 || e->dst_input() != 0 ||
          !e->dst()->IsSwitch())
        continue;
      Node* sw = e->dst();
      uf.Union(merge->id(), sw->id());
      for (const Edge* out : sw->out_edges()) {
        if (!out->IsControlEdge() && out->src_output() == 0 && out->dst()->IsExit())
          uf.Union(merge->id(), out->dst()->id());
      }
    }
  }

  out->group_of.assign(g.num_node_ids(), -1);
  out->members.clear();
  std::unordered_map<int, int> group_of_root;
  for (Node* n : nodes) {
    int root = uf.Find(n->id());
    auto [it, inserted] = group_of_root.emplace(root, static_cast<int>(out->members.size()));
    if (inserted) out->members.emplace_back();
    out->group_of[n->id()] = it->second;
    out->members[it->second].push_back(n);
  }
  return Status::OK();
}

}  // namespace af
