// What every kernel using a resource variable by handle needs: finding the
// variable a DT_RESOURCE input names in the device's ResourceMgr, its
// value with TensorFlow's errors, locking several variables without
// deadlock, and copy-on-write before an in-place update.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>

#include "core/op_kernel.h"
#include "core/resource_mgr.h"
#include "core/resource_variable.h"

namespace af::state {

// Where handle input `input` points: (container, name) on this kernel's
// device. INVALID_ARGUMENT when the handle names another device or a
// resource that is not a variable.
Status ResolveVariableHandle(OpKernelContext* ctx, int input, std::string* container,
                             std::string* name);

// The variable handle input `input` names. FAILED_PRECONDITION naming the
// variable when it does not exist (never assigned, or destroyed), as
// TensorFlow's reads report it.
Status LookupVariable(OpKernelContext* ctx, int input, ResourceRef<ResourceVariable>* out);

// The variable, made uninitialized with `dtype` if it does not exist yet
// (an assignment creates it). INVALID_ARGUMENT when it exists with another
// dtype.
Status LookupOrCreateVariable(OpKernelContext* ctx, int input, DataType dtype,
                              ResourceRef<ResourceVariable>* out);

// INVALID_ARGUMENT unless the variable holds `dtype` (what an op's dtype or
// T attr says).
Status CheckVariableDtype(OpKernelContext* ctx, int input, const ResourceVariable& var,
                          DataType dtype);

// The variable's value; FAILED_PRECONDITION naming the variable when it has
// none. Hold var.mu().
Status InitializedValue(OpKernelContext* ctx, int input, ResourceVariable* var, Tensor** out);

// The value of the variable input `input` names, sharing its buffer (an
// update copies before it writes, so the value never changes under the
// caller): lookup, dtype check (unless `dtype` is DT_INVALID) and an
// initialized value, under the variable's lock. What every reader does.
Status ReadVariableValue(OpKernelContext* ctx, int input, DataType dtype, Tensor* out);

// Makes the variable the only holder of its whole buffer (copying the value
// into a fresh buffer when a reader still shares it), so that an in-place
// update changes nothing another tensor sees. Hold var->mu().
Status PrepareToUpdate(OpKernelContext* ctx, ResourceVariable* var);

// A copy of `from`'s elements into `to` (same dtype and element count),
// strings included.
void CopyTensorElements(const Tensor& from, Tensor* to);

// Holds the mutexes of up to 4 variables, each once, in address order, so
// two kernels updating overlapping variables cannot deadlock.
class VariableLocks {
 public:
  explicit VariableLocks(std::initializer_list<const ResourceVariable*> vars);
  ~VariableLocks();
  VariableLocks(const VariableLocks&) = delete;
  VariableLocks& operator=(const VariableLocks&) = delete;

 private:
  static constexpr int kMaxLocks = 4;
  std::array<std::mutex*, kMaxLocks> mus_{};
  int n_ = 0;
};

}  // namespace af::state
