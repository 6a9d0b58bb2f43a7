#include "graph/arithmetic_simplification.h"

#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/node_def_util.h"
#include "core/tensor.h"
#include "graph/algorithm.h"
#include "graph/graph_rewriter.h"

namespace af {
namespace {

struct Rewrite {
  Node* x = nullptr;  // what the consumers read instead
  int port = 0;
  // By id: a node may be removed while a later entry still names it.
  std::vector<int> dropped;  // removed too if left without consumers
};

Node* DataInput(const Node& n, int index, int* port) {
  const Edge* e = nullptr;
  if (!n.input_edge(index, &e).ok() || e->IsControlEdge()) return nullptr;
  *port = e->src_output();
  return e->src();
}

bool HasControlInput(const Node& n) {
  for (const Edge* e : n.in_edges())
    if (e->IsControlEdge()) return true;
  return false;
}

// Dropping such an operand loses no dependency: it has none, and it is
// always live.
bool IsStandaloneConst(const Node* n) {
  return n != nullptr && n->IsConstant() && n->in_edges().empty();
}

// Whether every element of `n`'s value equals `want` (0 or 1) exactly; both
// zeros count as 0. Only real types: a complex 1 can still turn an infinite
// operand into NaN.
bool ConstIsAll(const Node* n, int want) {
  if (!IsStandaloneConst(n)) return false;
  Tensor t;
  if (!GetNodeAttr(n->def(), "value", &t).ok()) return false;
  bool all = false;
  VisitDataType(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t count = t.NumElements();
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      const T* p = t.data<T>();
      all = true;
      for (int64_t i = 0; i < count && all; ++i) {
        float v = 0;
        if constexpr (std::is_same_v<T, half>)
          v = HalfToFloat(p[i]);
        else
          v = BFloat16ToFloat(p[i]);
        all = v == static_cast<float>(want);
      }
    } else if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      const T* p = t.data<T>();
      all = true;
      for (int64_t i = 0; i < count && all; ++i) all = p[i] == static_cast<T>(want);
    }
  });
  return all;
}

bool ReadPermutation(const Node* n, std::vector<int64_t>* perm) {
  if (!IsStandaloneConst(n)) return false;
  Tensor t;
  if (!GetNodeAttr(n->def(), "value", &t).ok() || t.dims() != 1) return false;
  perm->clear();
  if (t.dtype() == DT_INT32) {
    for (int64_t i = 0; i < t.NumElements(); ++i) perm->push_back(t.data<int32_t>()[i]);
  } else if (t.dtype() == DT_INT64) {
    for (int64_t i = 0; i < t.NumElements(); ++i) perm->push_back(t.data<int64_t>()[i]);
  } else {
    return false;
  }
  return true;
}

// The rewrite must not change the static shape or dtype seen downstream.
bool SameStaticType(const Node& n, const Node& x, int port) {
  if (n.num_outputs() != 1 || n.output_shapes().empty() ||
      static_cast<int>(x.output_shapes().size()) <= port)
    return false;
  const PartialTensorShape& a = n.output_shapes()[0];
  const PartialTensorShape& b = x.output_shapes()[port];
  return a.IsFullyDefined() && b.IsFullyDefined() && a == b &&
         x.output_type(port) == n.output_type(0);
}

bool IsRealType(DataType t) { return DataTypeIsFloating(t) || DataTypeIsInteger(t); }

// x op c == x when c is `neutral` everywhere; `either_side` for the ops
// where c may come first.
bool MatchNeutralOperand(const Node& n, int neutral, bool either_side, Rewrite* out) {
  for (int c_side : {1, 0}) {
    if (c_side == 0 && !either_side) break;
    int x_port = 0, c_port = 0;
    Node* x = DataInput(n, 1 - c_side, &x_port);
    Node* c = DataInput(n, c_side, &c_port);
    if (x == nullptr || !SameStaticType(n, *x, x_port) || !ConstIsAll(c, neutral)) continue;
    *out = Rewrite{x, x_port, {c->id()}};
    return true;
  }
  return false;
}

