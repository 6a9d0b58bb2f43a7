// BroadcastGradientArgs: for z = x op y with NumPy broadcasting, the dims
// of z that the gradients of x (r0) and y (r1) must be summed over. Those
// are the dims, counted in z, where the operand (1-extended on the left)
// has size 1 -- including dims where z has size 1 too, as TensorFlow.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"

namespace af {
namespace {

template <typename T>
class BroadcastGradientArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    DimVector s0, s1;
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 0, "s0", &s0));
    OP_REQUIRES_OK(ctx, IntVectorInput(ctx, 1, "s1", &s1));
    const int rank = std::max(s0.size(), s1.size());
    // Dim i of z as seen by each operand (1 where it lacks the dim).
    auto dim = [rank](const DimVector& s, int i) {
      const int j = i - (rank - s.size());
      return j < 0 ? int64_t{1} : s[j];
    };
    int64_t n0 = 0, n1 = 0;
    for (int i = 0; i < rank; ++i) {
      const int64_t a = dim(s0, i), b = dim(s1, i);
      OP_REQUIRES(ctx, a == b || a == 1 || b == 1,
                  ctx->NodeError(errors::InvalidArgument("Incompatible shapes: ", DimsString(s0),
                                                         " vs. ", DimsString(s1))));
      n0 += a == 1;
      n1 += b == 1;
    }
    Tensor *r0 = nullptr, *r1 = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{n0}, &r0));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape{n1}, &r1));
    T* p0 = r0->data<T>();
    T* p1 = r1->data<T>();
    for (int i = 0; i < rank; ++i) {
      if (dim(s0, i) == 1) *p0++ = static_cast<T>(i);
      if (dim(s1, i) == 1) *p1++ = static_cast<T>(i);
    }
  }
};

}  // namespace

#define AF_REGISTER_BCAST_ARGS(T)                                   \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder("BroadcastGradientArgs") \
                              .Device(DEVICE_CPU)                   \
                              .TypeConstraint<T>("T")               \
                              .HostMemory("s0")                     \
                              .HostMemory("s1")                     \
                              .HostMemory("r0")                     \
                              .HostMemory("r1"),                    \
                          BroadcastGradientArgsOp<T>)
AF_REGISTER_BCAST_ARGS(int32_t);
AF_REGISTER_BCAST_ARGS(int64_t);
#undef AF_REGISTER_BCAST_ARGS

}  // namespace af
