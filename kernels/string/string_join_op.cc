// StringJoin: joins its inputs element by element with a separator. Scalar
// inputs broadcast to the shape the others share.
#include <string>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"

namespace af {
namespace {

class StringJoinOp : public OpKernel {
 public:
  explicit StringJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("separator", &separator_));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    bool have_non_scalar = false;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      if (t.dims() == 0) continue;
      if (!have_non_scalar) {
        shape = t.shape();
        have_non_scalar = true;
      } else {
        OP_REQUIRES(ctx, t.shape() == shape,
                    ctx->NodeError(
                        errors::InvalidArgument("Input shapes do not match: ", shape.DebugString(),
                                                " vs. ", t.shape().DebugString())));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    std::string* dst = out->data<std::string>();
    for (int64_t e = 0; e < out->NumElements(); ++e) {
      std::string& joined = dst[e];
      for (int i = 0; i < ctx->num_inputs(); ++i) {
        const Tensor& t = ctx->input(i);
        if (i > 0) joined += separator_;
        joined += t.data<std::string>()[t.dims() == 0 ? 0 : e];
      }
    }
  }

 private:
  std::string separator_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("StringJoin").Device(DEVICE_CPU), StringJoinOp);

}  // namespace af
