#include "runtime/gpu_device.h"

namespace af {

GpuDevice::GpuDevice(std::string name, gpu::GpuDeviceContext* context, int num_threads,
                     uint64_t incarnation)
    : LocalDevice(std::move(name), DEVICE_GPU, context->device_allocator(), num_threads,
                  incarnation),
      context_(context) {}

Allocator* GpuDevice::GetAllocatorFor(DataType dtype) {
  return gpu::LivesInHostMemoryOnGpu(dtype) ? GetCpuAllocator() : GetAllocator();
}

std::string LocalGpuDeviceName(int index, const std::string& job, int task) {
  return "/job:" + job + "/replica:0/task:" + std::to_string(task) + "/device:GPU:" +
         std::to_string(index);
}

Status CreateGpuDevices(std::vector<std::unique_ptr<GpuDevice>>* out) {
  out->clear();
  const int n = gpu::ProcessGpuCount();
  for (int i = 0; i < n; ++i) {
    gpu::GpuDeviceContext* context = nullptr;
    AF_RETURN_IF_ERROR(gpu::GetProcessGpuContext(i, &context));
    out->push_back(std::make_unique<GpuDevice>(LocalGpuDeviceName(i), context, 2, 1));
  }
  return Status::OK();
}

}  // namespace af
