// Reshape, ExpandDims and Squeeze: the input's buffer under another shape.
// None of them copies; the output shares the input's buffer.
#include <string>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"

namespace af {
namespace {

class ReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DimVector dims;
    if (ctx->input(1).dims() == 0) {
      // A scalar shape is a one-dim shape (legacy graphs: reshape(x, -1)).
      dims.push_back(IntElement(ctx->input(1), 0));
    } else {
      OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 1, "shape", &dims));
    }
    OP_REQUIRES_OK(ctx, InferMissingDim(ctx, in.shape(), &dims));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ctx->NodeError(TensorShape::Build(dims.data(), dims.size(), &shape)));
    OP_REQUIRES(ctx, shape.num_elements() == in.NumElements(),
                ctx->NodeError(errors::InvalidArgument(
                    "Input to reshape is a tensor with ", in.NumElements(), " values (shape ",
                    in.shape().DebugString(), "), but the requested shape ", shape.DebugString(),
                    " has ", shape.num_elements())));
    Tensor out;
    OP_REQUIRES_OK(ctx, ShareAs(ctx, in, shape, &out));
    ctx->set_output(0, std::move(out));
  }

 private:
  // Replaces the one -1 in `dims` by what makes the element counts agree.
  // Zero dims are left out of both counts when the target has one, so that
  // [0,3] -> [-1,0] gives [3,0] (as TensorFlow) rather than dividing by 0.
  static Status InferMissingDim(OpKernelContext* ctx, const TensorShape& in, DimVector* dims) {
    int missing = -1;
    int64_t product = 1;
    bool target_has_zero = false;
    for (int i = 0; i < dims->size(); ++i) {
      const int64_t d = (*dims)[i];
      if (d == -1) {
        if (missing >= 0)
          return ctx->NodeError(errors::InvalidArgument("Only one input size may be -1, not both ",
                                                        missing, " and ", i, " (requested shape ",
                                                        DimsString(*dims), ")"));
        missing = i;
      } else if (d < 0) {
        return ctx->NodeError(errors::InvalidArgument("Size ", i, " must be non-negative, not ", d,
                                                      " (requested shape ", DimsString(*dims),
                                                      ")"));
      } else if (d == 0) {
        target_has_zero = true;
      } else {
        product *= d;
      }
    }
    if (missing < 0) return Status::OK();
    int64_t counted = 1;
    for (int64_t d : in.dim_sizes())
      if (d > 0 || !target_has_zero) counted *= d;
    if (counted % product != 0)
      return ctx->NodeError(errors::InvalidArgument(
          "Input to reshape is a tensor with ", in.num_elements(), " values (shape ",
          in.DebugString(), "), but the requested shape ", DimsString(*dims),
          " requires a multiple of ", product));
    (*dims)[missing] = counted / product;
    return Status::OK();
  }
};

class ExpandDimsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, IntScalarInput(ctx, 1, "dim", &axis, /*allow_one_element=*/true));
    const int rank = in.dims();
    OP_REQUIRES(ctx, axis >= -rank - 1 && axis <= rank,
                ctx->NodeError(errors::InvalidArgument("Tried to expand dim index ", axis,
                                                       " for tensor with ", rank, " dimensions.")));
    if (axis < 0) axis += rank + 1;
    TensorShape shape = in.shape();
    shape.InsertDim(static_cast<int>(axis), 1);
    Tensor out;
    OP_REQUIRES_OK(ctx, ShareAs(ctx, in, shape, &out));
    ctx->set_output(0, std::move(out));
  }
};

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("squeeze_dims", &squeeze_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const int rank = in.dims();
    for (int64_t d : squeeze_dims_)
      OP_REQUIRES(
          ctx, d >= -rank && d < rank,
          ctx->NodeError(errors::InvalidArgument("Tried to squeeze dim index ", d,
                                                 " for tensor with ", rank, " dimensions.")));
    TensorShape shape;
    for (int i = 0; i < rank; ++i) {
      const int64_t size = in.dim_size(i);
      if (squeeze_dims_.empty()) {
        if (size != 1) shape.AddDim(size);
        continue;
      }
      if (!Chosen(i, rank)) {
        shape.AddDim(size);
        continue;
      }
      OP_REQUIRES(ctx, size == 1,
                  ctx->NodeError(errors::InvalidArgument(
                      "Can not squeeze dim[", i, "], expected a dimension of 1, got ", size,
                      " (input shape ", in.shape().DebugString(), ")")));
    }
    Tensor out;
    OP_REQUIRES_OK(ctx, ShareAs(ctx, in, shape, &out));
    ctx->set_output(0, std::move(out));
  }

 private:
  // Whether dim i is listed (a short list: scanning it beats allocating a
  // set per step).
  bool Chosen(int i, int rank) const {
    for (int64_t d : squeeze_dims_)
      if ((d < 0 ? d + rank : d) == i) return true;
    return false;
  }

  std::vector<int64_t> squeeze_dims_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Reshape").Device(DEVICE_CPU).HostMemory("shape"),
                        ReshapeOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ExpandDims").Device(DEVICE_CPU).HostMemory("dim"),
                        ExpandDimsOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("Squeeze").Device(DEVICE_CPU), SqueezeOp);

}  // namespace af
