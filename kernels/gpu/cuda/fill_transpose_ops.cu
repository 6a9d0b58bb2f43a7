// CUDA Fill, ZerosLike, OnesLike and Transpose (on kernels/gpu/cuda/
// device_copy.h). Dims and perm are int32/int64 tensors in host memory; a
// Transpose that moves no data shares its input's buffer.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/strided_copy.h"
#include "kernels/array/transpose_shape.h"
#include "kernels/gpu/cuda/cuda_types.cuh"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/cuda/device_copy.h"
#include "kernels/gpu/gpu_kernel_registry.h"

namespace af::gpu {
namespace {

class CudaFillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ComputeFillShape(ctx, &shape));
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, IsDeviceType(value.dtype()), ctx->NodeError(NotOnDevice(*this, value.dtype())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    OP_REQUIRES_OK(ctx, Finish(ctx, FillFromDevice(stream, value.raw_data(),
                                                   out->raw_data(), shape.num_elements(),
                                                   DataTypeSize(BaseType(value.dtype())))));
  }
};

class CudaZerosLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, IsDeviceType(x.dtype()), ctx->NodeError(NotOnDevice(*this, x.dtype())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    if (out->TotalBytes() == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    OP_REQUIRES_CUDA(ctx, cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(), stream),
                     "ZerosLike memset");
  }
};

class CudaOnesLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t n = x.NumElements();
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    Status s;
    switch (BaseType(x.dtype())) {
      case DT_FLOAT: {
        uint32_t bits;
        const float one = 1.0f;
        std::memcpy(&bits, &one, 4);
        s = FillWithBits(stream, out->raw_data(), n, 4, bits);
        break;
      }
      case DT_DOUBLE: {
        uint64_t bits;
        const double one = 1.0;
        std::memcpy(&bits, &one, 8);
        s = FillWithBits(stream, out->raw_data(), n, 8, bits);
        break;
      }
      case DT_HALF:
        s = FillWithBits(stream, out->raw_data(), n, 2, 0x3C00);
        break;
      case DT_BFLOAT16:
        s = FillWithBits(stream, out->raw_data(), n, 2, 0x3F80);
        break;
      case DT_INT16:
        s = FillWithBits(stream, out->raw_data(), n, 2, 1);
        break;
      case DT_UINT8:
      case DT_INT8:
        s = FillWithBits(stream, out->raw_data(), n, 1, 1);
        break;
      default:
        s = NotOnDevice(*this, x.dtype());
    }
    OP_REQUIRES_OK(ctx, Finish(ctx, s));
  }
};

class CudaTransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    TransposeShape shape;
    OP_REQUIRES_OK(ctx, ComputeTransposeShape(ctx, in, &shape));
    const TensorShape& out_shape = shape.output;
    const int rank = in.dims();
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    const DimVector out_strides = DenseStrides(out_shape);
    int64_t dims[kMaxCopyDims * 4], src[kMaxCopyDims * 4], dst[kMaxCopyDims * 4];
    OP_REQUIRES(ctx, rank <= kMaxCopyDims * 4,
                ctx->NodeError(errors::Unimplemented("Transpose of rank ", rank, " on GPU")));
    for (int i = 0; i < rank; ++i) {
      dims[i] = shape.dims[i];
      src[i] = shape.strides[i];
      dst[i] = out_strides[i];
    }
    const int64_t es = DataTypeSize(BaseType(in.dtype()));
    HostView v;
    bool empty = false;
    OP_REQUIRES_OK(ctx, Finish(ctx, BuildView(rank, dims, src, dst, es, &v, &empty)));
    if (!empty && v.rank == 1 && v.src[0] == 1) {  // the data does not move
      OP_REQUIRES_OK(ctx, ShareAsOutput(ctx, in, out_shape));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (empty) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    // The last two dims swapped (plain or batched 2-D): tiles.
    if (es <= 8) {
      if (v.rank == 2 && v.src[0] == 1 && v.src[1] == v.dims[0]) {
        // out [d0, d1] from in [d1, d0].
        OP_REQUIRES_OK(ctx, Finish(ctx, TransposeTiles(stream, in.raw_data(), out->raw_data(), 1,
                                                       v.dims[1], v.dims[0], es)));
        return;
      }
      if (v.rank == 3 && v.src[1] == 1 && v.src[2] == v.dims[1] &&
          v.src[0] == v.dims[1] * v.dims[2]) {
        // out [b, d1, d2] from in [b, d2, d1].
        OP_REQUIRES_OK(ctx, Finish(ctx, TransposeTiles(stream, in.raw_data(), out->raw_data(),
                                                       v.dims[0], v.dims[2], v.dims[1], es)));
        return;
      }
    }
    OP_REQUIRES_OK(ctx, Finish(ctx, LaunchCopy(stream, in.raw_data(), out->raw_data(), v)));
  }
};

}  // namespace

REGISTER_CUDA_KERNEL("Fill", CudaFillOp);
REGISTER_CUDA_KERNEL("ZerosLike", CudaZerosLikeOp);
REGISTER_CUDA_KERNEL("OnesLike", CudaOnesLikeOp);
REGISTER_CUDA_KERNEL("Transpose", CudaTransposeOp);

}  // namespace af::gpu
