#include "kernels/step_resource_handles.h"

#include <utility>

#include "core/device_base.h"

namespace af {

Status StepResourcesOf(OpKernelContext* ctx, StepResources** out) {
  *out = ctx->step_resources();
  if (*out == nullptr)
    return ctx->NodeError(errors::FailedPrecondition(
        "no per-step resources: this op must run as part of an executor step"));
  return Status::OK();
}

Tensor MakeStepResourceHandle(OpKernelContext* ctx, const std::string& name,
                              const std::string& type_name) {
  ResourceHandle handle;
  handle.device = ctx->device() != nullptr ? ctx->device()->name() : "";
  handle.container = kStepContainer;
  handle.name = name;
  handle.maybe_type_name = type_name;
  handle.hash_code = ResourceTypeHash(type_name);
  return MakeResourceHandleTensor(std::move(handle));
}

}  // namespace af
