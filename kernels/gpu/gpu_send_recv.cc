// _Send and _Recv on a GPU: where a tensor crosses the device boundary.
// Backend-neutral (the GPU seam's streams and events), so the emulated GPUs
// in CI run exactly this code.
//
// Send: a value in device memory goes to a GPU of the same process as it
// is, once the compute stream has produced it; to anything else (a CPU, a
// GPU of another process) it is first copied into pinned host memory on
// the device-to-host stream, which waits for the compute stream through an
// event — never a blocking copy on the compute stream. The Send completes
// when the value is in the rendezvous.
//
// Recv: host memory is copied in on the host-to-device stream, another
// GPU's memory on the device-to-device stream; the compute stream waits for
// the copy through an event, so the Recv completes at once and the kernels
// after it stay ordered behind the copy. Values of types that live in host
// memory on a GPU (integers, bools) pass through untouched.
#include <cstring>

#include "core/device_name.h"
#include "core/gpu/gpu_device_context.h"
#include "core/kernel_registry.h"
#include "core/rendezvous.h"
#include "kernels/sendrecv/send_recv_key.h"

namespace af::gpu {
namespace {

bool InDeviceMemory(const Tensor& t) {
  return t.buffer() && !t.buffer()->allocator()->IsHostAccessible();
}

// Whether the receiving device can take device memory as it is: a GPU in
// this process.
bool ReceiverTakesDeviceMemory(const std::string& send_device, const std::string& recv_device) {
  DeviceName send, recv;
  if (!ParseDeviceName(send_device, &send).ok() || !ParseDeviceName(recv_device, &recv).ok())
    return false;
  return recv.has_type && recv.type == DEVICE_GPU && IsSameAddressSpace(send, recv);
}

class GpuSendOp : public AsyncOpKernel {
 public:
  explicit GpuSendOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    ctx->SetStatus(key_.Read(ctx));
    keep_on_device_ = ReceiverTakesDeviceMemory(key_.send_device, key_.recv_device);
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    Rendezvous* rendezvous = ctx->rendezvous();
    OP_REQUIRES_ASYNC(ctx, rendezvous != nullptr,
                      ctx->NodeError(errors::Internal("no rendezvous for the step")), done);
    const std::string key = key_.Key(ctx->frame_iter());
    if (ctx->is_input_dead() || !InDeviceMemory(ctx->input(0))) {
      const Tensor value = ctx->is_input_dead() ? Tensor() : ctx->input(0);
      OP_REQUIRES_OK_ASYNC(ctx, rendezvous->Send(key, value, ctx->is_input_dead()), done);
      done();
      return;
    }
    GpuDeviceContext* gpu = ctx->device()->gpu_context();
    const Tensor value = ctx->input(0);
    if (keep_on_device_) {
      // The value is ready once the compute stream has run what was
      // enqueued before this point.
      OP_REQUIRES_OK_ASYNC(
          ctx, gpu->compute_stream()->AddCallback([ctx, rendezvous, key, value, done] {
            Status s = rendezvous->Send(key, value, false);
            if (!s.ok()) ctx->SetStatus(ctx->NodeError(s));
            done();
          }),
          done);
      return;
    }
    Tensor host;
    Status allocated =
        Tensor::Allocate(gpu->pinned_host_allocator(), value.dtype(), value.shape(), &host);
    OP_REQUIRES_ASYNC(ctx, allocated.ok(),
                      ctx->NodeError(errors::ResourceExhausted(
                          "no pinned host memory to send ", value.TotalBytes(), " bytes to ",
                          key_.recv_device, ": ", allocated.message())),
                      done);
    std::shared_ptr<Event> produced;
    OP_REQUIRES_OK_ASYNC(ctx, gpu->AcquireEvent(&produced), done);
    Stream* d2h = gpu->device_to_host_stream();
    OP_REQUIRES_OK_ASYNC(ctx, gpu->compute_stream()->Record(produced.get()), done);
    OP_REQUIRES_OK_ASYNC(ctx, d2h->Wait(produced.get()), done);
    OP_REQUIRES_OK_ASYNC(ctx, d2h->CopyDeviceToHost(host.raw_data(), value.raw_data(),
                                                     value.TotalBytes()),
                         done);
    // `value` rides along so that its memory is not reused before the copy
    // has read it.
    OP_REQUIRES_OK_ASYNC(
        ctx, d2h->AddCallback([ctx, rendezvous, key, host, value, produced, done] {
          Status s = rendezvous->Send(key, host, false);
          if (!s.ok()) ctx->SetStatus(ctx->NodeError(s));
          done();
        }),
        done);
  }

