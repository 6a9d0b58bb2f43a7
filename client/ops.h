// The handles the C++ graph-building API passes around, as TensorFlow's:
//   Operation  a node of the scope's graph;
//   Output     one output port of a node ("name:port");
//   Input      what an op wrapper accepts for an input: an Output, or a
//              value (scalar, nested initializer list, Tensor) that becomes
//              a Const node when the op is built;
//   InputList / OutputList  for list inputs ("N * T") and list outputs.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "graph/graph.h"

namespace af {

class Output;

class Operation {
 public:
  Operation() = default;
  explicit Operation(Node* node) : node_(node) {}

  Node* node() const { return node_; }
  bool valid() const { return node_ != nullptr; }
  const std::string& name() const;  // "" for an invalid operation
  int num_inputs() const { return node_ ? node_->num_inputs() : 0; }
  int num_outputs() const { return node_ ? node_->num_outputs() : 0; }
  DataType input_type(int i) const { return node_->input_type(i); }
  DataType output_type(int i) const { return node_->output_type(i); }
  // The output feeding data input `i` (an invalid Output if none).
  Output input(int i) const;
  Output output(int i) const;

  bool operator==(const Operation& o) const { return node_ == o.node_; }

 private:
  Node* node_ = nullptr;
};

class Output {
 public:
  Output() = default;
  explicit Output(Node* node, int index = 0) : op_(node), index_(index) {}
  Output(const Operation& op, int index) : op_(op), index_(index) {}

  Operation op() const { return op_; }
  Node* node() const { return op_.node(); }
  int index() const { return index_; }
  bool valid() const { return op_.valid(); }
  DataType type() const { return op_.output_type(index_); }
  // Shape inferred when the node was built.
  PartialTensorShape shape() const;
  // "node:port", the name feeds and fetches use.
  std::string name() const;

  bool operator==(const Output& o) const { return op_ == o.op_ && index_ == o.index_; }
  bool operator!=(const Output& o) const { return !(*this == o); }

 private:
  Operation op_;
  int index_ = 0;
};

struct OutputHash {
  size_t operator()(const Output& o) const {
    return std::hash<const void*>()(o.node()) * 31 + static_cast<size_t>(o.index());
  }
};

using OutputList = std::vector<Output>;

template <typename T>
concept InitializerScalar =
    std::same_as<T, float> || std::same_as<T, double> || std::same_as<T, int32_t> ||
    std::same_as<T, int64_t> || std::same_as<T, bool> || std::same_as<T, uint8_t> ||
    std::same_as<T, int16_t> || std::same_as<T, int8_t> || std::same_as<T, uint16_t> ||
    std::same_as<T, uint32_t> || std::same_as<T, uint64_t> || std::same_as<T, complex64> ||
    std::same_as<T, complex128>;

class Input {
 public:
  // A constant value: Input::Initializer(3.0f), {1, 2, 3}, {{1, 2}, {3, 4}},
  // or a Tensor. Mismatched nested lists carry an INVALID_ARGUMENT status
  // that the op being built reports.
  struct Initializer {
    template <InitializerScalar T>
    Initializer(const T& v) : tensor(Tensor::Scalar<T>(v)) {}  // NOLINT
    Initializer(const std::string& v);                          // NOLINT
    Initializer(const char* v);                                 // NOLINT
    Initializer(const Tensor& t) : tensor(t) {}                 // NOLINT
    template <InitializerScalar T>
    Initializer(std::initializer_list<T> v)  // NOLINT
        : tensor(Tensor::FromVector<T>(std::vector<T>(v))) {}
    // Values laid out in `shape` (row-major); the count must match.
    template <InitializerScalar T>
    Initializer(std::initializer_list<T> v, const TensorShape& shape) {
      if (static_cast<int64_t>(v.size()) != shape.num_elements()) {
        status = errors::InvalidArgument("initializer has ", v.size(),
                                         " values but shape ", shape.DebugString(), " holds ",
                                         shape.num_elements());
        return;
      }
      tensor = Tensor::FromVector<T>(std::vector<T>(v), shape);
    }
    template <typename T>
      requires std::same_as<T, std::string> || std::same_as<T, const char*>
    Initializer(std::initializer_list<T> v) {  // NOLINT
      std::vector<std::string> strings(v.begin(), v.end());
      tensor = Tensor::FromVector<std::string>(strings);
    }
    // Nested lists: every element must have the same dtype and shape.
    Initializer(std::initializer_list<Initializer> v);  // NOLINT

    Tensor tensor;
    Status status;
  };

  Input(const Output& o) : output_(o) {}                       // NOLINT
  Input(const Operation& op) : output_(op, 0) {}               // NOLINT
  Input(const Initializer& init)                               // NOLINT
      : status_(init.status), tensor_(init.tensor), is_constant_(true) {}
  Input(const Tensor& t) : tensor_(t), is_constant_(true) {}   // NOLINT
  template <InitializerScalar T>
  Input(const T& v) : Input(Initializer(v)) {}  // NOLINT
  Input(const char* v) : Input(Initializer(v)) {}  // NOLINT
  Input(const std::string& v) : Input(Initializer(v)) {}  // NOLINT
  template <InitializerScalar T>
  Input(std::initializer_list<T> v) : Input(Initializer(v)) {}  // NOLINT
  Input(std::initializer_list<Initializer> v) : Input(Initializer(v)) {}  // NOLINT

  const Status& status() const { return status_; }
  bool is_constant() const { return is_constant_; }
  const Output& output() const { return output_; }  // when not a constant
  const Tensor& tensor() const { return tensor_; }  // when a constant

 private:
  Status status_;
  Output output_;
  Tensor tensor_;
  bool is_constant_ = false;
};

// A list input ("inputs: N * T" or "Tlist"): Outputs or values.
class InputList {
 public:
  InputList(const OutputList& outputs) {  // NOLINT
    for (const Output& o : outputs) inputs_.emplace_back(o);
  }
  InputList(std::initializer_list<Input> inputs) : inputs_(inputs) {}  // NOLINT
  InputList(std::vector<Input> inputs) : inputs_(std::move(inputs)) {}  // NOLINT

  const std::vector<Input>& inputs() const { return inputs_; }
  size_t size() const { return inputs_.size(); }

 private:
  std::vector<Input> inputs_;
};

}  // namespace af
