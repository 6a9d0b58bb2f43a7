// Tile: the input repeated multiples[i] times along each dim i.
//
// Built outside-in without index arithmetic per element: the first copy
// along a dim is assembled from the dims inside it (recursively, the last
// dim being one memcpy of an input row), and the remaining copies along
// that dim are memcpys of that first block.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/array/array_kernel_util.h"
#include "kernels/array/strided_copy.h"
#include "kernels/array/tile_shape.h"

namespace af {
namespace {

struct TileLayout {
  const TensorShape* in_shape;
  const DimVector* multiples;
  DimVector in_strides, out_strides;
};

template <typename S>
void TileFrom(int d, const S* in, S* out, const TileLayout& layout) {
  const int64_t n = layout.in_shape->dim_size(d);
  if (d == layout.in_shape->dims() - 1) {
    CopyElements(out, in, n);
  } else {
    for (int64_t i = 0; i < n; ++i)
      TileFrom(d + 1, in + i * layout.in_strides[d], out + i * layout.out_strides[d], layout);
  }
  const int64_t block = n * layout.out_strides[d];
  for (int64_t m = 1; m < (*layout.multiples)[d]; ++m) CopyElements(out + m * block, out, block);
}

class TileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    TileShape shape;
    OP_REQUIRES_OK(ctx, ComputeTileShape(ctx, in, &shape));
    const TensorShape& out_shape = shape.output;
    if (out_shape == in.shape()) {  // all multiples 1 (or empty dims)
      OP_REQUIRES_OK(ctx, ShareAsOutput(ctx, in, out_shape));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    const TileLayout layout{&in.shape(), &shape.multiples, DenseStrides(in.shape()),
                            DenseStrides(out_shape)};
    VisitElementStorage(in.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      TileFrom(0, StorageData<S>(in), StorageData<S>(*out), layout);
    });
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Tile")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", MovableTypes())
                            .HostMemory("multiples")
                            .Expensive(),
                        TileOp);

}  // namespace af
