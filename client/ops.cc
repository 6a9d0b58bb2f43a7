#include "client/ops.h"

namespace af {

const std::string& Operation::name() const {
  static const std::string kEmpty;
  return node_ ? node_->name() : kEmpty;
}

Output Operation::input(int i) const {
  if (node_ == nullptr) return Output();
  const Edge* e = nullptr;
  if (!node_->input_edge(i, &e).ok()) return Output();
  return Output(e->src(), e->src_output());
}

Output Operation::output(int i) const { return Output(*this, i); }

PartialTensorShape Output::shape() const {
  const Node* n = node();
  if (n == nullptr || index_ >= static_cast<int>(n->output_shapes().size()))
    return PartialTensorShape::Unknown();
  return n->output_shapes()[index_];
}

std::string Output::name() const {
  return internal::StrCat(op_.name(), ":", index_);
}

Input::Initializer::Initializer(const std::string& v) : tensor(Tensor::Scalar<std::string>(v)) {}
Input::Initializer::Initializer(const char* v) : Initializer(std::string(v)) {}

// Stacks equal-shaped elements along a new leading dimension; byte copies
// suffice for fixed-size types, strings are copied element by element.
Input::Initializer::Initializer(std::initializer_list<Initializer> v) {
  if (v.size() == 0) {
    status = errors::InvalidArgument("an initializer list must not be empty");
    return;
  }
  const Initializer& first = *v.begin();
  for (const Initializer& e : v) {
    if (!e.status.ok()) {
      status = e.status;
      return;
    }
    if (e.tensor.dtype() != first.tensor.dtype() || e.tensor.shape() != first.tensor.shape()) {
      status = errors::InvalidArgument(
          "initializer list elements differ: ", DataTypeString(first.tensor.dtype()), " ",
          first.tensor.shape().DebugString(), " vs ", DataTypeString(e.tensor.dtype()), " ",
          e.tensor.shape().DebugString());
      return;
    }
  }
  TensorShape shape = first.tensor.shape();
  shape.InsertDim(0, static_cast<int64_t>(v.size()));
  tensor = Tensor(first.tensor.dtype(), shape);
  const int64_t per = first.tensor.NumElements();
  int64_t offset = 0;
  for (const Initializer& e : v) {
    if (tensor.dtype() == DT_STRING) {
      for (int64_t i = 0; i < per; ++i)
        tensor.data<std::string>()[offset + i] = e.tensor.data<std::string>()[i];
    } else {
      const size_t bytes = static_cast<size_t>(per) * DataTypeSize(tensor.dtype());
      if (bytes > 0)
        std::memcpy(static_cast<char*>(tensor.raw_data()) + offset * DataTypeSize(tensor.dtype()),
                    e.tensor.raw_data(), bytes);
    }
    offset += per;
  }
}

}  // namespace af