bool MatchDoubleTranspose(const Node& n, const std::vector<bool>& in_loop, Rewrite* out) {
  int inner_port = 0, unused = 0, x_port = 0;
  Node* inner = DataInput(n, 0, &inner_port);
  if (inner == nullptr || inner->type_string() != "Transpose" || inner_port != 0) return false;
  if (in_loop[inner->id()] || !IsPureNode(*inner) || HasControlInput(*inner)) return false;
  Node* outer_perm_node = DataInput(n, 1, &unused);
  Node* inner_perm_node = DataInput(*inner, 1, &unused);
  Node* x = DataInput(*inner, 0, &x_port);
  std::vector<int64_t> outer_perm, inner_perm;
  if (x == nullptr || !ReadPermutation(outer_perm_node, &outer_perm) ||
      !ReadPermutation(inner_perm_node, &inner_perm) || outer_perm.size() != inner_perm.size())
    return false;
  // out dim j = inner dim outer_perm[j] = x dim inner_perm[outer_perm[j]].
  const int64_t rank = static_cast<int64_t>(outer_perm.size());
  for (int64_t j = 0; j < rank; ++j) {
    const int64_t o = outer_perm[j];
    if (o < 0 || o >= rank || inner_perm[o] != j) return false;
  }
  if (!SameStaticType(n, *x, x_port)) return false;
  *out = Rewrite{x, x_port, {outer_perm_node->id(), inner->id(), inner_perm_node->id()}};
  return true;
}

bool MatchReshape(const Node& n, Rewrite* out) {
  int x_port = 0, shape_port = 0;
  Node* x = DataInput(n, 0, &x_port);
  Node* shape = DataInput(n, 1, &shape_port);
  if (x == nullptr || !IsStandaloneConst(shape) || !SameStaticType(n, *x, x_port)) return false;
  *out = Rewrite{x, x_port, {shape->id()}};
  return true;
}

bool Match(const Node& n, const std::vector<bool>& in_loop, Rewrite* out) {
  const std::string& op = n.type_string();
  if (op == "Transpose") return MatchDoubleTranspose(n, in_loop, out);
  if (op == "Reshape") return MatchReshape(n, out);
  if (n.num_outputs() != 1) return false;
  const DataType t = n.output_type(0);
  if (op == "Mul") return IsRealType(t) && MatchNeutralOperand(n, 1, true, out);
  if (op == "Add" || op == "AddV2") return IsRealType(t) && MatchNeutralOperand(n, 0, true, out);
  if (op == "Sub") return IsRealType(t) && MatchNeutralOperand(n, 0, false, out);
  if (op == "RealDiv" || op == "Div")
    return DataTypeIsFloating(t) && MatchNeutralOperand(n, 1, false, out);
  return false;
}

bool HasControlOutEdge(const Node& n) {
  for (const Edge* e : n.out_edges())
    if (e->IsControlEdge()) return true;
  return false;
}

}  // namespace

Status SimplifyArithmetic(Graph* graph, const PassContext& context, PassStats* stats) {
  const std::vector<bool> in_loop = NodesInLoops(*graph);
  std::vector<Node*> order;
  AF_RETURN_IF_ERROR(TopologicalOrder(*graph, &order));
  GraphRewriter rewriter(graph);
  // Inputs first, so a chain like (x * 1) + 0 sees x by the time the Add
  // is visited. Everything removed below is the node visited or one of its
  // inputs, both behind us in `order`.
  for (Node* n : order) {
    if (in_loop[n->id()] || !IsPureNode(*n) || IsPreservedNode(*n, context) || HasControlInput(*n))
      continue;
    Rewrite r;
    if (!Match(*n, in_loop, &r)) continue;
    // A Switch's control signal is live on both branches; the node's was
    // not, so its control successors cannot move there.
    if (r.x->IsSwitch() && HasControlOutEdge(*n)) continue;
    rewriter.Bypass(n, r.x, r.port);
    ++stats->nodes_removed;
    for (int id : r.dropped) {
      Node* d = graph->FindNodeId(id);
      if (d == nullptr || !d->out_edges().empty() || IsPreservedNode(*d, context)) continue;
      rewriter.RemoveNode(d);
      ++stats->nodes_removed;
    }
  }
  stats->nodes_rewritten += rewriter.Finish();
  return Status::OK();
}

}  // namespace af
