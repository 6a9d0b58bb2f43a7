// The identity family: Identity, IdentityN, StopGradient, PreventGradient
// (identities that matter only to gradient construction) and Snapshot.
// All pass buffers through; Snapshot copies unless nobody else can see the
// input's buffer.
#include <cstring>
#include <string>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/forward_input.h"

namespace af {

namespace {

class IdentityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ForwardInput(ctx, 0, 0); }
};

class IdentityNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) ForwardInput(ctx, i, i);
  }
};

// A snapshot must not change when the input's producer later updates its
// buffer in place (a variable). If this step holds the only reference to a
// whole (unsliced) buffer, nobody else can write it and it is passed on;
// otherwise the value is copied.
class SnapshotOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    if (!ctx->input_is_ref(0)) {
      const Tensor& in = ctx->input(0);
      const BufferRef& buf = in.buffer();
      if (!buf || (buf->RefCountIsOne() && buf->root() == buf.get())) {
        ctx->set_output(0, in);
        return;
      }
      Copy(ctx, in);
      return;
    }
    std::mutex* mu = ctx->input_ref_mutex(0);
    if (mu == nullptr) {
      Copy(ctx, *ctx->mutable_input(0));
      return;
    }
    std::lock_guard<std::mutex> lock(*mu);
    Copy(ctx, *ctx->mutable_input(0));
  }

 private:
  static void Copy(OpKernelContext* ctx, const Tensor& in) {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (!in.IsInitialized() || in.NumElements() == 0) return;
    if (BaseType(in.dtype()) == DT_STRING) {
      const std::string* src = in.data<std::string>();
      std::string* dst = out->data<std::string>();
      for (int64_t i = 0; i < in.NumElements(); ++i) dst[i] = src[i];
    } else {
      std::memcpy(out->raw_data(), in.raw_data(), in.TotalBytes());
    }
  }
};

class NoOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Identity").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("IdentityN").Device(DEVICE_CPU), IdentityNOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("StopGradient").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("PreventGradient").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Snapshot").Device(DEVICE_CPU), SnapshotOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("NoOp").Device(DEVICE_CPU), NoOp);

}  // namespace af
