#include "kernels/step_resource_handles.h"

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
  return MakeDeviceResourceHandle(ctx, StepResources::kContainer, name, type_name);
}

}  // namespace af
