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

namespace af {
namespace {

class ConcatBaseOp : public OpKernel {
 public:
  // axis_first: Concat's input order (axis, values...) rather than
  // ConcatV2's (values..., axis).
  ConcatBaseOp(OpKernelConstruction* ctx, bool axis_first) : OpKernel(ctx) {
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
    int a = 0;
    OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                ctx->NodeError(errors::InvalidArgument(
                    "ConcatOp : Expected concatenating dimensions in the range [", -rank, ", ",
                    rank, "), but got ", axis)));
    a = static_cast<int>(axis < 0 ? axis + rank : axis);

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
    out_shape.set_dim(a, axis_total);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    const int64_t outer = DimProduct(out_shape, 0, a);
    VisitElementStorage(first.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      ConcatRows<S>(ctx, first_value_, num_values_, outer, StorageData<S>(*out));
    });
  }

 private:
  int axis_input_ = 0, first_value_ = 0, num_values_ = 0;
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
