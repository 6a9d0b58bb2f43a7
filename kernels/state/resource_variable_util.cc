#include "kernels/state/resource_variable_util.h"

#include <cstring>
#include <functional>
#include <utility>

#include "core/device_base.h"
#include "core/resource_handle.h"
#include "kernels/resource_handles.h"
#include "kernels/state/ref_inputs.h"

namespace af::state {
namespace {

std::string Describe(const std::string& container, const std::string& name) {
  return "'" + name + "'" + (container.empty() ? "" : " (container '" + container + "')");
}

}  // namespace

Status ResolveVariableHandle(OpKernelContext* ctx, int input, std::string* container,
                             std::string* name) {
  const ResourceHandle* handle = nullptr;
  AF_RETURN_IF_ERROR(ctx->NodeError(GetResourceHandle(ctx->input(input), "resource", &handle)));
  // A handle made here always carries its type; one without (hash 0) came
  // from elsewhere and is taken at its word.
  static const uint64_t kVariableHash = ResourceTypeHash(ResourceVariable::kTypeName);
  if (handle->hash_code != 0 && handle->hash_code != kVariableHash)
    return ctx->NodeError(errors::InvalidArgument(
        "handle '", handle->name, "' names a ",
        handle->maybe_type_name.empty() ? std::string("resource") : handle->maybe_type_name,
        ", not a resource variable"));
  return ResolveHandleInput(ctx, input, "resource", container, name);
}

Status LookupVariable(OpKernelContext* ctx, int input, ResourceRef<ResourceVariable>* out) {
  std::string container, name;
  AF_RETURN_IF_ERROR(ResolveVariableHandle(ctx, input, &container, &name));
  Status s = DeviceResourceMgr(ctx)->Lookup<ResourceVariable>(container, name, out);
  if (s.code() == Code::NOT_FOUND)
    return ctx->NodeError(errors::FailedPrecondition(
        "Attempting to use uninitialized variable ", Describe(container, name),
        ": it was never assigned, or has been destroyed"));
  return ctx->NodeError(s);
}

Status LookupOrCreateVariable(OpKernelContext* ctx, int input, DataType dtype,
                              ResourceRef<ResourceVariable>* out) {
  std::string container, name;
  AF_RETURN_IF_ERROR(ResolveVariableHandle(ctx, input, &container, &name));
  AF_RETURN_IF_ERROR(ctx->NodeError(DeviceResourceMgr(ctx)->LookupOrCreate<ResourceVariable>(
      container, name, out, [dtype](ResourceVariable** made) {
        *made = new ResourceVariable(dtype);
        return Status::OK();
      })));
  return CheckVariableDtype(ctx, input, **out, dtype);
}

Status CheckVariableDtype(OpKernelContext* ctx, int input, const ResourceVariable& var,
                          DataType dtype) {
  if (var.dtype() == dtype) return Status::OK();
  return ctx->NodeError(errors::InvalidArgument(
      "Trying to use variable ", RequestedInput(ctx->op_kernel(), input), " of type ",
      DataTypeString(var.dtype()), " as ", DataTypeString(dtype)));
}

Status InitializedValue(OpKernelContext* ctx, int input, ResourceVariable* var, Tensor** out) {
  if (!var->is_initialized())
    return ctx->NodeError(errors::FailedPrecondition("Attempting to use uninitialized variable ",
                                                     RequestedInput(ctx->op_kernel(), input)));
  *out = var->tensor();
  return Status::OK();
}

void CopyTensorElements(const Tensor& from, Tensor* to) {
  if (BaseType(from.dtype()) == DT_STRING) {
    const std::string* src = from.data<std::string>();
    std::string* dst = to->data<std::string>();
    for (int64_t i = 0; i < from.NumElements(); ++i) dst[i] = src[i];
  } else if (from.NumElements() > 0) {
    std::memcpy(to->raw_data(), from.raw_data(), from.TotalBytes());
  }
}

Status PrepareToUpdate(OpKernelContext* ctx, ResourceVariable* var) {
  Tensor* value = var->tensor();
  if (!value->IsInitialized() || OwnsWholeBuffer(*value)) return Status::OK();
  Tensor fresh;
  AF_RETURN_IF_ERROR(ctx->allocate_temp(value->dtype(), value->shape(), &fresh));
  CopyTensorElements(*value, &fresh);
  *value = std::move(fresh);
  return Status::OK();
}

VariableLocks::VariableLocks(std::initializer_list<const ResourceVariable*> vars) {
  for (const ResourceVariable* v : vars) {
    if (v == nullptr || n_ == kMaxLocks) continue;
    std::mutex* mu = v->mu();
    bool seen = false;
    for (int k = 0; k < n_; ++k) seen = seen || mus_[k] == mu;
    if (!seen) mus_[n_++] = mu;
  }
  for (int i = 1; i < n_; ++i)
    for (int j = i; j > 0 && std::less<std::mutex*>()(mus_[j], mus_[j - 1]); --j)
      std::swap(mus_[j], mus_[j - 1]);
  for (int i = 0; i < n_; ++i) mus_[i]->lock();
}

VariableLocks::~VariableLocks() {
  for (int i = n_ - 1; i >= 0; --i) mus_[i]->unlock();
}

Status ReadVariableValue(OpKernelContext* ctx, int input, DataType dtype, Tensor* out) {
  ResourceRef<ResourceVariable> var;
  AF_RETURN_IF_ERROR(LookupVariable(ctx, input, &var));
  if (dtype != DT_INVALID) AF_RETURN_IF_ERROR(CheckVariableDtype(ctx, input, *var, dtype));
  std::lock_guard<std::mutex> lock(*var->mu());
  Tensor* current = nullptr;
  AF_RETURN_IF_ERROR(InitializedValue(ctx, input, var.get(), &current));
  *out = *current;
  return Status::OK();
}

}  // namespace af::state
