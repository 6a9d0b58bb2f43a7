#include "kernels/gpu/emulated_gpu_kernel.h"

#include <future>

#include "core/gpu/gpu_device_context.h"
#include "core/kernel_registry.h"

namespace af::gpu {

EmulatedGpuKernel::EmulatedGpuKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
  // Created for the GPU device, so that its allocations come from the
  // emulated device memory.
  ctx->SetStatus(
      KernelRegistry::Global()->CreateKernel(DEVICE_CPU, ctx->device(), ctx->def(), &cpu_kernel_));
}

void EmulatedGpuKernel::Compute(OpKernelContext* ctx) {
  GpuDeviceContext* gpu = ctx->device()->gpu_context();
  OP_REQUIRES(ctx, gpu != nullptr,
              ctx->NodeError(errors::Internal("an emulated GPU kernel runs on ",
                                              ctx->device()->name(), ", which is not a GPU")));
  OpKernel* kernel = cpu_kernel_.get();
  std::promise<void> ran;
  Status s = gpu->compute_stream()->LaunchHostKernel([ctx, kernel, &ran]() {
    if (AsyncOpKernel* async = kernel->AsAsync()) {
      async->ComputeAsync(ctx, [&ran] { ran.set_value(); });
      return;
    }
    kernel->Compute(ctx);
    ran.set_value();
  });
  OP_REQUIRES_OK(ctx, s);
  ran.get_future().wait();
}

}  // namespace af::gpu
