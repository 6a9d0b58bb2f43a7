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
#include "kernels/array/strided_copy.h"
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
  CudaConcatOp(OpKernelConstruction* ctx, bool axis_first) : OpKernel(ctx) {
    axis_input_ = axis_first ? 0 : ctx->num_inputs() - 1;
    first_value_ = axis_first ? 1 : 0;
    num_values_ = ctx->num_inputs() - 1;
  }

  void Compute(OpKernelContext* ctx) override {
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, IntScalarInput(ctx, axis_input_, "concat axis", &axis));
    const Tensor& first = ctx->input(first_value_);
    const int rank = first.dims();
    OP_REQUIRES(ctx, rank > 0,
                ctx->NodeError(
                    errors::InvalidArgument("Can't concatenate scalars (use tf.stack instead)")));
    OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                ctx->NodeError(errors::InvalidArgument(
                    "ConcatOp : Expected concatenating dimensions in the range [", -rank, ", ",
                    rank, "), but got ", axis)));
    const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
    TensorShape out_shape = first.shape();
    int64_t axis_total = 0;
    for (int i = 0; i < num_values_; ++i) {
      const Tensor& t = ctx->input(first_value_ + i);
      OP_REQUIRES(
          ctx, t.dims() == rank,
          ctx->NodeError(errors::InvalidArgument(
              "ConcatOp : Ranks of all input tensors should match: shape[0] = ",
              first.shape().DebugString(), " vs. shape[", i, "] = ", t.shape().DebugString())));
      for (int d = 0; d < rank; ++d) {
        if (d == a) continue;
        OP_REQUIRES(
            ctx, t.dim_size(d) == first.dim_size(d),
            ctx->NodeError(errors::InvalidArgument(
                "ConcatOp : Dimensions of inputs should match: shape[0] = ",
                first.shape().DebugString(), " vs. shape[", i, "] = ", t.shape().DebugString())));
      }
      axis_total += t.dim_size(a);
    }
    OP_REQUIRES(ctx, IsDeviceType(first.dtype()),
                ctx->NodeError(NotOnDevice(*this, first.dtype())));
    out_shape.set_dim(a, axis_total);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    const int64_t outer = DimProduct(out_shape, 0, a);
    const int64_t total = out_shape.num_elements() / outer;
    const int64_t es = DataTypeSize(BaseType(first.dtype()));
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    int64_t offset = 0;
    for (int i = 0; i < num_values_; ++i) {
      const Tensor& t = ctx->input(first_value_ + i);
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
  int axis_input_ = 0, first_value_ = 0, num_values_ = 0;
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
    DimVector begin, size;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 1, "begin", &begin));
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 2, "size", &size));
    const int rank = in.dims();
    OP_REQUIRES(ctx, begin.size() == rank && size.size() == rank,
                ctx->NodeError(errors::InvalidArgument(
                    "Expected begin and size arguments to be 1-D tensors of size ", rank,
                    ", but got shapes [", begin.size(), "] and [", size.size(), "] instead.")));
    TensorShape out_shape;
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = in.dim_size(i), b = begin[i];
      OP_REQUIRES(ctx, b >= 0 && b <= dim,
                  ctx->NodeError(errors::InvalidArgument("Expected begin[", i, "] in [0, ", dim,
                                                         "], but got ", b)));
      if (size[i] == -1) size[i] = dim - b;
      OP_REQUIRES(ctx, size[i] >= 0 && b + size[i] <= dim,
                  ctx->NodeError(errors::InvalidArgument("Expected size[", i, "] in [0, ", dim - b,
                                                         "], but got ", size[i])));
      out_shape.AddDim(size[i]);
    }
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    int64_t offset = 0;
    if (out_shape.num_elements() > 0 && ContiguousBox(in.shape(), begin, size, &offset)) {
      // One contiguous run: share the input's buffer.
      if (out_shape.num_elements() == in.NumElements()) {
        Tensor whole;
        OP_REQUIRES_OK(ctx, ShareAs(ctx, in, out_shape, &whole));
        ctx->set_output(0, std::move(whole));
        return;
      }
      Tensor flat, piece;
      OP_REQUIRES_OK(ctx, ShareAs(ctx, in, TensorShape{in.NumElements()}, &flat));
      OP_REQUIRES_OK(ctx, ShareAs(ctx, flat.Slice(offset, offset + out_shape.num_elements()),
                                  out_shape, &piece));
      ctx->set_output(0, std::move(piece));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    OP_REQUIRES(ctx, rank <= kMaxCopyDims * 4,
                ctx->NodeError(errors::Unimplemented("Slice of rank ", rank, " on GPU")));
    const DimVector in_strides = DenseStrides(in.shape());
    const DimVector out_strides = DenseStrides(out_shape);
    int64_t dims[kMaxCopyDims * 4], src[kMaxCopyDims * 4], dst[kMaxCopyDims * 4];
    offset = 0;
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
    const Tensor& paddings = ctx->input(1);
    const int rank = in.dims();
    OP_REQUIRES(ctx, paddings.dims() == 2 && paddings.dim_size(1) == 2,
                ctx->NodeError(errors::InvalidArgument("paddings must be a matrix with 2 columns: ",
                                                       paddings.shape().DebugString())));
    OP_REQUIRES(ctx, paddings.dim_size(0) == rank,
                ctx->NodeError(errors::InvalidArgument(
                    "The first dimension of paddings must be the rank of inputs",
                    paddings.shape().DebugString(), " ", in.shape().DebugString())));
    const bool has_constant = ctx->num_inputs() > 2;
    if (has_constant) {
      OP_REQUIRES(ctx, ctx->input(2).dims() == 0,
                  ctx->NodeError(errors::InvalidArgument("constant_values must be a scalar. Got: ",
                                                         ctx->input(2).shape().DebugString())));
    }
    TensorShape out_shape;
    DimVector before;
    bool no_padding = true;
    for (int i = 0; i < rank; ++i) {
      const int64_t b = IntElement(paddings, 2 * i), a = IntElement(paddings, 2 * i + 1);
      OP_REQUIRES(
          ctx, b >= 0 && a >= 0,
          ctx->NodeError(errors::InvalidArgument("Paddings must be non-negative: ", b, " ", a)));
      out_shape.AddDim(in.dim_size(i) + b + a);
      before.push_back(b);
      no_padding &= b == 0 && a == 0;
    }
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    if (no_padding) {
      Tensor same;
      OP_REQUIRES_OK(ctx, ShareAs(ctx, in, out_shape, &same));
      ctx->set_output(0, std::move(same));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t total = out_shape.num_elements();
    if (total == 0) return;
    cudaStream_t stream = nullptr;
    OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
    const int64_t es = DataTypeSize(BaseType(in.dtype()));
    if (has_constant) {
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
    const DimVector out_strides = DenseStrides(out_shape);
    int64_t dims[kMaxCopyDims * 4], src[kMaxCopyDims * 4], dst[kMaxCopyDims * 4];
    int64_t offset = 0;
    for (int i = 0; i < rank; ++i) {
      dims[i] = in.dim_size(i);
      src[i] = in_strides[i];
      dst[i] = out_strides[i];
      offset += before[i] * out_strides[i];
    }
    OP_REQUIRES_OK(ctx, Finish(ctx, StridedCopy(stream, in.raw_data(),
                                                static_cast<char*>(out->raw_data()) + offset * es,
                                                rank, dims, src, dst, es)));
  }
};

class CudaTileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DimVector multiples;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 1, "multiples", &multiples));
    const int rank = in.dims();
    OP_REQUIRES(ctx, multiples.size() == rank,
                ctx->NodeError(
                    errors::InvalidArgument("Expected multiples argument to be a vector of length ",
                                            rank, " but got length ", multiples.size())));
    TensorShape out_shape;
    for (int i = 0; i < rank; ++i) {
      OP_REQUIRES(ctx, multiples[i] >= 0,
                  ctx->NodeError(errors::InvalidArgument("Expected multiples[", i,
                                                         "] >= 0, but got ", multiples[i])));
      out_shape.AddDim(in.dim_size(i) * multiples[i]);
    }
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    if (out_shape == in.shape()) {
      Tensor same;
      OP_REQUIRES_OK(ctx, ShareAs(ctx, in, out_shape, &same));
      ctx->set_output(0, std::move(same));
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
    DimVector dims_in;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 1, "shape", &dims_in));
    TensorShape target;
    OP_REQUIRES_OK(ctx,
                   ctx->NodeError(TensorShape::Build(dims_in.data(), dims_in.size(), &target)));
    const int rank = target.dims(), lead = rank - in.dims();
    OP_REQUIRES(ctx, lead >= 0,
                ctx->NodeError(errors::InvalidArgument(
                    "Rank of input (", in.dims(),
                    ") must be no greater than rank of output shape (", rank, ").")));
    OP_REQUIRES(ctx, rank <= kMaxCopyDims * 4,
                ctx->NodeError(errors::Unimplemented("BroadcastTo of rank ", rank, " on GPU")));
    const DimVector in_strides = DenseStrides(in.shape());
    const DimVector out_strides = DenseStrides(target);
    int64_t dims[kMaxCopyDims * 4], src[kMaxCopyDims * 4], dst[kMaxCopyDims * 4];
    for (int i = 0; i < rank; ++i) {
      dims[i] = target.dim_size(i);
      src[i] = 0;
      dst[i] = out_strides[i];
    }
    for (int i = 0; i < in.dims(); ++i) {
      const int64_t have = in.dim_size(i), want = target.dim_size(lead + i);
      OP_REQUIRES(ctx, have == want || have == 1,
                  ctx->NodeError(errors::InvalidArgument(
                      "Unable to broadcast tensor of shape ", in.shape().DebugString(),
                      " to tensor of shape ", target.DebugString())));
      src[lead + i] = have == 1 ? 0 : in_strides[i];
    }
    OP_REQUIRES(ctx, IsDeviceType(in.dtype()), ctx->NodeError(NotOnDevice(*this, in.dtype())));
    if (target == in.shape()) {
      Tensor same;
      OP_REQUIRES_OK(ctx, ShareAs(ctx, in, target, &same));
      ctx->set_output(0, std::move(same));
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
