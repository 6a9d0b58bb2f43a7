// CUDA Concat/ConcatV2, Slice, Pad/PadV2, Tile and BroadcastTo, each one
// strided copy (kernels/gpu/cuda/device_copy.h): Slice reads from the
// slice's first element (a contiguous slice shares the input's buffer, as on
// the CPU), BroadcastTo reads with stride 0 along broadcast dims, Tile splits
// each dim into (multiple, size) with stride 0 along the multiple, Pad
// writes the constant everywhere (a memset for zeros) and then the input
// into the interior, Concat each input into its columns of the output.
// Begin/size, paddings, multiples, shapes and the axis are int32/int64
// tensors in host memory.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/broadcast_to_shape.h"
#include "kernels/array/concat_shape.h"
#include "kernels/array/pad_shape.h"
#include "kernels/array/slice_shape.h"
#include "kernels/array/strided_copy.h"
#include "kernels/array/tile_shape.h"
#include "kernels/gpu/cuda/cuda_types.cuh"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/cuda/device_copy.h"
#include "kernels/gpu/gpu_kernel_registry.h"

namespace af::gpu {
namespace {

// Concat (axis first) and ConcatV2 (axis last): input i fills columns
// [offset_i, offset_i + inner_i) of the output seen as [outer, total].
class CudaConcatOp : public OpKernel {
 public:
  CudaConcatOp(OpKernelConstruction* ctx, bool axis_first)
      : OpKernel(ctx), inputs_(ctx->num_inputs(), axis_first) {}

  void Compute(OpKernelContext* ctx) override {
    ConcatShape shape;
    OP_REQUIRES_OK(ctx, ComputeConcatShape(ctx, inputs_, &shape));
    const Tensor& first = ctx->input(inputs_.first);
    OP_REQUIRES(ctx, IsDeviceType(first.dtype()),
                ctx->NodeError(NotOnDevice(*this, first.dtype())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape.output, &out));
    if (shape.output.num_elements() == 0) return;
    const int64_t outer = shape.outer;
    const int64_t total = shape.output.num_elements() / outer;
    const int64_t es = DataTypeSize(BaseType(first.dtype()));
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    int64_t offset = 0;
    for (int i = 0; i < inputs_.n; ++i) {
      const Tensor& t = ctx->input(inputs_.first + i);
      const int64_t inner = t.NumElements() / outer;
      if (inner > 0) {
        const int64_t dims[2] = {outer, inner}, src[2] = {inner, 1}, dst[2] = {total, 1};
        OP_REQUIRES_OK(
            ctx, Finish(ctx, StridedCopy(stream, t.raw_data(),
                                         static_cast<char*>(out->raw_data()) + offset * es, 2,
                                         dims, src, dst, es)));
      }
      offset += inner;
    }
  }

 private:
  ConcatInputs inputs_;
};

class CudaConcatV1Op : public CudaConcatOp {
 public:
  explicit CudaConcatV1Op(OpKernelConstruction* ctx) : CudaConcatOp(ctx, /*axis_first=*/true) {}
};
class CudaConcatV2Op : public CudaConcatOp {
 public:
  explicit CudaConcatV2Op(OpKernelConstruction* ctx) : CudaConcatOp(ctx, /*axis_first=*/false) {}
};

class CudaSliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    SliceShape shape;
    OP_REQUIRES_OK(ctx, ComputeSliceShape(ctx, in, &shape));
    const DimVector& begin = shape.begin;
    const DimVector& size = shape.size;
    const TensorShape& out_shape = shape.output;
    const int rank = in.dims();
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    bool shared = false;  // one contiguous run: share the input's buffer
    OP_REQUIRES_OK(ctx, ShareContiguousBox(ctx, in, begin, size, out_shape, &shared));
    if (shared) return;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    OP_REQUIRES(ctx, rank <= kMaxCopyDims * 4,
                ctx->NodeError(errors::Unimplemented("Slice of rank ", rank, " on GPU")));
    const DimVector in_strides = DenseStrides(in.shape());
    const DimVector out_strides = DenseStrides(out_shape);
    int64_t dims[kMaxCopyDims * 4], src[kMaxCopyDims * 4], dst[kMaxCopyDims * 4];
    int64_t offset = 0;
    for (int i = 0; i < rank; ++i) {
      dims[i] = size[i];
      src[i] = in_strides[i];
      dst[i] = out_strides[i];
      offset += begin[i] * in_strides[i];
    }
    const int64_t es = DataTypeSize(BaseType(in.dtype()));
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    OP_REQUIRES_OK(ctx, Finish(ctx, StridedCopy(stream,
                                                static_cast<const char*>(in.raw_data()) + offset * es,
                                                out->raw_data(), rank, dims, src, dst, es)));
  }
};

