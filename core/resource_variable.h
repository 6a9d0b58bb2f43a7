// ResourceVariable: the storage of a TensorFlow 2 resource variable (the
// variable a VarHandleOp names and ReadVariableOp / AssignVariableOp use),
// kept in a device's ResourceMgr under (container, shared_name).
//
// It is a type of its own, not core/variable.h's Var, so that a VariableV2
// and a VarHandleOp of the same shared_name stay two variables, as
// TensorFlow keeps its legacy ref variables apart from resource variables.
//
// Reads share the value's buffer (no copy). Whoever updates the value in
// place first makes sure the variable holds the only reference to it
// (kernels/state/resource_variable_util.h, PrepareToUpdate): a tensor an
// earlier read returned never changes under its holder.
#pragma once

#include <mutex>
#include <string>

#include "core/resource_mgr.h"
#include "core/tensor.h"

namespace af {

class ResourceVariable : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "ResourceVariable";

  explicit ResourceVariable(DataType dtype)
      : dtype_(dtype), tensor_(dtype, TensorShape{}, BufferRef()) {}

  // Fixed when the variable is made (by the first assignment).
  DataType dtype() const { return dtype_; }
  std::mutex* mu() const { return &mu_; }
  // Guarded by mu(); without a buffer until the first assignment.
  Tensor* tensor() { return &tensor_; }
  bool is_initialized() const { return tensor_.IsInitialized(); }

  std::string DebugString() const override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!tensor_.IsInitialized()) return DataTypeString(dtype_) + " <uninitialized>";
    return DataTypeString(dtype_) + " " + tensor_.shape().DebugString();
  }

 private:
  const DataType dtype_;
  mutable std::mutex mu_;  // guards tensor_
  Tensor tensor_;
};

}  // namespace af
