// Softmax and LogSoftmax over the last dim on CUDA GPUs through
// cudnnSoftmaxForward, for float, double and half. The logits, viewed as
// [rows, depth], become an NCHW [rows, depth, 1, 1] tensor and cuDNN's
// per-instance mode normalizes each row; CUDNN_SOFTMAX_ACCURATE subtracts
// the row max first (as the CPU kernel does), CUDNN_SOFTMAX_LOG gives
// (x - max) - log(sum(exp(x - max))).
#include <climits>
#include <cstdint>

#include "core/op_kernel.h"
#include "core/tensor.h"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/cuda/cudnn_handle.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/nn/softmax_shape.h"

namespace af::gpu {

namespace {

template <bool kLog>
class CudaSoftmaxOp : public OpKernel {
 public:
  explicit CudaSoftmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    dtype_ = ctx->num_inputs() > 0 ? BaseType(ctx->input_types()[0]) : DT_INVALID;
    OP_REQUIRES(ctx, dtype_ == DT_FLOAT || dtype_ == DT_DOUBLE || dtype_ == DT_HALF,
                errors::Unimplemented(kLog ? "LogSoftmax" : "Softmax",
                                      " on a CUDA GPU supports float, double and half, not ",
                                      DataTypeString(dtype_)));
  }

  void Compute(OpKernelContext* ctx) override {
    int64_t rows = 0, depth = 0;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, PrepareSoftmax(ctx, &rows, &depth, &out));
    if (rows == 0) return;
    OP_REQUIRES(ctx, rows <= INT_MAX && depth <= INT_MAX,
                ctx->NodeError(errors::Unimplemented(
                    "softmax of ", rows, " rows of ", depth,
                    " exceeds what cuDNN's softmax addresses (2^31 - 1 per dim)")));
    const Tensor& logits = ctx->input(0);
    CudnnScope cudnn;
    OP_REQUIRES_OK(ctx, CudnnFor(ctx, &cudnn));
    cudnnDataType_t data_type;
    OP_REQUIRES_OK(ctx, ctx->NodeError(CudnnDataTypeOf(dtype_, &data_type)));
    CudnnTensorDescriptor desc;
    OP_REQUIRES_OK(ctx, ctx->NodeError(desc.Init("cudnnCreateTensorDescriptor")));
    OP_REQUIRES_CUDNN(ctx,
                      cudnnSetTensor4dDescriptor(desc.get(), CUDNN_TENSOR_NCHW, data_type,
                                                 static_cast<int>(rows), static_cast<int>(depth),
                                                 1, 1),
                      "cudnnSetTensor4dDescriptor");
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    const bool fp64 = dtype_ == DT_DOUBLE;
    const void* alpha = fp64 ? static_cast<const void*>(&one_d) : &one_f;
    const void* beta = fp64 ? static_cast<const void*>(&zero_d) : &zero_f;
    OP_REQUIRES_CUDNN(ctx,
                      cudnnSoftmaxForward(cudnn.handle(),
                                          kLog ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
                                          CUDNN_SOFTMAX_MODE_INSTANCE, alpha, desc.get(),
                                          logits.raw_data(), beta, desc.get(), out->raw_data()),
                      "cudnnSoftmaxForward");
  }

 private:
  DataType dtype_ = DT_FLOAT;
};

}  // namespace

REGISTER_CUDA_KERNEL("Softmax", CudaSoftmaxOp<false>);
REGISTER_CUDA_KERNEL("LogSoftmax", CudaSoftmaxOp<true>);

}  // namespace af::gpu
