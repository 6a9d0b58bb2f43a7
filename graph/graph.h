// Graph: the in-memory dataflow graph. Nodes carry their NodeDef (defaults
// filled in, validated against the OpDef) and resolved input/output types;
// edges are data edges (src:port -> dst:port) or control edges.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/op_registry.h"
#include "core/status.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "proto/function.pb.h"
#include "proto/graph.pb.h"
#include "proto/node_def.pb.h"

namespace af {

class Edge;
class Graph;

inline constexpr int kControlSlot = -1;

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def_.name(); }
  const std::string& type_string() const { return def_.op(); }
  const tensorflow::NodeDef& def() const { return def_; }
  tensorflow::NodeDef* mutable_def() { return &def_; }
  const tensorflow::OpDef& op_def() const { return *op_def_; }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }

  // Edges in and out (data and control), in insertion order.
  const std::vector<const Edge*>& in_edges() const { return in_edges_; }
  const std::vector<const Edge*>& out_edges() const { return out_edges_; }
  // The data edge feeding input `index`; NOT_FOUND if none.
  Status input_edge(int index, const Edge** out) const;

  // The device the NodeDef asks for (possibly partial, possibly empty) and
  // the device the placer chose.
  const std::string& requested_device() const { return def_.device(); }
  const std::string& assigned_device_name() const { return assigned_device_; }
  void set_assigned_device_name(std::string device) { assigned_device_ = std::move(device); }

  // Output shapes from shape inference at import/construction (unknown if
  // the op has no shape function).
  const std::vector<PartialTensorShape>& output_shapes() const { return output_shapes_; }
  void set_output_shapes(std::vector<PartialTensorShape> s) { output_shapes_ = std::move(s); }

  bool IsStateful() const { return op_def_->is_stateful(); }
  bool IsSwitch() const;         // Switch, RefSwitch
  bool IsMerge() const;          // Merge, RefMerge
  bool IsEnter() const;          // Enter, RefEnter
  bool IsExit() const;           // Exit, RefExit
  bool IsNextIteration() const;  // NextIteration, RefNextIteration
  bool IsLoopCond() const;
  bool IsControlFlow() const;  // any of the above
  bool IsSend() const;         // _Send, _HostSend
  bool IsRecv() const;         // _Recv, _HostRecv
  bool IsConstant() const;     // Const, HostConst
  bool IsPlaceholder() const;  // Placeholder, PlaceholderV2, PlaceholderWithDefault
  bool IsVariable() const;     // VariableV2, Variable, VarHandleOp

 private:
  friend class Graph;
  Node() = default;
  int id_ = -1;
  tensorflow::NodeDef def_;
  const tensorflow::OpDef* op_def_ = nullptr;
  DataTypeVector input_types_, output_types_;
  std::vector<const Edge*> in_edges_, out_edges_;
  std::string assigned_device_;
  std::vector<PartialTensorShape> output_shapes_;
};

class Edge {
 public:
  int id() const { return id_; }
  Node* src() const { return src_; }
  Node* dst() const { return dst_; }
  int src_output() const { return src_output_; }  // kControlSlot for control edges
  int dst_input() const { return dst_input_; }    // kControlSlot for control edges
  bool IsControlEdge() const { return src_output_ == kControlSlot; }
  std::string DebugString() const;  // "a:0 -> b:1" or "^a -> b"

 private:
  friend class Graph;
  Edge() = default;
  int id_ = -1;
  Node* src_ = nullptr;
  Node* dst_ = nullptr;
  int src_output_ = 0;
  int dst_input_ = 0;
};

class Graph {
 public:
  explicit Graph(const OpRegistry* registry = OpRegistry::Global());
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Adds a node without edges: looks up its op (NOT_FOUND "Op type not
  // registered"), fills default attrs, validates it, resolves its types.
  // Duplicate names are INVALID_ARGUMENT. The NodeDef's `input` list is
  // kept as written; edges are added separately.
  Status AddNode(tensorflow::NodeDef def, Node** out);
  const Edge* AddEdge(Node* src, int src_output, Node* dst, int dst_input);
  const Edge* AddControlEdge(Node* src, Node* dst);
  void RemoveEdge(const Edge* edge);
  void RemoveNode(Node* node);  // and its edges

  Node* FindNode(std::string_view name) const;
  Node* FindNodeId(int id) const;  // nullptr if removed
  int num_nodes() const { return num_nodes_; }
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }
  int num_edge_ids() const { return static_cast<int>(edges_.size()); }
  // Live nodes in id order.
  std::vector<Node*> nodes() const;
  std::vector<const Edge*> edges() const;

  const tensorflow::VersionDef& versions() const { return versions_; }
  void set_versions(const tensorflow::VersionDef& v) { versions_ = v; }
  const tensorflow::FunctionDefLibrary& library() const { return library_; }
  // Also makes each function's name an op that nodes may use (a direct
  // call, TensorFlow 1's way of calling a function).
  void set_library(const tensorflow::FunctionDefLibrary& l);
  const OpRegistry* op_registry() const { return registry_; }

  // A name not used by any node: "prefix", "prefix_1", ...
  std::string NewName(std::string_view prefix) const;

  // Writes nodes in id order with inputs rebuilt from the edges (data
  // inputs in port order, then control inputs as "^name"). Assigned devices
  // are written to NodeDef.device when set.
  void ToGraphDef(tensorflow::GraphDef* out) const;

  // Rewrites `def`'s input list from `node`'s edges, as ToGraphDef writes it
  // (for passes that rewire edges and keep the NodeDef in step).
  static void WriteInputs(const Node& node, tensorflow::NodeDef* def);

 private:
  const OpRegistry* registry_;
  std::vector<std::unique_ptr<Node>> nodes_;  // index = id; null when removed
  std::vector<std::unique_ptr<Edge>> edges_;  // index = id; null when removed
  std::unordered_map<std::string, Node*> by_name_;
  int num_nodes_ = 0;
  tensorflow::VersionDef versions_;
  tensorflow::FunctionDefLibrary library_;
  // Signatures of the library's functions as ops. Never erased: nodes keep
  // pointers to them, and a replaced library must not leave them dangling.
  std::unordered_map<std::string, std::unique_ptr<tensorflow::OpDef>> function_ops_;
  std::vector<std::unique_ptr<tensorflow::OpDef>> replaced_function_ops_;
};

}  // namespace af
