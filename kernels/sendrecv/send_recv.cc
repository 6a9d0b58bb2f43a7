// _Send and _Recv: the two halves of a cut edge between partitions. The
// key is fixed per node except for the frame and iteration, which come from
// the step so that loop iterations never collide.
#include "core/kernel_registry.h"
#include "core/rendezvous.h"

namespace af {
namespace {

struct KeyParts {
  std::string send_device, recv_device, tensor_name;
  uint64_t send_device_incarnation = 0;

  Status Read(OpKernelConstruction* ctx) {
    AF_RETURN_IF_ERROR(ctx->GetAttr("send_device", &send_device));
    AF_RETURN_IF_ERROR(ctx->GetAttr("recv_device", &recv_device));
    AF_RETURN_IF_ERROR(ctx->GetAttr("tensor_name", &tensor_name));
    int64_t incarnation = 0;
    AF_RETURN_IF_ERROR(ctx->GetAttr("send_device_incarnation", &incarnation));
    send_device_incarnation = static_cast<uint64_t>(incarnation);
    return Status::OK();
  }
  std::string Key(FrameAndIter frame_iter) const {
    return RendezvousKey(send_device, send_device_incarnation, recv_device, tensor_name,
                         frame_iter.frame_id, frame_iter.iter_id);
  }
};

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
  KeyParts parts_;
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
          } else if (!is_dead) {
            ctx->set_output(0, value);
          }  // a dead value leaves the output unset: dead downstream
          done();
        });
  }

 private:
  KeyParts parts_;
};

REGISTER_KERNEL_BUILDER(KernelDefBuilder("_Send").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("_Recv").Device(DEVICE_CPU), RecvOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("_HostSend").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("_HostRecv").Device(DEVICE_CPU), RecvOp);

}  // namespace
}  // namespace af