// Pad (zeros) and PadV2 (a constant in device memory).
class CudaPadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    PadShape shape;
    OP_REQUIRES_OK(ctx, ComputePadShape(ctx, in, &shape));
    const TensorShape& out_shape = shape.output;
    const int rank = in.dims();
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    if (shape.no_padding) {
      OP_REQUIRES_OK(ctx, ShareAsOutput(ctx, in, out_shape));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t total = out_shape.num_elements();
    if (total == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    const int64_t es = DataTypeSize(BaseType(in.dtype()));
    if (shape.has_constant) {
      OP_REQUIRES_OK(ctx, Finish(ctx, FillFromDevice(stream, ctx->input(2).raw_data(),
                                                     out->raw_data(), total, es)));
    } else {
      OP_REQUIRES_CUDA(ctx, cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(), stream),
                       "Pad memset");
    }
    if (in.NumElements() == 0) return;
    OP_REQUIRES(ctx, rank <= kMaxCopyDims * 4,
                ctx->NodeError(errors::Unimplemented("Pad of rank ", rank, " on GPU")));
    const DimVector in_strides = DenseStrides(in.shape());
    int64_t dims[kMaxCopyDims * 4], src[kMaxCopyDims * 4], dst[kMaxCopyDims * 4];
    for (int i = 0; i < rank; ++i) {
      dims[i] = in.dim_size(i);
      src[i] = in_strides[i];
      dst[i] = shape.out_strides[i];
    }
    OP_REQUIRES_OK(ctx, Finish(ctx, StridedCopy(stream, in.raw_data(),
                                                static_cast<char*>(out->raw_data()) +
                                                    shape.offset * es,
                                                rank, dims, src, dst, es)));
  }
};

class CudaTileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    TileShape shape;
    OP_REQUIRES_OK(ctx, ComputeTileShape(ctx, in, &shape));
    const DimVector& multiples = shape.multiples;
    const TensorShape& out_shape = shape.output;
    const int rank = in.dims();
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    if (out_shape == in.shape()) {
      OP_REQUIRES_OK(ctx, ShareAsOutput(ctx, in, out_shape));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    OP_REQUIRES(ctx, rank <= kMaxCopyDims * 2,
                ctx->NodeError(errors::Unimplemented("Tile of rank ", rank, " on GPU")));
    // Output dim i = (multiple m_i, input dim d_i): the copy walks 2 * rank
    // dims, the multiples with source stride 0.
    const DimVector in_strides = DenseStrides(in.shape());
    const DimVector out_strides = DenseStrides(out_shape);
    int64_t dims[kMaxCopyDims * 4], src[kMaxCopyDims * 4], dst[kMaxCopyDims * 4];
    for (int i = 0; i < rank; ++i) {
      dims[2 * i] = multiples[i];
      src[2 * i] = 0;
      dst[2 * i] = in.dim_size(i) * out_strides[i];
      dims[2 * i + 1] = in.dim_size(i);
      src[2 * i + 1] = in_strides[i];
      dst[2 * i + 1] = out_strides[i];
    }
    const int64_t es = DataTypeSize(BaseType(in.dtype()));
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    OP_REQUIRES_OK(ctx, Finish(ctx, StridedCopy(stream, in.raw_data(), out->raw_data(),
                                                2 * rank, dims, src, dst, es)));
  }
};

class CudaBroadcastToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    BroadcastToShape shape;
    OP_REQUIRES_OK(ctx, ComputeBroadcastToShape(ctx, in, &shape));
    const TensorShape& target = shape.output;
    const int rank = target.dims();
    OP_REQUIRES(ctx, rank <= kMaxCopyDims * 4,
                ctx->NodeError(errors::Unimplemented("BroadcastTo of rank ", rank, " on GPU")));
    const DimVector out_strides = DenseStrides(target);
    int64_t dims[kMaxCopyDims * 4], src[kMaxCopyDims * 4], dst[kMaxCopyDims * 4];
    for (int i = 0; i < rank; ++i) {
      dims[i] = target.dim_size(i);
      src[i] = shape.strides[i];
      dst[i] = out_strides[i];
    }
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    if (target == in.shape()) {
      OP_REQUIRES_OK(ctx, ShareAsOutput(ctx, in, target));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, target, &out));
    if (target.num_elements() == 0) return;
    const int64_t es = DataTypeSize(BaseType(in.dtype()));
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    OP_REQUIRES_OK(ctx, Finish(ctx, StridedCopy(stream, in.raw_data(), out->raw_data(),
                                                rank, dims, src, dst, es)));
  }
};

}  // namespace

REGISTER_CUDA_KERNEL("Concat", CudaConcatV1Op);
REGISTER_CUDA_KERNEL("ConcatV2", CudaConcatV2Op);
REGISTER_CUDA_KERNEL("Slice", CudaSliceOp);
REGISTER_CUDA_KERNEL("Pad", CudaPadOp);
REGISTER_CUDA_KERNEL("PadV2", CudaPadOp);
REGISTER_CUDA_KERNEL("Tile", CudaTileOp);
REGISTER_CUDA_KERNEL("BroadcastTo", CudaBroadcastToOp);

}  // namespace af::gpu
