#include "graph/colocation.h"

#include <algorithm>
#include <deque>
#include <map>
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

LoopFrames ComputeLoopFrames(const Graph& g) {
  LoopFrames frames;
  frames.frame_of.assign(g.num_node_ids(), -1);
  frames.parents.push_back(0);
  std::map<std::pair<int, std::string>, int> frame_ids;  // (parent, name) -> frame
  std::deque<Node*> queue;
  std::vector<Node*> nodes = g.nodes();
  for (Node* n : nodes) {
    if (n->in_edges().empty()) {
      frames.frame_of[n->id()] = 0;
      queue.push_back(n);
    }
  }
  auto successor_frame = [&](Node* n) {
    int frame = frames.frame_of[n->id()];
    if (n->IsEnter()) {
      std::string name;
      if (!GetNodeAttr(n->def(), "frame_name", &name).ok()) name = n->name();
      auto [it, inserted] =
          frame_ids.emplace(std::make_pair(frame, name), static_cast<int>(frames.parents.size()));
      if (inserted) frames.parents.push_back(frame);
      return it->second;
    }
    if (n->IsExit()) return frames.parents[frame];
    return frame;
  };
  while (!queue.empty()) {
    Node* n = queue.front();
    queue.pop_front();
    int next = successor_frame(n);
    for (const Edge* e : n->out_edges()) {
      Node* dst = e->dst();
      if (frames.frame_of[dst->id()] >= 0) continue;
      frames.frame_of[dst->id()] = next;
      queue.push_back(dst);
    }
  }
  // Nodes only reachable through a cycle without an entry (an invalid
  // graph, rejected elsewhere) count as outside any loop.
  for (Node* n : nodes) {
    if (frames.frame_of[n->id()] < 0) frames.frame_of[n->id()] = 0;
  }
  return frames;
}

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

  // Loop frames: each non-root frame collapses onto one representative,
  // and an Enter joins the frame it enters.
  LoopFrames frames = ComputeLoopFrames(g);
  std::vector<int> frame_rep(frames.parents.size(), -1);
  for (Node* n : nodes) {
    int f = frames.frame_of[n->id()];
    if (f != 0) {
      if (frame_rep[f] < 0) frame_rep[f] = n->id();
      uf.Union(n->id(), frame_rep[f]);
    }
  }
  for (Node* n : nodes) {
    if (!n->IsEnter()) continue;
    for (const Edge* e : n->out_edges()) uf.Union(n->id(), e->dst()->id());
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
