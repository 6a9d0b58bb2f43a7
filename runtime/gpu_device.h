// GpuDevice: a GPU of this process as the executor and kernels see it — a
// LocalDevice whose allocator hands out device memory (for float data) or
// host memory (for integers, bools and strings), and whose gpu_context()
// gives kernels the device's streams.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/gpu/gpu_device_context.h"
#include "runtime/local_device.h"

namespace af {

class GpuDevice : public LocalDevice {
 public:
  // `context` is the process's context for the GPU (GetProcessGpuContext);
  // it outlives every device.
  GpuDevice(std::string name, gpu::GpuDeviceContext* context, int num_threads,
            uint64_t incarnation);
  Allocator* GetAllocatorFor(DataType dtype) override;
  gpu::GpuDeviceContext* gpu_context() override { return context_; }

 private:
  gpu::GpuDeviceContext* const context_;
};

// "/job:<job>/replica:0/task:<task>/device:GPU:<index>"
std::string LocalGpuDeviceName(int index, const std::string& job = "localhost", int task = 0);

// One GpuDevice per GPU of the process (none without GPUs), named for
// /job:localhost/replica:0/task:0. For tools, benchmarks and tests.
Status CreateGpuDevices(std::vector<std::unique_ptr<GpuDevice>>* out);

}  // namespace af
