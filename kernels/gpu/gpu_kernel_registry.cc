#include "kernels/gpu/gpu_kernel_registry.h"

#include <map>
#include <mutex>

#include "core/gpu/gpu_device_context.h"
#include "kernels/gpu/emulated_gpu_kernel.h"

namespace af::gpu {
namespace {

struct CudaKernels {
  std::mutex mu;  // guards factories
  std::map<std::string, KernelFactory> factories;
};

CudaKernels& Cuda() {
  static CudaKernels* k = new CudaKernels();
  return *k;
}

OpKernel* CreateGpuKernel(OpKernelConstruction* ctx) {
  GpuDeviceContext* gpu = ctx->device() ? ctx->device()->gpu_context() : nullptr;
  if (gpu == nullptr) {
    ctx->SetStatus(errors::FailedPrecondition(
        "the GPU kernel of ", ctx->def().op(), " needs a GPU device, not ",
        ctx->device() ? ctx->device()->name() : std::string("no device")));
    return nullptr;
  }
  if (gpu->emulated()) return new EmulatedGpuKernel(ctx);
  const KernelFactory* factory = FindCudaKernel(ctx->def().op());
  if (factory == nullptr) {
    ctx->SetStatus(errors::Unimplemented("no CUDA kernel for ", ctx->def().op(),
                                         CudaBuilt() ? "" : " (built without the CUDA toolkit)"));
    return nullptr;
  }
  return (*factory)(ctx);
}

OpKernel* CreateGpuHostKernel(OpKernelConstruction* ctx) {
  std::unique_ptr<OpKernel> kernel;
  ctx->SetStatus(
      KernelRegistry::Global()->CreateKernel(DEVICE_CPU, ctx->device(), ctx->def(), &kernel));
  return kernel.release();
}

}  // namespace

void RegisterGpuKernel(const KernelDefBuilder& builder) {
  KernelRegistry::Global()->Register(builder, CreateGpuKernel);
}

void RegisterGpuHostKernel(const KernelDefBuilder& builder) {
  KernelRegistry::Global()->Register(builder, CreateGpuHostKernel);
}

void RegisterCudaKernel(const std::string& op, KernelFactory factory) {
  std::lock_guard<std::mutex> lock(Cuda().mu);
  Cuda().factories[op] = std::move(factory);
}

const KernelFactory* FindCudaKernel(const std::string& op) {
  std::lock_guard<std::mutex> lock(Cuda().mu);
  auto it = Cuda().factories.find(op);
  return it == Cuda().factories.end() ? nullptr : &it->second;
}

}  // namespace af::gpu
