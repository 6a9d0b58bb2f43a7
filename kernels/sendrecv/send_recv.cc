// _Send and _Recv: the two halves of a cut edge between partitions. The
// key is fixed per node except for the frame and iteration, which come from
// the step so that loop iterations never collide.
#include "core/kernel_registry.h"
#include "core/rendezvous.h"
#include "kernels/sendrecv/send_recv_key.h"

namespace af {
namespace {

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx) : OpKernel(ctx) { ctx->SetStatus(parts_.Read(ctx)); }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->rendezvous() != nullptr,
                ctx->NodeError(errors::Internal("no rendezvous for the step")));
    // A dead input still travels, so the receiving side learns of it.
    const bool is_dead = ctx->is_input_dead();
    const Tensor& value = is_dead ? kEmpty : ctx->input(0);
    OP_REQUIRES_OK(ctx, ctx->rendezvous()->Send(parts_.Key(ctx->frame_iter()), value, is_dead));
  }

 private:
  static inline const Tensor kEmpty{};
  SendRecvKey parts_;
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    ctx->SetStatus(parts_.Read(ctx));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    OP_REQUIRES_ASYNC(ctx, ctx->rendezvous() != nullptr,
                      ctx->NodeError(errors::Internal("no rendezvous for the step")), done);
    ctx->rendezvous()->RecvAsync(
        parts_.Key(ctx->frame_iter()),
        [ctx, done = std::move(done)](const Status& s, const Tensor& value, bool is_dead) {
          if (!s.ok()) {
            ctx->SetStatus(s);
          } else if (!is_dead && value.buffer() &&
                     !value.buffer()->allocator()->IsHostAccessible()) {
            // A GPU's Send copies to host memory for every host receiver;
            // device memory here is a bug that would crash a CPU kernel.
            ctx->SetStatus(ctx->NodeError(errors::Internal(
                "received a tensor in device memory (", value.buffer()->allocator()->Name(),
                ") on ", ctx->device() ? ctx->device()->name() : std::string("a host device"))));
          } else if (!is_dead) {
            ctx->set_output(0, value);
          }  // a dead value leaves the output unset: dead downstream
          done();
        });
  }

 private:
  SendRecvKey parts_;
};

REGISTER_KERNEL_BUILDER(KernelDefBuilder("_Send").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("_Recv").Device(DEVICE_CPU), RecvOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("_HostSend").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("_HostRecv").Device(DEVICE_CPU), RecvOp);

}  // namespace
}  // namespace af
