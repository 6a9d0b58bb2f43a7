#include "graph/common_subexpression.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "graph/algorithm.h"
#include "graph/graph_rewriter.h"

namespace af {
namespace {

using Input = std::pair<int, int>;  // source node id, source port

// What a node reads, normalized so that two equivalent nodes read the same.
struct Inputs {
  std::vector<Input> data;   // by input index
  std::vector<int> control;  // sorted, unique source ids
};

bool IsCommutative(const std::string& op) {
  static const std::unordered_set<std::string> kOps = {
      "Add", "AddV2", "Mul", "Maximum", "Minimum", "LogicalAnd", "LogicalOr", "Equal", "NotEqual"};
  return kOps.count(op) > 0;
}

// What a handle points to can change between two reads, however alike.
bool ReadsResource(const Node& n) {
  for (DataType t : n.input_types())
    if (BaseType(t) == DT_RESOURCE) return true;
  return false;
}

// False when a data input has no edge: such a node is left alone.
bool ReadInputs(const Node& n, Inputs* out) {
  out->data.assign(n.num_inputs(), Input{-1, -1});
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge()) {
      out->control.push_back(e->src()->id());
    } else if (e->dst_input() >= 0 && e->dst_input() < n.num_inputs()) {
      out->data[e->dst_input()] = {e->src()->id(), e->src_output()};
    }
  }
  for (const Input& in : out->data)
    if (in.first < 0) return false;
  std::sort(out->control.begin(), out->control.end());
  out->control.erase(std::unique(out->control.begin(), out->control.end()), out->control.end());
  if (out->data.size() == 2 && IsCommutative(n.type_string()))
    std::sort(out->data.begin(), out->data.end());
  return true;
}

// Bytes rather than MessageDifferencer: the latter calls 0.0 and -0.0 equal,
// and two Consts holding them must stay apart. Deterministic so that the
// map inside a func attr serializes one way.
std::string AttrBytes(const tensorflow::AttrValue& value) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    value.SerializeToCodedStream(&coded);
  }
  return out;
}

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

uint64_t HashNode(const Node& n, const Inputs& inputs) {
  std::hash<std::string> hs;
  uint64_t h = hs(n.type_string());
  h = Mix(h, hs(n.requested_device()));
  h = Mix(h, hs(n.assigned_device_name()));
  for (const Input& in : inputs.data) h = Mix(Mix(h, in.first), in.second);
  for (int c : inputs.control) h = Mix(h, static_cast<uint64_t>(c) * 31 + 7);
  // The attr map has no order: per-attr hashes are summed.
  uint64_t attrs = 0;
  for (const auto& [key, value] : n.def().attr()) attrs += Mix(hs(key), hs(AttrBytes(value)));
  return Mix(h, attrs);
}

bool SameAttrs(const Node& a, const Node& b) {
  const auto& am = a.def().attr();
  const auto& bm = b.def().attr();
  if (am.size() != bm.size()) return false;
  for (const auto& [key, value] : am) {
    auto it = bm.find(key);
    if (it == bm.end() || AttrBytes(value) != AttrBytes(it->second)) return false;
  }
  return true;
}

bool Equivalent(const Node& a, const Inputs& a_in, const Node& b, const Inputs& b_in) {
  return a.type_string() == b.type_string() && a.requested_device() == b.requested_device() &&
         a.assigned_device_name() == b.assigned_device_name() && a_in.data == b_in.data &&
         a_in.control == b_in.control && SameAttrs(a, b);
}

// One sweep in topological order. Returns whether a preserved node took an
// earlier node's place: the consumers of the removed node were hashed with
// it as their input, so another sweep may find more to merge.
Status Sweep(Graph* graph, const PassContext& context, const std::vector<bool>& in_loop,
             PassStats* stats, bool* replaced_earlier) {
  *replaced_earlier = false;
  std::vector<Node*> order;
  AF_RETURN_IF_ERROR(TopologicalOrder(*graph, &order));
  std::unordered_map<uint64_t, std::vector<Node*>> buckets;
  buckets.reserve(order.size());
  GraphRewriter rewriter(graph);
  // Nodes removed below are always the one being visited or one visited
  // before it, so the rest of `order` stays valid.
  for (Node* n : order) {
    if (in_loop[n->id()] || !IsPureNode(*n) || ReadsResource(*n)) continue;
    Inputs n_in;
    if (!ReadInputs(*n, &n_in)) continue;
    std::vector<Node*>& bucket = buckets[HashNode(*n, n_in)];
    const bool n_preserved = IsPreservedNode(*n, context);
    bool merged = false;
    for (Node*& kept : bucket) {
      Inputs kept_in;
      if (!ReadInputs(*kept, &kept_in) || !Equivalent(*kept, kept_in, *n, n_in)) continue;
      const bool kept_preserved = IsPreservedNode(*kept, context);
      if (!n_preserved) {
        rewriter.MoveOutEdges(n, kept);
        rewriter.RemoveNode(n);
      } else if (!kept_preserved) {
        rewriter.MoveOutEdges(kept, n);
        rewriter.RemoveNode(kept);
        kept = n;
        *replaced_earlier = true;
      } else {
        continue;  // both must stay
      }
      ++stats->nodes_removed;
      merged = true;
      break;
    }
    if (!merged) bucket.push_back(n);
  }
  stats->nodes_rewritten += rewriter.Finish();
  return Status::OK();
}

}  // namespace

Status EliminateCommonSubexpressions(Graph* graph, const PassContext& context, PassStats* stats) {
  const std::vector<bool> in_loop = NodesInLoops(*graph);
  // Every sweep that repeats removed a node, so this ends.
  bool again = true;
  while (again) AF_RETURN_IF_ERROR(Sweep(graph, context, in_loop, stats, &again));
  return Status::OK();
}

}  // namespace af
