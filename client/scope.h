// Scope: where the C++ API adds nodes, as TensorFlow's Scope. A scope
// carries a graph, a name scope ("layer1/dense"), and the device, control
// dependencies and colocation that every op built in it gets. Child scopes
// share the graph and the status with their parent: the first error sticks
// and every later op built in any scope of that graph is skipped, so a
// program builds its whole graph and checks `scope.ok()` once.
//
//   Scope root = Scope::NewRootScope();
//   auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
//   Scope layer = root.NewSubScope("layer1");
//   auto y = ops::MatMul(layer, x, w);          // named "layer1/MatMul"
//   AF_RETURN_IF_ERROR(root.status());
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client/ops.h"
#include "core/status.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"

namespace af {

class FrameTracker;
class ShapeRefiner;
struct SaveSliceInfo;

// Chooses the device of each op built in a scope, as TensorFlow's device
// functions (tf.device(fn)) do: it gets the node as built (op, name, attrs,
// and the scope's device as its requested device) and returns the device
// to request. Ops with a colocation constraint do not consult it: they
// follow the op they are colocated with (a variable's initializer and
// update ops follow the variable).
using DeviceFunction = std::function<std::string(const tensorflow::NodeDef& node)>;

class Scope {
 public:
  // A fresh graph with the global op registry.
  static Scope NewRootScope();
  // A root scope that adds to an existing graph (for instance one filled by
  // ImportGraphDef); `graph` must outlive every scope made from it.
  static Scope NewRootScopeForGraph(Graph* graph);

  Scope(const Scope&);
  Scope& operator=(const Scope&);
  Scope(Scope&&) noexcept;
  Scope& operator=(Scope&&) noexcept;
  ~Scope();

  // The next op built in the returned scope is named `name` (made unique
  // under the name scope: "x", then "x_1", ...).
  Scope WithOpName(std::string_view name) const;
  // A name scope nested in this one, made unique ("a", then "a_1").
  // An empty name returns the scope unchanged.
  Scope NewSubScope(std::string_view name) const;
  // Ops get this device constraint (full or partial device name).
  Scope WithDevice(std::string_view device) const;
  // Ops get the device `fn` chooses (client/replica_device_setter.h).
  Scope WithDeviceFunction(DeviceFunction fn) const;
  // Ops get control inputs from these ops, on top of the scope's own.
  Scope WithControlDependencies(const std::vector<Operation>& ops) const;
  Scope WithControlDependencies(const Output& output) const;
  Scope WithNoControlDependencies() const;
  // Ops are placed with `op` (TensorFlow's `_class` "loc:@name" attr).
  Scope ColocateWith(const Operation& op) const;
  Scope ColocateWith(const Output& output) const { return ColocateWith(output.op()); }
  Scope ClearColocation() const;

  bool ok() const;
  Status status() const;
  // Records `s` if no error was recorded before (the first error sticks).
  void UpdateStatus(const Status& s) const;

  Graph* graph() const;
  std::shared_ptr<Graph> graph_as_shared_ptr() const;  // null for NewRootScopeForGraph
  // Fails with the scope's error if it has one.
  Status ToGraphDef(tensorflow::GraphDef* out) const;

  // The full name the next op of type `default_name` gets, reserved so no
  // other op takes it.
  std::string GetUniqueNameForOp(std::string_view default_name) const;
  const std::string& name_scope() const;
  const std::string& device() const;
  const DeviceFunction& device_function() const;  // empty: none
  const std::vector<Operation>& control_deps() const;
  // Sorted "loc:@name" entries for the `_class` attr (empty: none).
  const std::vector<std::string>& colocation_constraints() const;

  // Named lists of ops kept with the graph, like TensorFlow's graph
  // collections ("variables", "trainable_variables", "initializers",
  // "global_step"). Shared by every scope of the graph.
  void AddToCollection(const std::string& name, const Operation& op) const;
  std::vector<Operation> GetCollection(const std::string& name) const;

  // Which variables are slices of a larger logical one (a partitioned
  // variable's shards), kept with the graph so that a Saver built later in
  // any scope of it saves them as slices (client/save_slice_info.h).
  void RecordSaveSliceInfo(const Operation& variable, const SaveSliceInfo& info) const;
  // nullptr: `variable` is saved whole.
  const SaveSliceInfo* FindSaveSliceInfo(const Node* variable) const;

  // Runs shape inference on a node just added to this scope's graph.
  Status RefineNode(Node* node) const;
  // The same name scope, device, control dependencies and colocation, but
  // without the pending op name (for helper nodes an op creates, such as
  // Consts for value inputs).
  Scope WithoutOpName() const;

  // For the control-flow builders (client/control_flow/): the graph's frame
  // tracker, and the loop frame ops built in this scope run in (the root
  // frame unless the scope was handed to a loop's condition or body).
  FrameTracker* frame_tracker() const;
  int frame_context() const;
  Scope WithFrameContext(int frame) const;

 private:
  struct Impl;
  explicit Scope(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace af
