// Handles of per-step resources (stacks, tensor arrays): the creating kernel
// adds its object to the step's StepResources and outputs a scalar
// DT_RESOURCE handle naming it; the kernels using it look the name up there.
#pragma once

#include <string>

#include "core/op_kernel.h"
#include "core/step_resources.h"
#include "core/tensor.h"
#include "kernels/resource_handles.h"

namespace af {

// The step's resources; FAILED_PRECONDITION naming the node when the kernel
// runs outside an executor step.
Status StepResourcesOf(OpKernelContext* ctx, StepResources** out);

// A handle naming the per-step resource `name` of type `type_name`.
Tensor MakeStepResourceHandle(OpKernelContext* ctx, const std::string& name,
                              const std::string& type_name);

// The resource input `input` names. Errors name the node and `what`.
template <typename T>
Status LookupStepResource(OpKernelContext* ctx, int input, const char* what, ResourceRef<T>* out) {
  StepResources* resources = nullptr;
  AF_RETURN_IF_ERROR(StepResourcesOf(ctx, &resources));
  std::string container, name;
  AF_RETURN_IF_ERROR(ResolveHandleInput(ctx, input, what, &container, &name));
  return ctx->NodeError(resources->Lookup<T>(name, out));
}

}  // namespace af
