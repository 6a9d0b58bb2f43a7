// Var: a variable's storage as it lives in a ResourceMgr container. The
// tensor has no buffer until the first Assign initializes it; kernels reach
// it through reference edges (TensorValue::ref / ref_mu) and take `mu` to
// read or write it consistently.
#pragma once

#include <mutex>
#include <string>

#include "core/resource_mgr.h"
#include "core/tensor.h"

namespace af {

class Var : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "Var";

  explicit Var(DataType dtype) : tensor_(dtype, TensorShape{}, BufferRef()) {}

  std::mutex* mu() { return &mu_; }
  // Guarded by mu().
  Tensor* tensor() { return &tensor_; }

  std::string DebugString() const override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!tensor_.IsInitialized()) return DataTypeString(tensor_.dtype()) + " <uninitialized>";
    return DataTypeString(tensor_.dtype()) + " " + tensor_.shape().DebugString();
  }

 private:
  mutable std::mutex mu_;  // guards tensor_ (kernels lock it through mu())
  Tensor tensor_;
};

}  // namespace af
