// Hand-built GraphDefs for session tests: a few node constructors and a
// helper that runs a step and returns its status and outputs.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "client/session.h"
#include "core/tensor.h"
#include "core/tensor_proto.h"
#include "proto/graph.pb.h"

namespace af::testing {

class GraphBuilder {
 public:
  // Returns the node so callers can tweak it; `device` may be empty.
  tensorflow::NodeDef* Placeholder(const std::string& name, DataType dtype,
                                   const std::string& device = "") {
    tensorflow::NodeDef* n = Add(name, "Placeholder", {}, device);
    (*n->mutable_attr())["dtype"].set_type(static_cast<tensorflow::DataType>(dtype));
    return n;
  }
  tensorflow::NodeDef* Const(const std::string& name, const Tensor& value,
                             const std::string& device = "") {
    tensorflow::NodeDef* n = Add(name, "Const", {}, device);
    (*n->mutable_attr())["dtype"].set_type(static_cast<tensorflow::DataType>(value.dtype()));
    TensorToProtoContent(value, (*n->mutable_attr())["value"].mutable_tensor());
    return n;
  }
  // An op whose only type attr is T.
  tensorflow::NodeDef* Op(const std::string& op, const std::string& name,
                          const std::vector<std::string>& inputs, DataType t = DT_FLOAT,
                          const std::string& device = "") {
    tensorflow::NodeDef* n = Add(name, op, inputs, device);
    (*n->mutable_attr())["T"].set_type(static_cast<tensorflow::DataType>(t));
    return n;
  }
  tensorflow::NodeDef* Add(const std::string& name, const std::string& op,
                           const std::vector<std::string>& inputs, const std::string& device) {
    tensorflow::NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    if (!device.empty()) n->set_device(device);
    return n;
  }
  const tensorflow::GraphDef& graph() const { return graph_; }

 private:
  tensorflow::GraphDef graph_;
};

inline Tensor Matrix(int64_t rows, int64_t cols, const std::vector<float>& values) {
  return Tensor::FromVector<float>(values, TensorShape{rows, cols});
}

inline std::string LocalCpu(int i) {
  return "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(i);
}

}  // namespace af::testing
