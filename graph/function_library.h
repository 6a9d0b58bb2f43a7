// The functions a graph carries (GraphDef.library): finding one by name,
// merging the libraries of successive Extend calls, and telling which nodes
// call a function.
#pragma once

#include <string_view>
#include <unordered_map>

#include "core/status.h"
#include "graph/graph.h"
#include "proto/function.pb.h"

namespace af {

// Name -> definition, over a library that outlives the index.
class FunctionIndex {
 public:
  explicit FunctionIndex(const tensorflow::FunctionDefLibrary& library);
  // nullptr if the library has no function of that name.
  const tensorflow::FunctionDef* Find(std::string_view name) const;
  bool empty() const { return by_name_.empty(); }

 private:
  std::unordered_map<std::string_view, const tensorflow::FunctionDef*> by_name_;
};

// Adds `addition`'s functions and gradients to `into`. A function already
// there with the same definition is skipped (clients send their whole
// library with every Extend); one with a different definition is
// INVALID_ARGUMENT naming it, as TensorFlow refuses redefinitions.
Status MergeFunctionLibrary(const tensorflow::FunctionDefLibrary& addition,
                            tensorflow::FunctionDefLibrary* into);

// The function a node calls, with the attrs to instantiate it with:
// PartitionedCall and StatefulPartitionedCall name it in their `f` attr; a
// node whose op is a library function calls it directly with its own attrs.
// False for any other node.
struct FunctionCall {
  const tensorflow::FunctionDef* function = nullptr;
  const google::protobuf::Map<std::string, tensorflow::AttrValue>* attrs = nullptr;
};
bool IsFunctionCallOp(std::string_view op);
// NOT_FOUND naming the node when it calls a function the library lacks.
Status CalledFunction(const Node& node, const FunctionIndex& index, FunctionCall* call,
                      bool* is_call);

}  // namespace af
