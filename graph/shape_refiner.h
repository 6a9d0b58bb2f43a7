// ShapeRefiner: runs op shape functions node by node over a Graph, feeding
// each node the shapes its producers recorded and the values of small
// constant inputs. GraphDef import runs it over a whole graph in
// topological order; the client's Scope runs it on each node as it is
// added, so both infer shapes with the same rules.
#pragma once

#include <deque>
#include <optional>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "graph/graph.h"

namespace af {

struct ShapeRefinerOptions {
  // Treats Shape, Size and Rank of an input whose shape is fully known as
  // constants, so that shapes computed in the graph (as gradients do) stay
  // static for the shape functions downstream.
  bool evaluate_shape_ops = false;
};

class ShapeRefiner {
 public:
  explicit ShapeRefiner(const Graph& graph, ShapeRefinerOptions options = {});

  // Infers `n`'s output shapes and records them on the node. The producers
  // of its inputs must have been refined (or be left unknown). Errors name
  // the node and its op.
  Status RefineNode(Node* n);

 private:
  // The value of `n`'s output `port` if it is known at graph-building time
  // (a small Const, or Shape/Size/Rank of a known shape); nullptr otherwise.
  Status ConstantOutput(const Node* n, int port, const Tensor** out);
  Status DecodeConst(const Node* n, std::optional<Tensor>* value);
  void EvaluateShapeOp(const Node* n, std::optional<Tensor>* value);

  const Graph& graph_;
  ShapeRefinerOptions options_;
  // Indexed by node id; grows as the graph does. A deque: growing it keeps
  // the values already handed to the node being refined where they are (a
  // vector's resize moved them while a shape function held their address).
  std::deque<std::optional<Tensor>> values_;
  std::vector<bool> evaluated_;
  std::vector<PartialTensorShape> input_shapes_, output_shapes_;
  std::vector<const Tensor*> input_tensors_;
};

}  // namespace af
