// The CUDA backend of the GPU seam (core/gpu/gpu_backend.h): the CUDA
// runtime API, offered to the process when a driver reports a device.
#include <cuda_runtime.h>

#include <memory>

#include "core/gpu/callback_dispatcher.h"
#include "core/gpu/gpu_backend.h"
#include "kernels/gpu/cuda/cuda_util.h"

namespace af::gpu {
namespace {

class CudaEvent final : public Event {
 public:
  CudaEvent(int device, cudaEvent_t event) : device_(device), event_(event) {}
  ~CudaEvent() override {
    cudaSetDevice(device_);
    cudaEventDestroy(event_);
  }
  bool IsComplete() override { return cudaEventQuery(event_) == cudaSuccess; }
  Status Synchronize() override {
    return CudaStatus(cudaEventSynchronize(event_), "cudaEventSynchronize");
  }
  void* native() override { return event_; }

 private:
  const int device_;
  cudaEvent_t event_;
};

class CudaStream final : public Stream {
 public:
  CudaStream(int device, cudaStream_t stream, CallbackDispatcher* callbacks)
      : device_(device), stream_(stream), callbacks_(callbacks) {}
  ~CudaStream() override {
    cudaSetDevice(device_);
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  int device() const override { return device_; }

  Status CopyHostToDevice(void* dst, const void* src, size_t bytes) override {
    if (bytes == 0) return Status::OK();
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_), "cudaSetDevice");
    return CudaStatus(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_),
                      "cudaMemcpyAsync host to device");
  }
  Status CopyDeviceToHost(void* dst, const void* src, size_t bytes) override {
    if (bytes == 0) return Status::OK();
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_), "cudaSetDevice");
    return CudaStatus(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_),
                      "cudaMemcpyAsync device to host");
  }
  Status CopyDeviceToDevice(void* dst, const void* src, int src_device, size_t bytes) override {
    if (bytes == 0) return Status::OK();
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_), "cudaSetDevice");
    if (src_device == device_) {
      return CudaStatus(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_),
                        "cudaMemcpyAsync device to device");
    }
    return CudaStatus(cudaMemcpyPeerAsync(dst, device_, src, src_device, bytes, stream_),
                      "cudaMemcpyPeerAsync");
  }
  Status Memset(void* dst, uint8_t value, size_t bytes) override {
    if (bytes == 0) return Status::OK();
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_), "cudaSetDevice");
    return CudaStatus(cudaMemsetAsync(dst, value, bytes, stream_), "cudaMemsetAsync");
  }
  Status Record(Event* event) override {
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_), "cudaSetDevice");
    return CudaStatus(cudaEventRecord(static_cast<cudaEvent_t>(event->native()), stream_),
                      "cudaEventRecord");
  }
  Status Wait(Event* event) override {
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_), "cudaSetDevice");
    return CudaStatus(
        cudaStreamWaitEvent(stream_, static_cast<cudaEvent_t>(event->native()), 0),
        "cudaStreamWaitEvent");
  }
  Status AddCallback(std::function<void()> fn) override {
    struct Pending {
      CallbackDispatcher* callbacks;
      std::function<void()> fn;
    };
    auto* pending = new Pending{callbacks_, std::move(fn)};
    cudaError_t err = cudaLaunchHostFunc(
        stream_,
        [](void* arg) {
          std::unique_ptr<Pending> p(static_cast<Pending*>(arg));
          p->callbacks->Post(std::move(p->fn));
        },
        pending);
    if (err != cudaSuccess) {
      delete pending;
      return CudaStatus(err, "cudaLaunchHostFunc");
    }
    return Status::OK();
  }
  Status LaunchHostKernel(std::function<void()>) override {
    return errors::Unimplemented("a CUDA stream runs CUDA kernels, not host kernels");
  }
  Status Synchronize() override {
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_), "cudaSetDevice");
    return CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }
  void* native() override { return stream_; }

 private:
  const int device_;
  cudaStream_t stream_;
  CallbackDispatcher* const callbacks_;
};

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int count) : count_(count) {}
  std::string Name() const override { return "cuda"; }
  bool IsEmulated() const override { return false; }
  int DeviceCount() override { return count_; }

  Status GetProperties(int device, DeviceProperties* out) override {
    AF_RETURN_IF_ERROR(CheckDevice(device));
    cudaDeviceProp prop;
    AF_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    out->name = prop.name;
    out->total_memory = static_cast<int64_t>(prop.totalGlobalMem);
    out->compute_capability_major = prop.major;
    out->compute_capability_minor = prop.minor;
    out->multiprocessor_count = prop.multiProcessorCount;
    out->emulated = false;
    return Status::OK();
  }
  Status MemoryInfo(int device, int64_t* free_bytes, int64_t* total_bytes) override {
    AF_RETURN_IF_ERROR(CheckDevice(device));
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device), "cudaSetDevice");
    size_t f = 0, t = 0;
    AF_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&f, &t), "cudaMemGetInfo");
    *free_bytes = static_cast<int64_t>(f);
    *total_bytes = static_cast<int64_t>(t);
    return Status::OK();
  }
  Status AllocateDevice(int device, size_t bytes, void** ptr) override {
    AF_RETURN_IF_ERROR(CheckDevice(device));
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device), "cudaSetDevice");
    return CudaStatus(cudaMalloc(ptr, bytes == 0 ? 1 : bytes), "cudaMalloc");
  }
  Status FreeDevice(int device, void* ptr) override {
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device), "cudaSetDevice");
    return CudaStatus(cudaFree(ptr), "cudaFree");
  }
  Status AllocatePinnedHost(size_t bytes, void** ptr) override {
    return CudaStatus(cudaHostAlloc(ptr, bytes == 0 ? 1 : bytes, cudaHostAllocPortable),
                      "cudaHostAlloc");
  }
  Status FreePinnedHost(void* ptr) override {
    return CudaStatus(cudaFreeHost(ptr), "cudaFreeHost");
  }
  Status CreateStream(int device, std::unique_ptr<Stream>* out) override {
    AF_RETURN_IF_ERROR(CheckDevice(device));
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device), "cudaSetDevice");
    cudaStream_t s = nullptr;
    AF_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
                            "cudaStreamCreateWithFlags");
    *out = std::make_unique<CudaStream>(device, s, &callbacks_);
    return Status::OK();
  }
  Status CreateEvent(int device, std::unique_ptr<Event>* out) override {
    AF_RETURN_IF_ERROR(CheckDevice(device));
    AF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device), "cudaSetDevice");
    cudaEvent_t e = nullptr;
    AF_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&e, cudaEventDisableTiming),
                            "cudaEventCreateWithFlags");
    *out = std::make_unique<CudaEvent>(device, e);
    return Status::OK();
  }

 private:
  Status CheckDevice(int device) const {
    if (device < 0 || device >= count_)
      return errors::InvalidArgument("no CUDA GPU ", device, " (", count_, " present)");
    return Status::OK();
  }
  const int count_;
  CallbackDispatcher callbacks_;
};

const bool registered = [] {
  RegisterCudaBackendFactory([]() -> Backend* {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
      cudaGetLastError();  // clear the error for later callers
      return nullptr;
    }
    // Devices that can reach each other copy directly.
    for (int a = 0; a < count; ++a) {
      for (int b = 0; b < count; ++b) {
        int can = 0;
        if (a != b && cudaDeviceCanAccessPeer(&can, a, b) == cudaSuccess && can) {
          cudaSetDevice(a);
          cudaDeviceEnablePeerAccess(b, 0);
          cudaGetLastError();
        }
      }
    }
    static CudaBackend* backend = new CudaBackend(count);  // process lifetime
    return backend;
  });
  return true;
}();

}  // namespace
}  // namespace af::gpu
