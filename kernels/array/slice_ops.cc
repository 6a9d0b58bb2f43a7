// Slice, StridedSlice and StridedSliceGrad.
//
// A slice that takes the whole input, or one contiguous run of it (leading
// dims one index each, one partial dim, whole trailing dims, unit strides),
// shares the input's buffer. Anything else is one strided copy: the input
// viewed from the slice's first element with strides scaled by the slice's
// steps (negative steps walk backwards).
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "core/strided_slice.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/slice_shape.h"
#include "kernels/array/strided_copy.h"

namespace af {
namespace {

// Output 0 = the box of `dims` at `begin` of `in` read with step `steps`
// per dim, under `out_shape`.
void EmitBox(OpKernelContext* ctx, const Tensor& in, const DimVector& begin, const DimVector& dims,
             const DimVector& steps, const TensorShape& out_shape) {
  const int rank = in.dims();
  bool unit_steps = true;
  for (int i = 0; i < rank; ++i) unit_steps &= dims[i] <= 1 || steps[i] == 1;
  if (unit_steps) {  // one contiguous run: share the input's buffer
    bool shared = false;
    OP_REQUIRES_OK(ctx, ShareContiguousBox(ctx, in, begin, dims, out_shape, &shared));
    if (shared) return;
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
  if (out_shape.num_elements() == 0) return;
  const DimVector in_strides = DenseStrides(in.shape());
  DimVector strides;
  for (int i = 0; i < rank; ++i) strides.push_back(in_strides[i] * steps[i]);
  int64_t offset = 0;
  for (int i = 0; i < rank; ++i) offset += begin[i] * in_strides[i];
  VisitElementStorage(in.dtype(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    StridedToDense(StorageData<S>(in) + offset, dims, strides, StorageData<S>(*out));
  });
}

class SliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    SliceShape shape;
    OP_REQUIRES_OK(ctx, ComputeSliceShape(ctx, in, &shape));
    DimVector steps;
    steps.resize(in.dims(), 1);
    EmitBox(ctx, in, shape.begin, shape.size, steps, shape.output);
  }
};

Status ReadMasks(OpKernelConstruction* ctx, StridedSliceSpec* spec) {
  AF_RETURN_IF_ERROR(ctx->GetAttr("begin_mask", &spec->begin_mask));
  AF_RETURN_IF_ERROR(ctx->GetAttr("end_mask", &spec->end_mask));
  AF_RETURN_IF_ERROR(ctx->GetAttr("ellipsis_mask", &spec->ellipsis_mask));
  AF_RETURN_IF_ERROR(ctx->GetAttr("new_axis_mask", &spec->new_axis_mask));
  return ctx->GetAttr("shrink_axis_mask", &spec->shrink_axis_mask);
}

// Reads begin/end/strides (inputs first..first+2) and resolves the slice of
// a tensor with `dims`.
Status PlanSlice(OpKernelContext* ctx, const StridedSliceSpec& masks, int first,
                 const DimVector& dims, StridedSlicePlan* plan) {
  DimVector begin, end, strides;
  AF_RETURN_IF_ERROR(IntVectorInput(ctx, first, "begin", &begin));
  AF_RETURN_IF_ERROR(IntVectorInput(ctx, first + 1, "end", &end));
  AF_RETURN_IF_ERROR(IntVectorInput(ctx, first + 2, "strides", &strides));
  if (begin.size() != strides.size() || end.size() != strides.size())
    return ctx->NodeError(errors::InvalidArgument(
        "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [",
        begin.size(), "], [", end.size(), "], and [", strides.size(), "] instead."));
  StridedSliceSpec spec = masks;
  spec.sparse_dims = strides.size();
  spec.begin = begin.data();
  spec.end = end.data();
  spec.strides = strides.data();
  return ctx->NodeError(ComputeStridedSlice(dims, spec, plan));
}

TensorShape ShapeOf(const DimVector& dims) {
  TensorShape shape;
  for (int64_t d : dims) shape.AddDim(d);
  return shape;
}

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    StridedSlicePlan plan;
    OP_REQUIRES_OK(ctx, PlanSlice(ctx, masks_, 1, in.shape().dim_sizes(), &plan));
    const TensorShape out_shape = ShapeOf(plan.final_dims);
    if (plan.is_identity) {
      OP_REQUIRES_OK(ctx, ShareAsOutput(ctx, in, out_shape));
      return;
    }
    EmitBox(ctx, in, plan.begin, plan.processing_dims, plan.strides, out_shape);
  }

 private:
  StridedSliceSpec masks_;
};

// dy scattered into zeros of `shape` at the places StridedSlice read.
class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    DimVector dims;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 0, "shape", &dims));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ctx->NodeError(TensorShape::Build(dims.data(), dims.size(), &shape)));
    StridedSlicePlan plan;
    OP_REQUIRES_OK(ctx, PlanSlice(ctx, masks_, 1, shape.dim_sizes(), &plan));
    const Tensor& dy = ctx->input(4);
    const TensorShape slice_shape = ShapeOf(plan.final_dims);
    OP_REQUIRES(ctx, dy.shape() == slice_shape,
                ctx->NodeError(errors::InvalidArgument("shape of dy was ", dy.shape().DebugString(),
                                                       " instead of ", slice_shape.DebugString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (BaseType(out->dtype()) != DT_STRING && out->TotalBytes() > 0)
      std::memset(out->raw_data(), 0, out->TotalBytes());
    if (dy.NumElements() == 0) return;
    const DimVector in_strides = DenseStrides(shape);
    DimVector strides;
    int64_t offset = 0;
    for (int i = 0; i < shape.dims(); ++i) {
      strides.push_back(in_strides[i] * plan.strides[i]);
      offset += plan.begin[i] * in_strides[i];
    }
    VisitElementStorage(dy.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      DenseToStrided(StorageData<S>(dy), plan.processing_dims, strides,
                     StorageData<S>(*out) + offset);
    });
  }

 private:
  StridedSliceSpec masks_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Slice")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("begin")
                            .HostMemory("size")
                            .Expensive(),
                        SliceOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("StridedSlice")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("begin")
                            .HostMemory("end")
                            .HostMemory("strides")
                            .Expensive(),
                        StridedSliceOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("StridedSliceGrad")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("shape")
                            .HostMemory("begin")
                            .HostMemory("end")
                            .HostMemory("strides")
                            .Expensive(),
                        StridedSliceGradOp);

}  // namespace af
