// Concat (axis first), ConcatV2 (axis last) and ConcatOffset.
//
// Every input is viewed as [outer, inner_i] with outer the product of the
// dims before the axis; the output is [outer, sum of inner_i], filled one
// outer row at a time by memcpy of each input's row.
#include <string>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/concat_rows.h"
#include "kernels/array/concat_shape.h"

namespace af {
namespace {

class ConcatBaseOp : public OpKernel {
 public:
  // axis_first: Concat's input order (axis, values...) rather than
  // ConcatV2's (values..., axis).
  ConcatBaseOp(OpKernelConstruction* ctx, bool axis_first)
      : OpKernel(ctx), inputs_(ctx->num_inputs(), axis_first) {}

  void Compute(OpKernelContext* ctx) override {
    ConcatShape shape;
    OP_REQUIRES_OK(ctx, ComputeConcatShape(ctx, inputs_, &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape.output, &out));
    if (shape.output.num_elements() == 0) return;
    VisitElementStorage(ctx->input(inputs_.first).dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      ConcatRows<S>(ctx, inputs_.first, inputs_.n, shape.outer, StorageData<S>(*out));
    });
  }

 private:
  ConcatInputs inputs_;
};

class ConcatOp : public ConcatBaseOp {
 public:
  explicit ConcatOp(OpKernelConstruction* ctx) : ConcatBaseOp(ctx, /*axis_first=*/true) {}
};

class ConcatV2Op : public ConcatBaseOp {
 public:
  explicit ConcatV2Op(OpKernelConstruction* ctx) : ConcatBaseOp(ctx, /*axis_first=*/false) {}
};

std::string ValuesString(const Tensor& t) {
  std::string out = "[";
  for (int64_t i = 0; i < t.NumElements(); ++i)
    out += (i ? "," : "") + std::to_string(IntElement(t, i));
  return out + "]";
}

// offset[i] is where input i of a Concat with these input shapes starts in
// its output: zeros except along the axis, the sum of the earlier sizes.
template <typename T>
class ConcatOffsetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, IntScalarInput(ctx, 0, "concat_dim", &axis));
    const int n = ctx->num_inputs() - 1;
    const Tensor& first = ctx->input(1);
    OP_REQUIRES(ctx, first.dims() == 1,
                ctx->NodeError(errors::InvalidArgument("input 0 must be a vector, got shape ",
                                                       first.shape().DebugString())));
    const int64_t rank = first.NumElements();
    OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                ctx->NodeError(
                    errors::InvalidArgument("Concat dim is out of range: ", axis, " vs. ", rank)));
    const int64_t a = axis < 0 ? axis + rank : axis;
    const T* first_dims = first.data<T>();
    T offset = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& s = ctx->input(1 + i);
      OP_REQUIRES(ctx, s.dims() == 1 && s.NumElements() == rank,
                  ctx->NodeError(errors::InvalidArgument("input ", i, " should contain ", rank,
                                                         " elements, but got ", s.NumElements())));
      const T* dims = s.data<T>();
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape{rank}, &out));
      T* o = out->data<T>();
      for (int64_t d = 0; d < rank; ++d) {
        if (d == a) {
          o[d] = offset;
          offset += dims[d];
          continue;
        }
        OP_REQUIRES(ctx, dims[d] == first_dims[d],
                    ctx->NodeError(errors::InvalidArgument(
                        "All dimensions except ", a, " must match. Input ", i, " has shape ",
                        ValuesString(s), " and doesn't match input 0 with shape ",
                        ValuesString(first), ".")));
        o[d] = 0;
      }
    }
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Concat")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("concat_dim")
                            .Expensive(),
                        ConcatOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ConcatV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("axis")
                            .Expensive(),
                        ConcatV2Op);

#define AF_REGISTER_CONCAT_OFFSET(T)                           \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("ConcatOffset")     \
                              .Device(DEVICE_CPU)              \
                              .TypeConstraint<T>("shape_type") \
                              .HostMemory("concat_dim")        \
                              .HostMemory("shape")             \
                              .HostMemory("offset"),           \
                          ConcatOffsetOp<T>)
AF_REGISTER_CONCAT_OFFSET(int32_t);
AF_REGISTER_CONCAT_OFFSET(int64_t);
#undef AF_REGISTER_CONCAT_OFFSET

}  // namespace af