 private:
  SendRecvKey key_;
  bool keep_on_device_ = false;
};

class GpuRecvOp : public AsyncOpKernel {
 public:
  explicit GpuRecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    ctx->SetStatus(key_.Read(ctx));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    OP_REQUIRES_ASYNC(ctx, ctx->rendezvous() != nullptr,
                      ctx->NodeError(errors::Internal("no rendezvous for the step")), done);
    ctx->rendezvous()->RecvAsync(
        key_.Key(ctx->frame_iter()),
        [ctx, done = std::move(done)](const Status& s, const Tensor& value, bool is_dead) {
          if (!s.ok()) {
            ctx->SetStatus(s);
          } else if (!is_dead) {
            ctx->SetStatus(CopyIn(ctx, value));
          }
          done();
        });
  }

 private:
  static Status CopyIn(OpKernelContext* ctx, const Tensor& value) {
    GpuDeviceContext* gpu = ctx->device()->gpu_context();
    const bool on_host = !InDeviceMemory(value);
    if (!value.IsInitialized() || LivesInHostMemoryOnGpu(value.dtype())) {
      if (!on_host) {
        return ctx->NodeError(errors::Internal("a ", DataTypeString(value.dtype()),
                                               " tensor arrived in device memory"));
      }
      ctx->set_output(0, value);
      return Status::OK();
    }
    const int source_gpu = on_host ? -1 : GpuOrdinalOfAllocator(value.buffer()->allocator());
    if (source_gpu == gpu->ordinal()) {  // already here
      ctx->set_output(0, value);
      return Status::OK();
    }
    Tensor* out = nullptr;
    AF_RETURN_IF_ERROR(ctx->allocate_output(0, value.shape(), &out));
    Stream* copy = on_host ? gpu->host_to_device_stream() : gpu->device_to_device_stream();
    std::shared_ptr<Event> copied;
    AF_RETURN_IF_ERROR(gpu->AcquireEvent(&copied));
    // The copy writes memory the compute stream may have used before (the
    // allocator reuses freed chunks in compute-stream order).
    std::shared_ptr<Event> compute_point;
    AF_RETURN_IF_ERROR(gpu->AcquireEvent(&compute_point));
    AF_RETURN_IF_ERROR(gpu->compute_stream()->Record(compute_point.get()));
    AF_RETURN_IF_ERROR(copy->Wait(compute_point.get()));
    Tensor source = value;
    if (on_host && value.buffer()->allocator() != gpu->pinned_host_allocator()) {
      // A copy from pageable memory blocks the host until the stream
      // reaches it (CUDA stages it synchronously), which would hold the
      // host back behind the previous step's GPU work; staging through
      // pinned memory here keeps the host running ahead.
      Status staged =
          Tensor::Allocate(gpu->pinned_host_allocator(), value.dtype(), value.shape(), &source);
      if (staged.ok()) {
        std::memcpy(source.raw_data(), value.raw_data(), value.TotalBytes());
      } else {
        source = value;  // no pinned memory left: copy from where it is
      }
    }
    if (on_host) {
      AF_RETURN_IF_ERROR(copy->CopyHostToDevice(out->raw_data(), source.raw_data(),
                                                value.TotalBytes()));
    } else {
      AF_RETURN_IF_ERROR(copy->CopyDeviceToDevice(out->raw_data(), value.raw_data(), source_gpu,
                                                  value.TotalBytes()));
    }
    AF_RETURN_IF_ERROR(copy->Record(copied.get()));
    AF_RETURN_IF_ERROR(gpu->compute_stream()->Wait(copied.get()));
    // The source stays alive until the copy has read it.
    return copy->AddCallback([value, source, copied, compute_point] {});
  }

  SendRecvKey key_;
};

REGISTER_KERNEL_BUILDER(KernelDefBuilder("_Send").Device(DEVICE_GPU), GpuSendOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("_Recv").Device(DEVICE_GPU), GpuRecvOp);

}  // namespace
}  // namespace af::gpu
