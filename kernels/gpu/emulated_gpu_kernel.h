// The kernel an emulated GPU runs for an op: the op's CPU kernel, run as a
// kernel on the device's emulated compute stream, after the work the stream
// was given before it (copies it waits for through events included).
//
// The host waits for it. A CUDA kernel allocates its outputs when it is
// enqueued, so the allocator's reuse of memory the host frees follows
// stream order; a CPU kernel allocates when it runs. Were the host to go on
// before the stream ran the kernel, memory freed in the meantime (a value a
// pending copy still reads) could be handed to it out of stream order.
// Waiting keeps the emulation's allocations in enqueue order, as on a
// device; emulated GPUs are for checking logic, not for speed.
#pragma once

#include <memory>

#include "core/op_kernel.h"

namespace af::gpu {

class EmulatedGpuKernel final : public OpKernel {
 public:
  explicit EmulatedGpuKernel(OpKernelConstruction* ctx);
  void Compute(OpKernelContext* ctx) override;

 private:
  std::unique_ptr<OpKernel> cpu_kernel_;
};

}  // namespace af::gpu
