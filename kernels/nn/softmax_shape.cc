#include "kernels/nn/softmax_shape.h"

#include "core/op_kernel.h"

namespace af {

Status PrepareSoftmax(OpKernelContext* ctx, int64_t* rows, int64_t* depth, Tensor** out) {
  const TensorShape& logits = ctx->input(0).shape();
  if (logits.dims() < 1)
    return ctx->NodeError(errors::InvalidArgument("logits must have >= 1 dimension, got ",
                                                  logits.DebugString()));
  AF_RETURN_IF_ERROR(ctx->allocate_output(0, logits, out));
  *depth = logits.dim_size(logits.dims() - 1);
  const int64_t total = logits.num_elements();
  *rows = total == 0 ? 0 : total / *depth;
  return Status::OK();
}

}  // namespace af
